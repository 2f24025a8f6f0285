"""Setup (spec §2, D2, D6, D7; DESIGN §4): options, cards in play, each deal."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.common.decision import Rejected, RejectionKind
from domain.common.rng import Rng
from domain.games.fool import RULES
from domain.games.fool.events import HandsDealt
from domain.games.fool.model import Card, Color, FoolConfig, Phase, sorted_cards, wild
from domain.games.fool.setup import (
    cards_in_play,
    check_config,
    deal,
    hand_size,
    initial_state,
    setup,
    shuffle_label,
)
from tests.factories_fool import FOOL_RNG, fool_play_all, fool_state

# Spec table 2.1: players -> (green, red, yellow, blue) highest values, 1s, cards.
TABLE = {
    4: ((17, 13, 11, 8), 3, 48, 12),
    5: ((20, 16, 14, 10), 4, 60, 12),
    6: ((23, 19, 17, 12), 5, 72, 12),
    7: ((26, 22, 20, 14), 6, 84, 12),
    8: ((27, 23, 21, 15), 6, 88, 11),
}


@pytest.mark.parametrize("players", range(4, 9))
def test_four_to_eight_players_and_any_of_their_seats_may_deal_first(
    players: int,
) -> None:
    for seat in range(players):
        assert check_config(FoolConfig(first_dealer=seat), players) is None


@pytest.mark.parametrize("players", [0, 3, 9])
def test_other_player_counts_are_refused(players: int) -> None:
    refused = check_config(FoolConfig(), players)
    assert isinstance(refused, Rejected)
    assert (refused.reason, refused.rule, refused.kind) == (
        "PLAYER_COUNT_OUT_OF_RANGE",
        "fool/player_count",
        RejectionKind.MALFORMED,
    )


@pytest.mark.parametrize("first_dealer", [-1, 5, 99])
def test_a_first_dealer_outside_the_seats_is_refused(first_dealer: int) -> None:
    refused = check_config(FoolConfig(first_dealer=first_dealer), 5)
    assert isinstance(refused, Rejected)
    assert (refused.reason, refused.rule, refused.kind) == (
        "FIRST_DEALER_OUT_OF_RANGE",
        "fool/first_dealer",
        RejectionKind.MALFORMED,
    )
    assert refused.metadata == {"firstDealer": str(first_dealer), "players": "5"}


@pytest.mark.parametrize("players", range(4, 9))
def test_the_cards_in_play_follow_table_2_1_in_canonical_order(players: int) -> None:
    highest, wilds, total, per_player = TABLE[players]
    expected = [
        Card(color, value)
        for color, top in zip(Color, highest, strict=True)
        for value in range(2, top + 1)
    ] + [wild(copy) for copy in range(1, wilds + 1)]
    assert list(cards_in_play(players)) == expected
    assert len(expected) == total
    assert hand_size(players) == per_player
    assert sorted_cards(expected) == tuple(expected)


def test_the_whole_deck_is_88_cards_with_six_1s() -> None:
    deck = cards_in_play(8)
    colours = Counter(card.color for card in deck)
    assert colours == {
        Color.GREEN: 26,
        Color.RED: 22,
        Color.YELLOW: 20,
        Color.BLUE: 14,
        None: 6,
    }
    assert len(set(deck)) == 88


def test_the_initial_state_has_nothing_dealt_and_all_scores_zero() -> None:
    state = initial_state(5, FoolConfig(first_dealer=2))
    assert (state.phase, state.round, state.dealer, state.leader) == (
        Phase.SETUP,
        0,
        2,
        3,
    )
    assert state.hands == ((),) * 5
    assert (state.scores, state.ten_counts) == ((0,) * 5, (0,) * 5)
    assert RULES.to_move(state) == ()


def test_a_first_dealer_beyond_the_seats_taken_counts_round_them() -> None:
    # D16: a table for 8 that starts with 5 players, seat 6 configured to deal.
    state = initial_state(5, FoolConfig(first_dealer=6))
    assert (state.dealer, state.leader) == (1, 2)


@pytest.mark.parametrize("players", range(4, 9))
def test_the_deal_gives_blocks_of_the_round_1_shuffle_in_seat_order(
    players: int,
) -> None:
    rng = Rng(bytes(range(32)))
    (dealt,) = setup(initial_state(players, FoolConfig()), rng)
    assert isinstance(dealt, HandsDealt)
    shuffled = rng.shuffle("fool/round-1/shuffle", cards_in_play(players))
    size = TABLE[players][3]
    for seat, hand in enumerate(dealt.hands):
        assert hand == sorted_cards(shuffled[seat * size : (seat + 1) * size])
    assert dealt.hand_sizes == (size,) * players
    # Invariant 2: the deck in play is dealt completely, each card once.
    assert Counter(c for hand in dealt.hands for c in hand) == Counter(
        cards_in_play(players)
    )


def test_the_first_deal_names_dealer_and_the_leader_on_their_left() -> None:
    (dealt,) = setup(initial_state(4, FoolConfig(first_dealer=3)), FOOL_RNG)
    assert isinstance(dealt, HandsDealt)
    assert (dealt.round, dealt.dealer, dealt.leader) == (1, 3, 0)
    state = RULES.fold(initial_state(4, FoolConfig(first_dealer=3)), (dealt,))
    assert (state.phase, state.fools) == (Phase.PLAY, ())
    assert state.participants == (0, 1, 2, 3)
    assert RULES.to_move(state) == (0,)


def test_each_round_has_its_own_shuffle_label() -> None:
    assert shuffle_label(1) == "fool/round-1/shuffle"
    assert shuffle_label(7) == "fool/round-7/shuffle"
    first = deal(4, 1, 0, FOOL_RNG)
    second = deal(4, 2, 1, FOOL_RNG)
    assert first.hands != second.hands
    shuffled = FOOL_RNG.shuffle("fool/round-2/shuffle", cards_in_play(4))
    assert second.hands[0] == sorted_cards(shuffled[:12])


def test_the_next_round_is_dealt_by_the_next_seat_with_the_next_label() -> None:
    # D6: the last card of round 1 (dealer seat 3) deals round 2 from seat 0.
    state = fool_state(
        hands=(("G2",), ("G3", "R2"), ("G4", "R3"), ("G5", "R4")),
        leader=0,
        dealer=3,
    )
    after, events = fool_play_all(state, [(0, "G2"), (1, "G3"), (2, "G4"), (3, "G5")])
    dealt = events[-1]
    assert dealt == deal(4, 2, 0, FOOL_RNG)
    assert isinstance(dealt, HandsDealt)
    assert (dealt.round, dealt.dealer, dealt.leader) == (2, 0, 1)
    assert (after.round, after.dealer, after.leader) == (2, 0, 1)
    assert RULES.to_move(after) == (1,)
