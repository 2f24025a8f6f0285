"""The Qwirkle bot: the top-scoring placement, trades only when nothing fits."""

from __future__ import annotations

from domain.bots import choose_move, qwirkle
from domain.games.qwirkle import RULES
from domain.games.qwirkle.model import ExchangeTiles, Pass, PlaceTiles
from domain.games.qwirkle.scoring import score_placement
from tests.factories import (
    QWIRKLE_EXAMPLE_GRID,
    qwirkle_empty_bag_state,
    qwirkle_placements,
    qwirkle_state,
    qwirkle_tiles,
    qwirkle_turn_state,
)


def test_plays_the_placement_that_scores_most() -> None:
    state = qwirkle_turn_state()
    board = dict(state.board)
    moves = [m for m in RULES.legal_moves(state, 0) if isinstance(m, PlaceTiles)]
    best = max(score_placement(board, m.placements).points for m in moves)

    chosen = choose_move("qwirkle", state, 0)

    assert isinstance(chosen, PlaceTiles)
    assert score_placement(board, chosen.placements).points == best
    assert best > min(score_placement(board, m.placements).points for m in moves)


def test_completes_a_qwirkle_when_it_can() -> None:
    row = ("red-circle", "red-square", "red-diamond", "red-clover", "red-starburst")
    state = qwirkle_state(
        board=tuple((name, x, 0) for x, name in enumerate(row)),
        racks=(("blue-circle", "red-crisscross", "green-square"), ("yellow-clover",)),
        bag=("purple-circle",),
    )

    chosen = choose_move("qwirkle", state, 0)

    assert chosen in (
        PlaceTiles(0, qwirkle_placements(("red-crisscross", -1, 0))),
        PlaceTiles(0, qwirkle_placements(("red-crisscross", 5, 0))),
    )


def test_counts_the_end_bonus_for_emptying_the_rack() -> None:
    rack = qwirkle_tiles("green-starburst")
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID, racks=(("green-starburst",), ("yellow-clover",))
    )
    board = dict(state.board)

    chosen = choose_move("qwirkle", state, 0)

    assert isinstance(chosen, PlaceTiles)
    assert qwirkle.placement_points(board, chosen, rack, bag_size=1) == 5
    assert qwirkle.placement_points(board, chosen, rack, bag_size=0) == 5 + 6


def test_trades_the_tiles_outside_its_best_line_when_nothing_fits() -> None:
    state = qwirkle_turn_state(
        racks=(
            qwirkle_tiles("purple-starburst", "purple-crisscross", "purple-starburst"),
            qwirkle_tiles("yellow-clover"),
        ),
    )

    chosen = choose_move("qwirkle", state, 0)

    assert chosen == ExchangeTiles(0, qwirkle_tiles("purple-starburst"))


def test_passes_when_passing_is_all_it_may_do() -> None:
    assert choose_move("qwirkle", qwirkle_empty_bag_state(), 0) == Pass(0)


def test_line_potential_counts_distinct_tiles_of_one_colour_or_shape() -> None:
    rack = qwirkle_tiles("red-circle", "red-circle", "red-square", "blue-circle")
    assert qwirkle.line_potential(rack) == 2
    assert qwirkle.line_potential(()) == 0
