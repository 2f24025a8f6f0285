"""Lines on the grid and the points a placement scores (spec §3, §5.1)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from domain.games.qwirkle.model import (
    MIN_LINE,
    QWIRKLE_BONUS,
    QWIRKLE_LENGTH,
    Cell,
    Placement,
    Tile,
)

HORIZONTAL: Cell = (1, 0)
VERTICAL: Cell = (0, 1)


def perpendicular(step: Cell) -> Cell:
    """Returns the other axis."""
    return VERTICAL if step == HORIZONTAL else HORIZONTAL


def run_cells(grid: Mapping[Cell, Tile], cell: Cell, step: Cell) -> tuple[Cell, ...]:
    """Returns the maximal run of occupied cells through ``cell`` along ``step``."""
    dx, dy = step
    x, y = cell
    low = 0
    while (x - (low + 1) * dx, y - (low + 1) * dy) in grid:
        low += 1
    high = 0
    while (x + (high + 1) * dx, y + (high + 1) * dy) in grid:
        high += 1
    return tuple((x + i * dx, y + i * dy) for i in range(-low, high + 1))


def is_valid_line(tiles: Sequence[Tile]) -> bool:
    """Returns whether tiles share a colour or a shape and never repeat (§3).

    Fewer than two tiles always qualify: they are not yet a line.
    """
    if len(set(tiles)) != len(tiles):
        return False
    # Distinct tiles of one colour have distinct shapes (and vice versa), so a
    # valid line never exceeds six tiles.
    return len({t.color for t in tiles}) <= 1 or len({t.shape for t in tiles}) <= 1


def overlay(
    board: Mapping[Cell, Tile], placements: Iterable[Placement]
) -> dict[Cell, Tile]:
    """Returns the grid after laying ``placements`` on ``board``."""
    grid = dict(board)
    grid.update((p.cell, p.tile) for p in placements)
    return grid


def placement_axis(placements: Sequence[Placement]) -> Cell:
    """Returns the axis of a placement in one line (horizontal for one tile)."""
    if len(placements) > 1 and placements[0].x == placements[1].x:
        return VERTICAL
    return HORIZONTAL


def scored_runs(
    grid: Mapping[Cell, Tile], placements: Sequence[Placement]
) -> tuple[tuple[Cell, ...], ...]:
    """Returns every run of 2+ cells that holds a placed tile, each once (§5.1)."""
    if len(placements) == 1:
        cell = placements[0].cell
        candidates = [
            run_cells(grid, cell, HORIZONTAL),
            run_cells(grid, cell, VERTICAL),
        ]
    else:
        axis = placement_axis(placements)
        candidates = [run_cells(grid, placements[0].cell, axis)]
        candidates += [run_cells(grid, p.cell, perpendicular(axis)) for p in placements]
    return tuple(run for run in candidates if len(run) >= MIN_LINE)


@dataclass(frozen=True, slots=True)
class PlacementScore:
    """The points of one placement and how they were made."""

    points: int
    lines: tuple[int, ...]
    qwirkles: int


def score_placement(
    board: Mapping[Cell, Tile], placements: Sequence[Placement]
) -> PlacementScore:
    """Returns the points of a legal placement on ``board`` (§5.1, D4, D11)."""
    runs = scored_runs(overlay(board, placements), placements)
    if not runs:
        # D4: a lone tile (first move with k = 1) scores 1; recorded as a line of 1.
        return PlacementScore(points=1, lines=(1,), qwirkles=0)
    lines = tuple(len(run) for run in runs)
    qwirkles = sum(1 for length in lines if length == QWIRKLE_LENGTH)
    return PlacementScore(
        points=sum(lines) + QWIRKLE_BONUS * qwirkles, lines=lines, qwirkles=qwirkles
    )
