"""Preconditions of ``PlaceTiles`` (spec §3, §4.1), each a rule-named predicate.

The checks run in the order of ``PLACEMENT_CHECKS`` and the first failure wins:
well-formedness (wrong in any state) first, then the rack and the grid, then the
first-move rules (D3), then §3 rules 2 to 5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from domain.common.decision import Rejected, malformed, reject
from domain.games.qwirkle.model import (
    MAX_COORDINATE,
    MIN_LINE,
    ORIGIN,
    RACK_SIZE,
    Cell,
    Phase,
    Placement,
    State,
    Tile,
    holds,
)
from domain.games.qwirkle.scoring import (
    HORIZONTAL,
    VERTICAL,
    is_valid_line,
    overlay,
    placement_axis,
    run_cells,
)

Placements = tuple[Placement, ...]
Check = Callable[[State, int, Placements], Rejected | None]


def _check_not_empty(
    _state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3: a placement lays 1 to 6 tiles.
    if placements:
        return None
    return malformed(
        "EMPTY_PLACEMENT",
        "A placement must lay at least one tile.",
        "qwirkle/placement_size",
    )


def _check_at_most_a_rack(
    _state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3: never more tiles than a full rack holds.
    if len(placements) <= RACK_SIZE:
        return None
    return malformed(
        "TOO_MANY_TILES",
        f"A placement lays at most {RACK_SIZE} tiles, not {len(placements)}.",
        "qwirkle/placement_size",
        limit=RACK_SIZE,
        requested=len(placements),
    )


def _check_coordinates(
    _state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §7 invariant 5: a connected grid of 108 tiles holding (0, 0) stays inside.
    for p in placements:
        if abs(p.x) > MAX_COORDINATE or abs(p.y) > MAX_COORDINATE:
            return malformed(
                "COORDINATE_OUT_OF_RANGE",
                f"Cell ({p.x}, {p.y}) lies over {MAX_COORDINATE} cells from (0, 0).",
                "qwirkle/grid_bounds",
                x=p.x,
                y=p.y,
                limit=MAX_COORDINATE,
            )
    return None


def _check_distinct_cells(
    _state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3 rule 1: target cells pairwise different.
    seen: set[Cell] = set()
    for p in placements:
        if p.cell in seen:
            return malformed(
                "DUPLICATE_CELL",
                f"Cell ({p.x}, {p.y}) is used twice.",
                "qwirkle/distinct_cells",
                x=p.x,
                y=p.y,
            )
        seen.add(p.cell)
    return None


def _check_distinct_tiles(
    _state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3 rules 1 and 5: two identical tiles in one placement share its line.
    seen: set[Tile] = set()
    for p in placements:
        if p.tile in seen:
            return malformed(
                "DUPLICATE_TILE",
                f"The tile {p.tile} is laid twice; a line never repeats a tile.",
                "qwirkle/distinct_tiles",
                tile=p.tile,
            )
        seen.add(p.tile)
    return None


def check_tiles_in_rack(rack: Sequence[Tile], tiles: Sequence[Tile]) -> Rejected | None:
    """Returns a refusal unless the rack holds ``tiles``, copies counted (§3 rule 1)."""
    missing = holds(rack, tiles)
    if missing is None:
        return None
    return reject(
        "TILE_NOT_IN_RACK",
        f"Your rack does not hold the tile {missing}.",
        "qwirkle/tiles_from_rack",
        tile=missing,
    )


def _check_tiles_in_rack(
    state: State, seat: int, placements: Placements
) -> Rejected | None:
    return check_tiles_in_rack(state.racks[seat], [p.tile for p in placements])


def _check_cells_empty(
    state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3 rule 1: all target cells are empty.
    for p in placements:
        if p.cell in state.board:
            return reject(
                "CELL_OCCUPIED",
                f"Cell ({p.x}, {p.y}) already holds a tile.",
                "qwirkle/empty_cells",
                x=p.x,
                y=p.y,
            )
    return None


def _check_first_move_size(
    state: State, seat: int, placements: Placements
) -> Rejected | None:
    # §4.1, D3: the first move lays exactly the starting number k of tiles.
    if state.phase is not Phase.FIRST_MOVE:
        return None
    expected = state.starting_numbers[seat]
    if len(placements) == expected:
        return None
    return reject(
        "FIRST_MOVE_WRONG_SIZE",
        f"The first move must lay exactly {expected} tiles, not {len(placements)}.",
        "qwirkle/first_move_size",
        expected=expected,
        placed=len(placements),
    )


def _check_first_move_origin(
    state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # D3: the first move covers (0, 0) so that coordinates are canonical.
    if state.phase is not Phase.FIRST_MOVE or any(p.cell == ORIGIN for p in placements):
        return None
    return reject(
        "FIRST_MOVE_MISSES_ORIGIN",
        "The first move must cover cell (0, 0).",
        "qwirkle/first_move_origin",
    )


def _check_one_line(
    _state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3 rule 2: all cells in one row or all in one column.
    if len({p.x for p in placements}) == 1 or len({p.y for p in placements}) == 1:
        return None
    return reject(
        "NOT_IN_ONE_LINE",
        "The tiles must all lie in one row or all in one column.",
        "qwirkle/one_line",
    )


def _check_no_gap(state: State, _seat: int, placements: Placements) -> Rejected | None:
    # §3 rule 3: every cell between the extreme placed cells is occupied afterwards.
    placed = {p.cell for p in placements}
    dx, dy = placement_axis(placements)
    first = min(placed)
    last = max(placed)
    for i in range(1, max(last[0] - first[0], last[1] - first[1])):
        cell = (first[0] + i * dx, first[1] + i * dy)
        if cell not in placed and cell not in state.board:
            return reject(
                "LINE_HAS_GAP",
                f"Cell ({cell[0]}, {cell[1]}) between the placed tiles is empty.",
                "qwirkle/no_gap",
                x=cell[0],
                y=cell[1],
            )
    return None


def _check_connected(
    state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3 rule 4: after the first move, a placed tile touches an old tile.
    if state.phase is Phase.FIRST_MOVE or any(
        _touches(state.board, p.cell) for p in placements
    ):
        return None
    return reject(
        "NOT_CONNECTED",
        "At least one placed tile must touch a tile already on the grid.",
        "qwirkle/connected",
    )


def _touches(board: Mapping[Cell, Tile], cell: Cell) -> bool:
    x, y = cell
    return any(n in board for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))


def _check_valid_lines(
    state: State, _seat: int, placements: Placements
) -> Rejected | None:
    # §3 rule 5 and D12: every line through a placed tile is valid as a whole.
    grid = overlay(state.board, placements)
    for p in placements:
        for step in (HORIZONTAL, VERTICAL):
            run = run_cells(grid, p.cell, step)
            if len(run) >= MIN_LINE and not is_valid_line([grid[c] for c in run]):
                return reject(
                    "INVALID_LINE",
                    f"The line through ({p.x}, {p.y}) would not share one colour or"
                    " one shape without repeating a tile.",
                    "qwirkle/valid_line",
                    x=p.x,
                    y=p.y,
                )
    return None


PLACEMENT_CHECKS: tuple[Check, ...] = (
    _check_not_empty,
    _check_at_most_a_rack,
    _check_coordinates,
    _check_distinct_cells,
    _check_distinct_tiles,
    _check_tiles_in_rack,
    _check_cells_empty,
    _check_first_move_size,
    _check_first_move_origin,
    _check_one_line,
    _check_no_gap,
    _check_connected,
    _check_valid_lines,
)


def check_placement(state: State, seat: int, placements: Placements) -> Rejected | None:
    """Returns the first broken precondition of a placement, or None (§3)."""
    for check in PLACEMENT_CHECKS:
        refused = check(state, seat, placements)
        if refused is not None:
            return refused
    return None
