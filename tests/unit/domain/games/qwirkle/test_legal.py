"""``legal_moves``: every command decide accepts, and nothing else."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping

import pytest

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.checks import check_placement
from domain.games.qwirkle.legal import distinct_tiles, legal_moves
from domain.games.qwirkle.model import (
    ExchangeTiles,
    Pass,
    Phase,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    State,
)
from tests.factories import (
    QWIRKLE_EXAMPLE_GRID,
    qwirkle_state,
    qwirkle_tiles,
)

RNG = Rng(bytes(range(32)))


def midgame(players: int, seed: int, turns: int) -> State:
    """Returns the state after ``turns`` random legal moves of a real game."""
    rng = Rng(seed.to_bytes(32, "big"))
    choose = random.Random(seed)
    state = RULES.initial_state(players, QwirkleConfig())
    state = RULES.fold(state, RULES.setup(state, rng))
    for _ in range(turns):
        moves = [
            m for m in legal_moves(state, state.to_move) if not isinstance(m, Pass)
        ]
        decision = RULES.decide(state, choose.choice(moves), rng)
        assert isinstance(decision, Accepted)
        state = RULES.fold(state, decision.events)
    return state


def brute_force(state: State, max_size: int) -> Iterator[frozenset[Placement]]:
    """Yields every placement of up to ``max_size`` tiles check_placement allows."""
    seat = state.to_move
    kinds = distinct_tiles(state.racks[seat])
    for cells in _cell_sets(state, max_size):
        for tiles in itertools.permutations(kinds, len(cells)):
            placements = tuple(
                Placement(t, x, y) for t, (x, y) in zip(tiles, cells, strict=True)
            )
            if check_placement(state, seat, placements) is None:
                yield frozenset(placements)


def _cell_sets(state: State, max_size: int) -> Iterator[tuple[tuple[int, int], ...]]:
    """Yields the empty cell sets in one row or column, gap-free and touching."""
    board = state.board
    low = min(min(cell) for cell in board) - max_size
    high = max(max(cell) for cell in board) + max_size
    for line, axis in itertools.product(range(low, high + 1), (0, 1)):
        empty = [
            cell
            for a in range(low, high + 1)
            if (cell := (a, line) if axis == 0 else (line, a)) not in board
        ]
        for size in range(1 if axis == 0 else 2, max_size + 1):
            for cells in itertools.combinations(empty, size):
                if _gap_free(board, cells, axis) and any(
                    (x + dx, y + dy) in board
                    for x, y in cells
                    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                ):
                    yield cells


def _gap_free(
    board: Mapping[tuple[int, int], object],
    cells: tuple[tuple[int, int], ...],
    axis: int,
) -> bool:
    """Returns whether grid tiles fill every cell between the chosen ones."""
    first, last = cells[0][axis], cells[-1][axis]
    line = cells[0][1 - axis]
    between = ((a, line) if axis == 0 else (line, a) for a in range(first, last + 1))
    return all(cell in board or cell in cells for cell in between)


@pytest.mark.parametrize(
    ("players", "seed", "turns", "size"),
    [(2, 1, 10, 4), (3, 2, 20, 3), (4, 3, 30, 3), (2, 4, 40, 3), (6, 9, 1, 4)],
)
def test_small_placements_match_a_brute_force_search(
    players: int, seed: int, turns: int, size: int
) -> None:
    state = midgame(players, seed, turns)
    found = [
        frozenset(m.placements)
        for m in legal_moves(state, state.to_move)
        if isinstance(m, PlaceTiles)
    ]
    assert len(found) == len(set(found)), "a placement was yielded twice"
    assert {p for p in found if len(p) <= size} == set(brute_force(state, size))


def test_every_placement_of_a_rich_rack_matches_a_brute_force_search() -> None:
    reds = ("red-circle", "red-crisscross", "red-diamond", "red-square")
    state = qwirkle_state(
        board=(("blue-circle", 0, 0), ("blue-square", 1, 0)),
        racks=((*reds, "red-starburst", "blue-clover"), ()),
        bag=("green-circle",) * 5,
    )
    found = {
        frozenset(m.placements)
        for m in legal_moves(state, 0)
        if isinstance(m, PlaceTiles)
    }
    assert len(found) == 364  # 10 of one tile up to 144 of five
    assert found == set(brute_force(state, 6))


@pytest.mark.parametrize(("players", "seed", "turns"), [(2, 5, 4), (5, 6, 12)])
def test_every_legal_move_is_accepted(players: int, seed: int, turns: int) -> None:
    state = midgame(players, seed, turns)
    moves = list(legal_moves(state, state.to_move))
    assert moves
    for move in moves:
        assert isinstance(RULES.decide(state, move, RNG), Accepted), move


def test_legal_moves_are_in_a_deterministic_order() -> None:
    state = midgame(3, 7, 8)
    assert list(legal_moves(state, state.to_move)) == list(
        legal_moves(state, state.to_move)
    )


def test_nobody_but_the_seat_on_turn_has_a_legal_move() -> None:
    state = midgame(3, 8, 2)
    others = [s for s in range(3) if s != state.to_move]
    assert all(list(legal_moves(state, s)) == [] for s in others)


def test_there_is_no_legal_move_before_the_deal_or_after_the_end() -> None:
    assert list(legal_moves(RULES.initial_state(2, QwirkleConfig()), 0)) == []
    over = qwirkle_state(racks=(("red-circle",), ()), phase=Phase.GAME_OVER)
    assert list(legal_moves(over, 0)) == []


def test_first_moves_of_two_tiles_cover_both_orders_axes_and_offsets() -> None:
    state = qwirkle_state(
        racks=(("red-circle", "red-square", "blue-clover"), ()),
        bag=("green-circle",) * 10,
        phase=Phase.FIRST_MOVE,
        starting_numbers=(2, 1),
    )
    moves = list(legal_moves(state, 0))
    # One set {red-circle, red-square}: 2 orders x 2 axes x 2 offsets.
    assert len(moves) == 8
    assert all(isinstance(m, PlaceTiles) for m in moves)


def test_exchanges_are_every_distinct_multiset_of_the_rack() -> None:
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID,
        racks=(("purple-starburst", "purple-starburst", "yellow-starburst"), ()),
        bag=("green-circle",) * 10,
    )
    exchanges = [m.tiles for m in legal_moves(state, 0) if isinstance(m, ExchangeTiles)]
    # Tiles of an exchange come in canonical order: yellow before purple.
    expected = [
        ("yellow-starburst",),
        ("purple-starburst",),
        ("yellow-starburst", "purple-starburst"),
        ("purple-starburst", "purple-starburst"),
        ("yellow-starburst", "purple-starburst", "purple-starburst"),
    ]
    assert len(exchanges) == len(expected)
    assert set(exchanges) == {qwirkle_tiles(*names) for names in expected}


def test_exchanges_never_exceed_the_bag() -> None:
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID,
        racks=(("purple-starburst", "yellow-starburst", "blue-clover"), ()),
        bag=("green-circle",),
    )
    sizes = {
        len(m.tiles) for m in legal_moves(state, 0) if isinstance(m, ExchangeTiles)
    }
    assert sizes == {1}


def test_the_only_legal_move_without_bag_or_placement_is_to_pass() -> None:
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID, racks=(("purple-starburst",), ("red-circle",))
    )
    assert list(legal_moves(state, 0)) == [Pass(seat=0)]


def test_no_pass_is_offered_while_a_tile_fits() -> None:
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID, racks=(("red-circle",), ("red-circle",))
    )
    moves = list(legal_moves(state, 0))
    assert Pass(seat=0) not in moves
    assert moves
