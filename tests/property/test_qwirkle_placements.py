"""The fast placement search against a straightforward one, on random mid-games.

States come from seeded random games (every seat's rack, plus random racks and
racks of one colour or one shape, which reach the long placements). The
reference below knows nothing of masks or windows: it tries every distinct rack
tile on every cell of every short segment through an anchor and keeps what
spec §3 allows, checking whole lines on the grid as a player would.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence

import pytest

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.legal import can_place, legal_moves, placements_for
from domain.games.qwirkle.model import (
    Color,
    Pass,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    State,
    Tile,
)

Cell = tuple[int, int]
STEPS: tuple[Cell, Cell] = ((1, 0), (0, 1))
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))
LONGEST = 6
ALL_TILES = [Tile(c, s) for c in Color for s in Shape for _ in range(3)]
SEEDS = range(8)
SNAPSHOTS = 4  # states kept per game, spread over its whole length


def valid_line(tiles: Sequence[Tile]) -> bool:
    """Returns whether tiles are one line: no repeat, one shared attribute."""
    return len(set(tiles)) == len(tiles) <= LONGEST and (
        len({t.color for t in tiles}) == 1 or len({t.shape for t in tiles}) == 1
    )


def run_through(
    board: Mapping[Cell, Tile], placed: Mapping[Cell, Tile], cell: Cell, step: Cell
) -> list[Tile]:
    """Returns the tiles of the maximal run through ``cell`` along ``step``."""

    def at(cell: Cell) -> Tile | None:
        return placed.get(cell) or board.get(cell)

    x, y = cell
    while at((x - step[0], y - step[1])):
        x, y = x - step[0], y - step[1]
    tiles = []
    while tile := at((x, y)):
        tiles.append(tile)
        x, y = x + step[0], y + step[1]
    return tiles


def line_ok(tiles: Sequence[Tile]) -> bool:
    """Returns whether a run is valid, or too short to be a line."""
    return len(tiles) < 2 or valid_line(tiles)


def fillings(
    board: Mapping[Cell, Tile], cells: Sequence[Cell], kinds: Sequence[Tile]
) -> Iterator[dict[Cell, Tile]]:
    """Yields every filling of ``cells`` with distinct tiles that §3 rule 5 allows.

    Both lines through a cell are checked as soon as its tile is chosen: a part
    of a valid line is valid, so a bad partial run never becomes good.
    """
    placed: dict[Cell, Tile] = {}

    def fill(depth: int) -> Iterator[dict[Cell, Tile]]:
        if depth == len(cells):
            yield dict(placed)
            return
        cell = cells[depth]
        for tile in kinds:
            if tile not in placed.values():
                placed[cell] = tile
                if all(line_ok(run_through(board, placed, cell, s)) for s in STEPS):
                    yield from fill(depth + 1)
                del placed[cell]

    return fill(0)


def segments(board: Mapping[Cell, Tile]) -> set[tuple[Cell, ...]]:
    """Returns the free cells of every short segment holding an anchor.

    A segment starts and ends on a free cell, spans at most six cells and its
    free cells are the ones a placement fills.
    """
    anchors = {
        (x + dx, y + dy)
        for x, y in board
        for dx, dy in NEIGHBOURS
        if (x + dx, y + dy) not in board
    }
    found = set()
    for (x, y), (dx, dy) in itertools.product(anchors, STEPS):
        for before, after in itertools.product(range(LONGEST), repeat=2):
            if before + after < LONGEST:
                cells = [(x + i * dx, y + i * dy) for i in range(-before, after + 1)]
                if cells[0] not in board and cells[-1] not in board:
                    found.add(tuple(c for c in cells if c not in board))
    return found


def reference(
    board: Mapping[Cell, Tile], rack: Sequence[Tile]
) -> set[frozenset[Placement]]:
    """Returns every legal placement (§3), each as a set of placements."""
    kinds = sorted(set(rack), key=str)
    return {
        frozenset(Placement(t, x, y) for (x, y), t in placed.items())
        for cells in segments(board)
        if len(cells) <= len(kinds)
        for placed in fillings(board, cells, kinds)
    }


def snapshots(seed: int) -> Iterator[State]:
    """Yields states spread over one seeded random game, first move excluded."""
    players = 2 + seed % 5
    rng = Rng(seed.to_bytes(32, "big"))
    choose = random.Random(seed)
    state = RULES.initial_state(players, QwirkleConfig())
    state = RULES.fold(state, RULES.setup(state, rng))
    states = []
    while not state.finished:
        moves = list(legal_moves(state, state.to_move))
        placements = [m for m in moves if isinstance(m, PlaceTiles)]
        # Mostly placements, so that the grid grows as in a real game.
        move = choose.choice(placements or moves)
        decision = RULES.decide(state, move, rng)
        assert isinstance(decision, Accepted)
        state = RULES.fold(state, decision.events)
        if state.board and not state.finished:
            states.append(state)
    step = max(1, len(states) // SNAPSHOTS)
    yield from states[step // 2 :: step]


def racks(state: State, choose: random.Random) -> Iterator[tuple[Tile, ...]]:
    """Yields the seats' racks, a random rack and a rack sharing one attribute."""
    yield from (rack for rack in state.racks if rack)
    yield tuple(choose.sample(ALL_TILES, 6))
    if choose.random() < 0.5:
        color = choose.choice(list(Color))
        yield tuple(choose.sample([t for t in ALL_TILES if t.color == color], 6))
    else:
        shape = choose.choice(list(Shape))
        yield tuple(choose.sample([t for t in ALL_TILES if t.shape == shape], 6))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_search_finds_exactly_the_legal_placements(seed: int) -> None:
    choose = random.Random(seed)
    for state in snapshots(seed):
        for rack in racks(state, choose):
            found = list(placements_for(state.board, rack))
            as_sets = [frozenset(p) for p in found]
            assert len(set(as_sets)) == len(found), "a placement was yielded twice"
            assert set(as_sets) == reference(state.board, rack)
            assert all(list(p) == sorted(p, key=lambda q: q.cell) for p in found)
            assert can_place(state.board, rack) == bool(found)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_legal_moves_list_the_search_in_the_same_order_every_time(seed: int) -> None:
    for state in snapshots(seed):
        moves = list(legal_moves(state, state.to_move))
        assert moves == list(legal_moves(state, state.to_move))
        placed = [m.placements for m in moves if isinstance(m, PlaceTiles)]
        assert placed == list(placements_for(state.board, state.racks[state.to_move]))
        assert not any(isinstance(m, Pass) for m in moves) or not placed
