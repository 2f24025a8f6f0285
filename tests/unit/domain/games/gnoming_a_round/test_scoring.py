"""Round scoring and the game's winner (spec §4, D12-D14, D16).

The worked examples of §4.3 are checked twice: with the scoring helpers, and
played through ``decide`` and ``evolve`` to the end of a round.
"""

from __future__ import annotations

import pytest

from domain.games.gnoming_a_round.events import RoundScored
from domain.games.gnoming_a_round.model import Discard, Phase, State
from domain.games.gnoming_a_round.scoring import (
    first_out_adjustment,
    score_layout,
    winners,
)
from tests.factories_gnoming import CardMaker, gnoming_play, gnoming_state

LAYOUT_A = "6 6 M 2 6 -3 9 H 4"
LAYOUT_B = "5 5 5 5 8 1 5 8 M"
LAYOUT_C = "4 4 M M 9 9 2 3 1"
# Layouts without sets scoring 7, 12, 3 and 9 (§4.3 "First-out adjustment").
SEVEN = "1 2 -1 2 -1 1 3 -2 2"
TWELVE = "1 2 3 2 3 1 -1 -1 2"
THREE = "1 2 -1 2 -1 1 3 -2 -2"
NINE = "1 2 -1 2 -1 1 3 -2 4"
HIGH = "12 11 10 9 8 7 6 5 4"


def points(text: str) -> int:
    return score_layout(CardMaker().cards(text)).points


@pytest.mark.parametrize(
    ("layout", "score", "wild", "sets"),
    [
        (LAYOUT_A, 22, 2, (0,)),
        (LAYOUT_B, 7, 8, (0, 3)),
        (LAYOUT_C, 5, 3, (1,)),
        (SEVEN, 7, None, ()),
        (TWELVE, 12, None, ()),
        (THREE, 3, None, ()),
        (NINE, 9, None, ()),
    ],
)
def test_the_worked_layouts_score_as_in_the_spec(
    layout: str, score: int, wild: int | None, sets: tuple[int, ...]
) -> None:
    scored = score_layout(CardMaker().cards(layout))
    assert (scored.points, scored.wild, scored.sets) == (score, wild, sets)


@pytest.mark.parametrize(
    ("layout", "score"),
    [
        ("7 7 7 1 2 3 4 5 6", -7 + 21),  # a row of three equal positives
        ("7 1 4 7 2 5 7 3 6", -7 + 21),  # a column
        ("7 1 2 1 7 3 2 3 7", 33),  # diagonals never count (D13)
        ("7 7 M 1 2 3 4 5 6", -7 + 21),  # two and the wild mulligan
        ("7 M M 1 2 3 4 5 6", 7 + 21),  # one positive and two mulligans: no set
        ("7 7 -1 1 2 3 4 5 6", 13 + 21),  # a negative spoils the line
        ("7 7 H 1 2 3 4 5 6", 24 + 21),  # a hazard spoils it and scores +10
        ("M 4 4 4 8 8 4 8 8", -4 - 4 + 32),  # the wild stands for 4 in both lines
        ("M 4 4 9 8 8 9 8 8", -4 - 9 + 32),  # ... and for 4 and 9
        ("M M M 1 2 3 4 5 6", 21),  # mulligans score 0
        ("-5 -5 -5 -4 -4 -4 -3 -3 -3", -36),  # negatives never make a set
    ],
)
def test_sets_and_other_cards_score_by_the_rules(layout: str, score: int) -> None:
    assert points(layout) == score


def test_a_corner_card_in_two_sets_scores_nothing_itself() -> None:
    # Layout B: the 5 at position 0 belongs to row 0 and column 0.
    assert points(LAYOUT_B) == -10 + 8 + 1 + 8 + 0


def test_the_wild_mulligan_is_the_lowest_position_among_equal_choices() -> None:
    # D12: with two mulligans that change nothing, the first is wild.
    assert score_layout(CardMaker().cards("1 M 3 4 5 M 7 8 9")).wild == 1


def test_the_first_out_player_gets_plus_five_when_someone_scored_lower() -> None:
    # §4.3: Ana 7, Ben 12, Cy 7, Di 3.
    assert first_out_adjustment((7, 12, 7, 3), 0) == 5


def test_the_first_out_player_gets_minus_five_when_tied_for_lowest() -> None:
    # §4.3 with Di 9: Cy ties Ana, nobody is strictly lower (D14).
    assert first_out_adjustment((7, 12, 7, 9), 0) == -5


def test_the_lowest_total_wins() -> None:
    assert winners((40, 35, 50), (10, 10, 10)) == (1,)


def test_a_tie_goes_to_the_lower_third_round_score() -> None:
    # D16
    assert winners((35, 35, 50), (12, 9, 0)) == (1,)


def test_a_tie_on_both_is_shared() -> None:
    assert winners((35, 35, 35, 50), (9, 9, 10, 0)) == (0, 1)


def final_turn(layouts: tuple[str, ...], trigger: int = 0) -> State:
    """Returns the last seat's final turn, its pending card ready to discard."""
    last = (trigger - 1) % len(layouts)
    return gnoming_state(
        layouts,
        phase=Phase.DISCARD,
        active=last,
        in_hand="10",
        trigger=trigger,
        round_number=1,
    )


def scored(state: State) -> RoundScored:
    _, events = gnoming_play(state, Discard(state.active, 1))
    found = [e for e in events if isinstance(e, RoundScored)]
    assert len(found) == 1
    return found[0]


def test_the_worked_layouts_score_the_same_at_a_round_end() -> None:
    # Layouts A, B and C in seats 1-3 with some cards still face down.
    a = "6 6 M ~2 6 -3 9 ~H 4"
    b = "5 ~5 5 5 8 1 ~5 8 M"
    c = "4 4 ~M M 9 9 2 3 ~1"
    result = scored(final_turn((HIGH, a, b, c)))
    assert result.base_scores[1:] == (22, 7, 5)
    assert result.wild[1:] == (2, 8, 3)


def test_the_first_out_example_plays_out_with_plus_five() -> None:
    result = scored(final_turn((SEVEN, TWELVE, SEVEN, THREE)))
    assert result.base_scores == (7, 12, 7, 3)
    assert (result.first_out, result.adjustment) == (0, 5)
    assert result.scores == (12, 12, 7, 3)
    assert result.totals == result.scores


def test_the_first_out_example_plays_out_with_minus_five() -> None:
    result = scored(final_turn((SEVEN, TWELVE, SEVEN, NINE)))
    assert (result.adjustment, result.scores) == (-5, (2, 12, 7, 9))


def test_the_first_out_adjustment_goes_to_the_trigger_seat_only() -> None:
    # Invariant 11, with seat 2 triggering.
    result = scored(final_turn((SEVEN, TWELVE, THREE), trigger=2))
    assert result.first_out == 2
    assert [s - b for s, b in zip(result.scores, result.base_scores, strict=True)] == [
        0,
        0,
        -5,
    ]
