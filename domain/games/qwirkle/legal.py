"""Every legal command of a seat, in a deterministic order (DESIGN §2).

Placements come first (rows, then columns; see ``search.py``), then every
distinct exchange (distinct multisets of rack tiles), then ``Pass`` when D7
allows it. Placement tuples are sorted by cell.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from operator import getitem

from domain.games.qwirkle.model import (
    Cell,
    Command,
    ExchangeTiles,
    Pass,
    Phase,
    Placement,
    PlaceTiles,
    State,
    Tile,
    tile_key,
)
from domain.games.qwirkle.scoring import HORIZONTAL, VERTICAL
from domain.games.qwirkle.search import Search


def legal_moves(state: State, seat: int) -> Iterator[Command]:
    """Yields every command ``decide`` accepts from ``seat`` now."""
    if state.phase not in (Phase.FIRST_MOVE, Phase.TURN) or seat != state.to_move:
        return
    rack = state.racks[seat]
    if state.phase is Phase.FIRST_MOVE:
        for placements in first_moves(rack, state.starting_numbers[seat]):
            yield PlaceTiles(seat, placements)
        return
    placed = False
    for placements in placements_for(state.board, rack):
        placed = True
        yield PlaceTiles(seat, placements)
    for tiles in exchanges_for(rack, len(state.bag)):
        yield ExchangeTiles(seat, tiles)
    if not state.bag and not placed:
        yield Pass(seat)


def distinct_tiles(rack: Sequence[Tile]) -> tuple[Tile, ...]:
    """Returns the different tiles of a rack in canonical order."""
    return tuple(sorted(set(rack), key=tile_key))


def first_moves(rack: Sequence[Tile], k: int) -> Iterator[tuple[Placement, ...]]:
    """Yields every first move: k tiles in one line covering (0, 0) (§4.1, D3)."""
    kinds = distinct_tiles(rack)
    groups = {t.color: [u for u in kinds if u.color == t.color] for t in kinds}
    shapes = {t.shape: [u for u in kinds if u.shape == t.shape] for t in kinds}
    sets: list[tuple[Tile, ...]] = []
    for group in (*groups.values(), *shapes.values()):
        for chosen in itertools.combinations(group, k):
            if chosen not in sets:  # a lone tile is in a colour and a shape group
                sets.append(chosen)
    steps = (HORIZONTAL,) if k == 1 else (HORIZONTAL, VERTICAL)
    for chosen in sets:
        # slots[s][i][j]: tile j of ``chosen`` on cell i of placing s (a step
        # and an offset), each placement made once for all k! orders.
        slots = [
            [
                [Placement(tile, step * dx, step * dy) for tile in chosen]
                for step in range(-offset, k - offset)
            ]
            for (dx, dy), offset in itertools.product(steps, range(k))
        ]
        for order in itertools.permutations(range(k)):
            for cells in slots:
                yield tuple(map(getitem, cells, order))


def exchanges_for(rack: Sequence[Tile], bag_size: int) -> Iterator[tuple[Tile, ...]]:
    """Yields every distinct multiset of 1 to min(rack, bag) rack tiles (D5)."""
    counts = Counter(rack)
    kinds = sorted(counts, key=tile_key)
    for taken in _exchange_indices(tuple(counts[t] for t in kinds)):
        if len(taken) <= bag_size:
            yield tuple(map(kinds.__getitem__, taken))


@cache
def _exchange_indices(counts: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Returns the multisets of 1 or more kinds held ``counts`` times, as indices.

    Racks have few count patterns (six tiles at most), so every turn reuses one.
    """
    return tuple(
        tuple(i for i, n in enumerate(taken) for _ in range(n))
        for taken in itertools.product(*(range(count + 1) for count in counts))
        if sum(taken)
    )


def can_place(board: Mapping[Cell, Tile], rack: Sequence[Tile]) -> bool:
    """Returns whether any rack tile has a legal single-tile placement (§3 lemma)."""
    if not board:
        return bool(rack)
    return Search(board, rack).can_place()


def placements_for(
    board: Mapping[Cell, Tile], rack: Sequence[Tile]
) -> Iterator[tuple[Placement, ...]]:
    """Yields every legal placement on a non-empty board, each exactly once (§3)."""
    return Search(board, rack).placements()
