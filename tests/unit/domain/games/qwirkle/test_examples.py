"""The worked examples of spec §5.3, played through ``decide`` then ``evolve``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.common.decision import Accepted, Rejected
from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.events import (
    EndBonusScored,
    Event,
    GameEnded,
    TilesExchanged,
    TilesPlaced,
    TurnScored,
)
from domain.games.qwirkle.model import EndReason, ExchangeTiles, Phase, State
from domain.games.qwirkle.rules import exchange_label
from tests.factories import (
    QWIRKLE_EXAMPLE_GRID,
    qwirkle_place,
    qwirkle_state,
    qwirkle_tiles,
)

RNG = Rng(bytes(range(32)))


def accepted(decision: Accepted[Event] | Rejected) -> tuple[Event, ...]:
    """Returns the events of an accepted decision, failing the test otherwise."""
    assert isinstance(decision, Accepted), decision
    return decision.events


def scored(events: tuple[Event, ...]) -> TurnScored:
    """Returns the TurnScored event of a turn."""
    return next(e for e in events if isinstance(e, TurnScored))


def play_example_1() -> tuple[State, tuple[Event, ...]]:
    """Returns the §5.3 grid with seat 1 to move, and example 1's events."""
    command = qwirkle_place(1, ("red-circle", 2, 1), ("blue-circle", 2, 2))
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID,
        racks=(("red-square", "yellow-starburst"), ("red-circle", "blue-circle")),
        bag=("orange-clover",) * 20,
        to_move=1,
    )
    return state, accepted(RULES.decide(state, command, RNG))


def test_example_1_extending_a_shape_line_scores_3() -> None:
    state, events = play_example_1()
    assert scored(events) == TurnScored(seat=1, points=3, lines=(3,), qwirkles=0)
    assert RULES.fold(state, events).scores == (0, 3)


def test_example_2_two_runs_at_once_score_4() -> None:
    state, events = play_example_1()
    state = RULES.fold(state, events)
    decision = RULES.decide(state, qwirkle_place(0, ("red-square", 1, 1)), RNG)
    events = accepted(decision)
    assert scored(events) == TurnScored(seat=0, points=4, lines=(2, 2), qwirkles=0)
    assert RULES.fold(state, events).scores == (4, 3)


def example_3_grid() -> State:
    """Returns the grid after examples 1 and 2, seat 1 to move."""
    state, events = play_example_1()
    state = RULES.fold(state, events)
    square = qwirkle_place(0, ("red-square", 1, 1))
    state = RULES.fold(state, accepted(RULES.decide(state, square, RNG)))
    rack = qwirkle_tiles("red-circle", "green-starburst", "blue-clover")
    return replace(state, racks=(state.racks[0], rack))


def test_example_3_a_duplicate_in_the_row_is_an_invalid_line() -> None:
    state = example_3_grid()
    decision = RULES.decide(state, qwirkle_place(1, ("red-circle", 3, 1)), RNG)
    assert isinstance(decision, Rejected)
    assert (decision.reason, decision.rule) == ("INVALID_LINE", "qwirkle/valid_line")
    assert decision.metadata == {"x": "3", "y": "1"}


def test_example_3_tiles_around_an_empty_cell_are_not_one_line() -> None:
    state = example_3_grid()
    command = qwirkle_place(1, ("green-starburst", 4, 0), ("blue-clover", 4, 2))
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "LINE_HAS_GAP"
    assert decision.metadata == {"x": "4", "y": "1"}


@pytest.mark.parametrize("x", [-1, 5], ids=["left-end", "right-end"])
def test_example_4_completing_a_line_of_six_is_a_qwirkle_worth_12(x: int) -> None:
    row = ("red-circle", "red-square", "red-diamond", "red-clover", "red-starburst")
    state = qwirkle_state(
        board=tuple((name, i, 0) for i, name in enumerate(row)),
        racks=(("red-crisscross",), ("blue-circle",)),
        bag=("green-circle",),
    )
    events = accepted(
        RULES.decide(state, qwirkle_place(0, ("red-crisscross", x, 0)), RNG)
    )
    assert scored(events) == TurnScored(seat=0, points=12, lines=(6,), qwirkles=1)


def test_example_5_double_qwirkle_scores_24() -> None:
    orange = ["orange-circle", "orange-crisscross", "orange-diamond"]
    orange += ["orange-starburst", "orange-clover"]  # no orange square
    squares = ["red-square", "yellow-square", "green-square", "blue-square"]
    squares += ["purple-square"]  # no orange square
    board = [(name, i + 1, 0) for i, name in enumerate(orange)]
    board += [(name, 0, i + 1) for i, name in enumerate(squares)]
    state = qwirkle_state(
        board=board, racks=(("orange-square",), ("red-circle",)), bag=("red-clover",)
    )
    events = accepted(
        RULES.decide(state, qwirkle_place(0, ("orange-square", 0, 0)), RNG)
    )
    assert scored(events) == TurnScored(seat=0, points=24, lines=(6, 6), qwirkles=2)


def test_example_6_last_tiles_with_an_empty_bag_score_the_end_bonus() -> None:
    state = qwirkle_state(
        board=(("red-circle", 0, 0), ("blue-square", 1, 1)),
        racks=(("red-square", "red-diamond"), ("green-clover", "yellow-starburst")),
        scores=(20, 30),
    )
    command = qwirkle_place(0, ("red-square", 1, 0), ("red-diamond", 2, 0))
    events = accepted(RULES.decide(state, command, RNG))
    after = RULES.fold(state, events)
    assert events == (
        TilesPlaced(seat=0, placements=command.placements),
        TurnScored(seat=0, points=5, lines=(3, 2), qwirkles=0),
        EndBonusScored(seat=0, points=6),
        GameEnded(reason=EndReason.HAND_EMPTIED, racks=after.racks),
    )
    assert after.scores == (31, 30)
    assert after.phase is Phase.GAME_OVER


def test_example_7_an_exchange_larger_than_the_bag_is_refused() -> None:
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID,
        racks=(("red-circle", "red-square", "blue-clover"), ("green-circle",)),
        bag=("yellow-diamond", "purple-starburst"),
    )
    tiles = qwirkle_tiles("red-circle", "red-square", "blue-clover")
    decision = RULES.decide(state, ExchangeTiles(seat=0, tiles=tiles), RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "EXCHANGE_TOO_LARGE"
    assert decision.metadata == {"bagSize": "2", "requested": "3"}


def test_example_7_an_exchange_of_the_whole_bag_draws_then_returns() -> None:
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID,
        racks=(("red-circle", "red-square", "blue-clover"), ("green-circle",)),
        bag=("yellow-diamond", "purple-starburst"),
    )
    returned = qwirkle_tiles("red-circle", "blue-clover")
    events = accepted(RULES.decide(state, ExchangeTiles(seat=0, tiles=returned), RNG))
    bag = tuple(RNG.shuffle(exchange_label(1), returned))
    assert events == (
        TilesExchanged(seat=0, count=2, returned=returned, drawn=state.bag, bag=bag),
    )
    after = RULES.fold(state, events)
    assert after.racks[0] == qwirkle_tiles(
        "red-square", "yellow-diamond", "purple-starburst"
    )
    assert sorted(map(str, after.bag)) == ["blue-clover", "red-circle"]
