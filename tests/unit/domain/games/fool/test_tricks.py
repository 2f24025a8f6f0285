"""Tricks (spec §3.1, §3.3, D3-D5): who plays, who wins, who becomes the Fool."""

from __future__ import annotations

import pytest

from domain.games.fool import RULES
from domain.games.fool.events import TrickResolved
from domain.games.fool.model import Color, TrickCard, discs_in_use
from domain.games.fool.scoring import resolve, worst_first
from tests.factories_fool import fool_card, fool_play_all, fool_state


def trick(*plays: tuple[int, str]) -> tuple[TrickCard, ...]:
    """Returns trick cards from (seat, card id) pairs."""
    return tuple(TrickCard(seat, fool_card(name)) for seat, name in plays)


def test_a_trick_of_only_1s_is_won_by_the_first_and_lost_by_the_last() -> None:
    # D5: no lead colour; the first card played wins, the last is the worst.
    state = fool_state(
        hands=(("W1-1", "G2"), ("W1-2", "G3"), ("W1-3", "G4"), ("G5", "G6")),
        fools=(3,),
    )
    after, events = fool_play_all(state, [(0, "W1-1"), (1, "W1-2"), (2, "W1-3")])
    resolved = events[-1]
    assert isinstance(resolved, TrickResolved)
    assert (resolved.lead_color, resolved.winner, resolved.fools) == (None, 0, (2,))
    assert after.participants == (0, 1, 3)


def test_two_1s_in_a_coloured_trick_the_later_one_is_worse() -> None:
    result = resolve(trick((0, "G5"), (1, "W1-2"), (2, "W1-1")), players=4)
    assert (result.winner, result.fools) == (0, (2,))


def test_every_off_colour_card_is_worse_than_a_1_of_the_lead_colour() -> None:
    result = resolve(trick((0, "B2"), (1, "G27"), (2, "W1-1")), players=5)
    assert (result.lead_color, result.winner, result.fools) == (Color.BLUE, 0, (1,))


def test_the_lower_off_colour_card_is_worse_whatever_the_order() -> None:
    result = resolve(trick((0, "R9"), (1, "Y3"), (2, "B5")), players=4)
    assert (result.winner, result.fools) == (0, (1,))


def test_off_colour_ties_make_the_later_card_worse() -> None:
    # D4, and with two discs both of the tied cards are Fools, later first.
    played = trick((0, "B7"), (1, "B12"), (2, "G2"), (3, "W1-1"), (4, "R2"))
    assert worst_first(played) == [4, 2, 3, 0, 1]
    result = resolve(played, players=8)
    assert (result.winner, result.fools) == (1, (4, 2))


@pytest.mark.parametrize(("players", "discs"), [(4, 1), (5, 1), (6, 1), (7, 2), (8, 2)])
def test_one_disc_is_used_up_to_six_players_and_two_from_seven(
    players: int, discs: int
) -> None:
    # D3
    assert discs_in_use(players) == discs


def test_the_first_trick_of_a_round_has_every_player_then_n_minus_two() -> None:
    hands = [(f"G{2 + 2 * s}", f"G{3 + 2 * s}", f"R{2 + s}") for s in range(8)]
    state = fool_state(hands=hands, leader=3)
    assert state.participants == (3, 4, 5, 6, 7, 0, 1, 2)
    plays = [(s, f"G{2 + 2 * s}") for s in state.participants]
    after, events = fool_play_all(state, plays)
    resolved = events[-1]
    assert isinstance(resolved, TrickResolved)
    # G16 (seat 7) wins; G2 (seat 0) then G4 (seat 1) are worst.
    assert (resolved.winner, resolved.fools) == (7, (0, 1))
    assert after.participants == (7, 2, 3, 4, 5, 6)
    assert RULES.to_move(after) == (7,)


def test_a_fool_sits_out_one_trick_and_then_rejoins() -> None:
    state = fool_state(
        hands=(
            ("G2", "G9", "G12"),
            ("G3", "G8", "R2"),
            ("G4", "G7", "R3"),
            ("G5", "G6", "R4"),
        ),
        fools=(3,),
    )
    after, _ = fool_play_all(state, [(0, "G9"), (1, "G3"), (2, "G4")])
    assert after.fools == (1,)
    assert after.participants == (0, 2, 3)  # seat 0 won with G9 and leads
    after, _ = fool_play_all(after, [(0, "G12"), (2, "G7"), (3, "G5")])
    assert after.fools == (3,)
    assert after.participants == (0, 1, 2)


def test_the_winner_is_never_the_fool() -> None:
    for players in range(4, 9):
        played = trick(*((s, f"W1-{s + 1}") for s in range(players - 2)))
        result = resolve(played, players)
        assert result.winner not in result.fools
        assert len(result.fools) == discs_in_use(players)
