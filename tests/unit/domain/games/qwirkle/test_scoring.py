"""Scoring (spec §5.1): runs, Qwirkle bonus, single tiles (D4), six tiles (D11)."""

from __future__ import annotations

from collections.abc import Iterable

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.events import EndBonusScored, Event, TurnScored
from domain.games.qwirkle.model import State, Tile
from domain.games.qwirkle.scoring import (
    PlacementScore,
    is_valid_line,
    score_placement,
)
from tests.factories import (
    qwirkle_place,
    qwirkle_placements,
    qwirkle_state,
    qwirkle_tiles,
)

RNG = Rng(bytes(range(32)))
SIX_REDS = (
    "red-circle",
    "red-crisscross",
    "red-diamond",
    "red-square",
    "red-starburst",
    "red-clover",
)


def board_of(*cells: tuple[str, int, int]) -> dict[tuple[int, int], Tile]:
    """Returns a board mapping from ``(tile name, x, y)`` triples."""
    return {p.cell: p.tile for p in qwirkle_placements(*cells)}


def turn_events(
    state: State, cells: Iterable[tuple[str, int, int]]
) -> tuple[Event, ...]:
    """Returns the events of seat 0's placement, failing when it is refused."""
    decision = RULES.decide(state, qwirkle_place(0, *cells), RNG)
    assert isinstance(decision, Accepted), decision
    return decision.events


def test_a_lone_first_tile_scores_one() -> None:
    # D4
    score = score_placement({}, qwirkle_placements(("red-circle", 0, 0)))
    assert score == PlacementScore(points=1, lines=(1,), qwirkles=0)


def test_a_single_tile_scores_both_its_runs() -> None:
    board = board_of(("red-circle", 0, 0), ("blue-square", 1, 1))
    score = score_placement(board, qwirkle_placements(("red-square", 1, 0)))
    assert score == PlacementScore(points=4, lines=(2, 2), qwirkles=0)


def test_a_tile_in_only_one_run_scores_that_run_alone() -> None:
    board = board_of(("red-circle", 0, 0), ("red-square", 1, 0))
    score = score_placement(board, qwirkle_placements(("red-clover", 2, 0)))
    assert score == PlacementScore(points=3, lines=(3,), qwirkles=0)


def test_each_perpendicular_run_of_a_multi_tile_placement_scores_once() -> None:
    board = board_of(
        ("blue-circle", 0, 0), ("blue-square", 1, 0), ("green-clover", 2, 2)
    )
    cells = (("red-circle", 0, 1), ("red-square", 1, 1), ("red-clover", 2, 1))
    score = score_placement(board, qwirkle_placements(*cells))
    # Main row of 3, then the columns x=0 (2), x=1 (2) and x=2 (2).
    assert score == PlacementScore(points=9, lines=(3, 2, 2, 2), qwirkles=0)


def test_a_qwirkle_scores_six_more() -> None:
    board = board_of(*((name, i, 0) for i, name in enumerate(SIX_REDS[:5])))
    score = score_placement(board, qwirkle_placements(("red-clover", 5, 0)))
    assert score == PlacementScore(points=12, lines=(6,), qwirkles=1)


def test_placing_all_six_tiles_is_a_qwirkle_with_its_cross_runs() -> None:
    # D11: six tiles of one hand in one turn; the column through (0, 0) scores too.
    cells = tuple((name, i, 1) for i, name in enumerate(SIX_REDS))
    state = qwirkle_state(
        board=(("blue-circle", 0, 0),),
        racks=(SIX_REDS, ("green-square",)),
        bag=("yellow-square",) * 8,
    )
    events = turn_events(state, cells)
    assert events[1] == TurnScored(seat=0, points=14, lines=(6, 2), qwirkles=1)


def test_emptying_the_hand_with_an_empty_bag_adds_the_end_bonus_once() -> None:
    cells = tuple((name, i, 1) for i, name in enumerate(SIX_REDS))
    state = qwirkle_state(
        board=(("blue-circle", 0, 0),), racks=(SIX_REDS, ("green-square",))
    )
    events = turn_events(state, cells)
    bonuses = [e for e in events if isinstance(e, EndBonusScored)]
    assert bonuses == [EndBonusScored(seat=0, points=6)]


def test_valid_lines_share_one_attribute_and_never_repeat() -> None:
    assert is_valid_line(qwirkle_tiles("red-circle", "red-square"))
    assert is_valid_line(qwirkle_tiles("red-circle", "blue-circle", "green-circle"))
    assert not is_valid_line(qwirkle_tiles("red-circle", "red-circle"))
    assert not is_valid_line(qwirkle_tiles("red-circle", "blue-square"))
    assert not is_valid_line(qwirkle_tiles("red-circle", "red-square", "blue-square"))
    assert is_valid_line(qwirkle_tiles(*SIX_REDS))
