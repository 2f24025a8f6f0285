"""``evolve``: each event's effect on the state; replay is a fold."""

from __future__ import annotations

from domain.games.fool.events import (
    CardPlayed,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.evolve import evolve, participants
from domain.games.fool.model import Color, EndReason, FoolConfig, Phase, TrickCard
from domain.games.fool.setup import initial_state
from tests.factories_fool import fool_card, fool_cards, fool_state

HANDS = (fool_cards("G2", "R3"), fool_cards("G4"), fool_cards("W1-1"), ())


def test_a_deal_starts_a_round_with_every_seat_in_the_first_trick() -> None:
    state = initial_state(4, FoolConfig(first_dealer=1))
    after = evolve(state, HandsDealt(1, 1, 2, HANDS, (2, 1, 1, 0)))
    assert (after.phase, after.round, after.dealer, after.leader) == (
        Phase.PLAY,
        1,
        1,
        2,
    )
    assert after.hands == HANDS
    assert after.participants == (2, 3, 0, 1)
    assert (after.trick, after.fools, after.played) == ((), (), ())


def test_a_new_deal_returns_the_discs_and_forgets_the_played_cards() -> None:
    # D7
    state = fool_state(hands=(("G2",), ("G3",), ("G4",), ("G5",)), fools=(2,))
    state = evolve(state, TrickResolved((), None, 0, (2,)))
    after = evolve(state, HandsDealt(2, 1, 2, HANDS, (2, 1, 1, 0)))
    assert (after.fools, after.played, after.round) == ((), (), 2)


def test_a_played_card_leaves_the_hand_for_the_trick() -> None:
    state = fool_state(hands=(("G2", "R3"), ("G4",), ("G5",), ("G6",)))
    after = evolve(state, CardPlayed(0, fool_card("R3")))
    assert after.hands[0] == fool_cards("G2")
    assert after.trick == (TrickCard(0, fool_card("R3")),)
    assert after.to_move == 1


def test_a_resolved_trick_moves_the_discs_and_the_lead() -> None:
    state = fool_state(
        hands=(("G2",), ("G3",), ("G4",), ("G5",)),
        fools=(3,),
        trick=((0, "G9"), (1, "G7"), (2, "G8")),
    )
    cards = state.trick
    after = evolve(state, TrickResolved(cards, Color.GREEN, 0, (1,)))
    assert (after.leader, after.fools, after.trick) == (0, (1,), ())
    assert after.participants == (0, 2, 3)
    assert after.played == fool_cards("G9", "G7", "G8")


def test_a_scored_round_sets_totals_and_waits_for_the_next_deal() -> None:
    state = fool_state(hands=((), ("G3",), ("G4",), ("G5",)))
    after = evolve(
        state, RoundScored(1, (10, -3, -4, -5), (10, -3, -4, -5), (1, 0, 0, 0), ())
    )
    assert (after.scores, after.ten_counts) == ((10, -3, -4, -5), (1, 0, 0, 0))
    assert after.phase is Phase.ROUND_OVER
    assert after.to_move is None
    assert after.hands == state.hands  # shown, not taken away


def test_the_game_end_records_its_reasons() -> None:
    state = fool_state(hands=((), ("G3",), ("G4",), ("G5",)))
    after = evolve(state, GameEnded((EndReason.TEN_LIMIT,)))
    assert after.finished
    assert after.end_reasons == (EndReason.TEN_LIMIT,)
    assert after.to_move is None


def test_participants_skip_the_fools_clockwise_from_the_leader() -> None:
    assert participants(7, 5, (6, 1)) == (5, 0, 2, 3, 4)
    assert participants(4, 0, ()) == (0, 1, 2, 3)
