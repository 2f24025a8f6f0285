"""``evolve``: each event's effect on the state; replay is a fold."""

from __future__ import annotations

from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.events import (
    EndBonusScored,
    GameEnded,
    StartingPlayerChosen,
    TilesDealt,
    TilesDrawn,
    TilesExchanged,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)
from domain.games.qwirkle.evolve import evolve
from domain.games.qwirkle.model import EndReason, Phase, QwirkleConfig
from domain.games.qwirkle.setup import initial_state, setup
from tests.factories import qwirkle_placements, qwirkle_state, qwirkle_tiles


def test_the_deal_fills_racks_and_bag() -> None:
    state = initial_state(2, QwirkleConfig())
    racks = (qwirkle_tiles("red-circle"), qwirkle_tiles("blue-circle"))
    bag = qwirkle_tiles("green-circle", "green-square")
    after = evolve(state, TilesDealt(racks, (1, 1), bag, 2))
    assert (after.racks, after.bag, after.phase) == (racks, bag, Phase.SETUP)


def test_choosing_the_starting_player_opens_the_first_move() -> None:
    after = evolve(
        initial_state(3, QwirkleConfig()), StartingPlayerChosen((1, 3, 3), 1)
    )
    assert (after.phase, after.to_move, after.starting_numbers) == (
        Phase.FIRST_MOVE,
        1,
        (1, 3, 3),
    )


def test_placed_tiles_leave_the_rack_for_the_grid() -> None:
    state = qwirkle_state(
        racks=(("red-circle", "red-circle", "red-square"), ()), phase=Phase.FIRST_MOVE
    )
    placements = qwirkle_placements(("red-circle", 0, 0), ("red-square", 1, 0))
    after = evolve(state, TilesPlaced(0, placements))
    assert dict(after.board) == {(0, 0): placements[0].tile, (1, 0): placements[1].tile}
    assert after.racks[0] == qwirkle_tiles("red-circle")
    assert after.phase is Phase.TURN
    assert after.to_move == 0  # the turn passes when it is scored


def test_a_scored_turn_adds_points_and_passes_the_turn_clockwise() -> None:
    state = qwirkle_state(racks=((), (), ()), to_move=2, scores=(1, 2, 3))
    after = evolve(state, TurnScored(2, 5, (3, 2), 0))
    assert (after.scores, after.to_move) == ((1, 2, 8), 0)


def test_drawn_tiles_come_off_the_top_of_the_bag() -> None:
    state = qwirkle_state(
        racks=(("red-circle",), ()), bag=("blue-circle", "green-circle", "red-clover")
    )
    after = evolve(
        state, TilesDrawn(0, 2, qwirkle_tiles("blue-circle", "green-circle"))
    )
    assert after.racks[0] == qwirkle_tiles("red-circle", "blue-circle", "green-circle")
    assert after.bag == qwirkle_tiles("red-clover")


def test_an_exchange_swaps_tiles_counts_itself_and_records_the_bag() -> None:
    state = qwirkle_state(
        racks=(("red-circle", "red-square"), ()), bag=("blue-circle",)
    )
    event = TilesExchanged(
        0,
        1,
        qwirkle_tiles("red-square"),
        qwirkle_tiles("blue-circle"),
        qwirkle_tiles("red-square"),
    )
    after = evolve(state, event)
    assert after.racks[0] == qwirkle_tiles("red-circle", "blue-circle")
    assert after.bag == qwirkle_tiles("red-square")
    assert (after.exchanges, after.to_move) == (1, 1)


def test_a_pass_only_moves_the_turn() -> None:
    state = qwirkle_state(racks=((), ()), to_move=1)
    assert evolve(state, TurnPassed(1)) == qwirkle_state(racks=((), ()), to_move=0)


def test_the_end_bonus_adds_points_without_moving_the_turn() -> None:
    state = qwirkle_state(racks=((), ()), to_move=1, scores=(4, 4))
    after = evolve(state, EndBonusScored(0, 6))
    assert (after.scores, after.to_move) == ((10, 4), 1)


def test_the_end_of_the_game_is_final() -> None:
    state = qwirkle_state(racks=((), ()))
    after = evolve(state, GameEnded(EndReason.DEADLOCK, ((), ())))
    assert after.finished
    assert after.end_reason is EndReason.DEADLOCK
    assert RULES.to_move(after) == ()


def test_replaying_the_same_events_gives_an_equal_state() -> None:
    state = initial_state(4, QwirkleConfig())
    events = setup(state, Rng(b"\x07" * 32))
    assert RULES.fold(state, events) == RULES.fold(state, events)
    assert RULES.fold(state, events) is not RULES.fold(state, events)
