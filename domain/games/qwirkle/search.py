"""The placement search behind ``legal_moves`` and the pass and deadlock rules.

Speed matters here (bots and playouts list every move every turn), so tiles
become codes 0..35 (colour index * 6 + shape index), sets of tiles become bit
masks, and a set of tiles is summarised by its mask and the attributes all of
its tiles share (12 bits: six colours, then six shapes). A set is one valid
line (§3) exactly when no code repeats and some attribute is shared, so adding
a tile is two bit operations and never re-reads the line.

The search has two halves. What depends on the grid alone is worked out once
per grid and kept while the same grid is searched again (an exchange keeps
the grid, and every seat's rack is tried on one grid at the end): the empty
cells next to the grid (anchors), the codes each anchor takes alone (its row
and its column agree), and, for a row or column when first needed, its window
of free cells with the old runs between them. Placement objects are made once
per grid and cell, when first yielded. What depends on the rack is then a pass
over the anchors (an anchor no rack tile fits alone is in no placement) and a
walk of the lines holding a live anchor, from first placed cells within reach
of one: rows first, then columns, each by first and then last placed cell.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache

from domain.games.qwirkle.model import (
    QWIRKLE_LENGTH,
    Cell,
    Color,
    Placement,
    Shape,
    Tile,
)

_SHAPES = len(Shape)
_CODES = {
    Tile(c, s): i * _SHAPES + j
    for i, c in enumerate(Color)
    for j, s in enumerate(Shape)
}
_TILES = tuple(sorted(_CODES, key=_CODES.__getitem__))
_ALL = (1 << len(_TILES)) - 1
_COLORS = len(Color)
# Attribute a < 6 is colour a, a >= 6 is shape a - 6; _HAVING[a] masks its codes.
_HAVING = tuple(
    sum(1 << (c * _SHAPES + s) for s in range(_SHAPES)) for c in range(_COLORS)
) + tuple(sum(1 << (c * _SHAPES + s) for c in range(_COLORS)) for s in range(_SHAPES))
_ANY_ATTRIBUTE = (1 << len(_HAVING)) - 1
# _TRAITS[code]: the two attributes of a code, its colour and its shape.
_TRAITS = tuple(
    1 << (code // _SHAPES) | 1 << (_COLORS + code % _SHAPES)
    for code in range(len(_TILES))
)


def _having_any(attributes: int) -> int:
    having = 0
    for a, codes in enumerate(_HAVING):
        if attributes >> a & 1:
            having |= codes
    return having


# _OPEN[shared]: the codes having an attribute of ``shared``, for every value
# the attributes shared by a set of codes can take (nothing shared is not
# listed: that set is no line). The empty set shares every attribute.
_OPEN = {
    shared: _having_any(shared)
    for shared in (
        _ANY_ATTRIBUTE,
        *_TRAITS,
        *(1 << a for a in range(len(_HAVING))),
    )
}
_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))
# Cells a window keeps before its first anchor and after its last: a placement
# lays at most six tiles, and none lies beyond the anchors but the free cells.
_MARGIN = QWIRKLE_LENGTH - 1
_PAIR = 2


def _codes_of(mask: int) -> list[int]:
    """Returns the codes in a mask, ascending."""
    codes = []
    while mask:
        low = mask & -mask
        codes.append(low.bit_length() - 1)
        mask ^= low
    return codes


@lru_cache(maxsize=4096)
def _attributes(codes: int) -> int:
    """Returns the colours and shapes found among a mask of codes, as 12 bits.

    Only subsets of a rack's codes are asked for, a few thousand at most.
    """
    return sum(1 << a for a, having in enumerate(_HAVING) if codes & having)


def anchors(board: Mapping[Cell, object]) -> set[Cell]:
    """Returns the empty cells next to the grid."""
    return {
        (x + dx, y + dy)
        for (x, y) in board
        for dx, dy in _NEIGHBOURS
        if (x + dx, y + dy) not in board
    }


# The old tiles of a run as (mask, shared attributes, count); shared is 0 when
# they are no line (which the grid never holds, but a joined run may).
Run = tuple[int, int, int]
_NO_TILES: Run = (0, _ANY_ATTRIBUTE, 0)
_NO_LINE: dict[int, int] = {}


def _joined_fits(before: Run, after: Run) -> int:
    """Returns the codes that fit between two old runs, joining them into one line."""
    if before[0] & after[0]:
        return 0
    shared = before[1] & after[1]
    return _OPEN[shared] & ~(before[0] | after[0]) if shared else 0


def _line_runs(line: dict[int, int]) -> tuple[dict[int, Run], dict[int, Run]]:
    """Returns a line's runs by the free cell just after and just before each."""
    ending: dict[int, Run] = {}
    starting: dict[int, Run] = {}
    positions = sorted(line)
    start = positions[0]
    mask = 0
    shared = _ANY_ATTRIBUTE
    previous = start - 1
    for a in positions:
        if a != previous + 1:
            run = (mask, shared, previous - start + 1)
            ending[previous + 1] = run
            starting[start - 1] = run
            start = a
            mask = 0
            shared = _ANY_ATTRIBUTE
        code = line[a]
        shared &= 0 if mask >> code & 1 else _TRAITS[code]
        mask |= 1 << code
        previous = a
    run = (mask, shared, previous - start + 1)
    ending[previous + 1] = run
    starting[start - 1] = run
    return ending, starting


class _Laid(dict[int, Placement]):
    """The placements of one cell by code, each made when first asked for."""

    def __init__(self, cell: Cell) -> None:
        super().__init__()
        self.cell = cell

    def __missing__(self, code: int) -> Placement:
        placement = self[code] = Placement(_TILES[code], *self.cell)
        return placement


class _Window:
    """The cells of one row or column that a placement can use, free cells apart.

    A placement holds an anchor and at most six tiles, so it lies between five
    cells before the first anchor and as many after the last; the cells beyond
    the anchors are free. Free cell t comes with the old run before it
    (``runs[t]``; ``runs[t + 1]`` follows it), the codes its cross line takes
    (``crosses[t]``) and, on an anchor, its place in ``touching``.
    """

    __slots__ = ("alone", "cells", "crosses", "index", "runs", "touching")

    def __init__(self, grid: _Grid, axis: int, b: int, near: list[int]) -> None:
        line = grid.lines[axis].get(b, _NO_LINE)
        fits = grid.fits[1 - axis]
        alone = grid.alone
        self.cells: list[Cell] = []
        self.crosses: list[int] = []
        self.touching: list[bool] = []
        self.runs: list[Run] = []
        # alone[t]: the codes free cell t takes as the only tile placed.
        self.alone: list[int] = []
        self.index: dict[int, int] = {}
        add_cell = self.cells.append
        add_cross = self.crosses.append
        add_touching = self.touching.append
        add_run = self.runs.append
        add_alone = self.alone.append
        index = self.index
        row = axis == 0
        mask = 0
        shared = _ANY_ATTRIBUTE
        count = 0
        t = 0
        for a in range(near[0] - _MARGIN, near[-1] + _MARGIN + 1):
            code = line.get(a)
            if code is not None:
                shared &= 0 if mask >> code & 1 else _TRAITS[code]
                mask |= 1 << code
                count += 1
                continue
            add_run((mask, shared, count))
            mask = 0
            shared = _ANY_ATTRIBUTE
            count = 0
            cell = (a, b) if row else (b, a)
            index[a] = t
            t += 1
            add_cell(cell)
            cross = fits.get(cell)
            if cross is None:
                add_touching(False)  # noqa: FBT003 (a list of flags)
                add_cross(_ALL)
                add_alone(_ALL)
            else:
                add_touching(True)  # noqa: FBT003
                add_cross(cross)
                add_alone(alone[cell])
        add_run((mask, shared, count))


class _Grid:
    """What the search needs of one grid, whatever the rack."""

    def __init__(self, board: Mapping[Cell, Tile], base: _Grid | None) -> None:
        self.board = dict(board)
        # The grid searched before, whose windows this one takes where the
        # line, its anchors and their fits are the same (most lines, a move on).
        self.base = base
        # lines[0][y][x] and lines[1][x][y]: the code on cell (x, y).
        rows: dict[int, dict[int, int]] = {}
        columns: dict[int, dict[int, int]] = {}
        for (x, y), tile in self.board.items():
            code = _CODES[tile]
            row = rows.get(y)
            if row is None:
                row = rows[y] = {}
            row[x] = code
            column = columns.get(x)
            if column is None:
                column = columns[x] = {}
            column[y] = code
        self.lines = (rows, columns)
        # fits[0][cell]: the codes an anchor's row takes there; fits[1]: column.
        row_fits: dict[Cell, int] = {}
        column_fits: dict[Cell, int] = {}
        for y, row in rows.items():
            ending, starting = _line_runs(row)
            for x in ending.keys() | starting.keys():
                row_fits[x, y] = _joined_fits(
                    ending.get(x, _NO_TILES), starting.get(x, _NO_TILES)
                )
        for x, column in columns.items():
            ending, starting = _line_runs(column)
            for y in ending.keys() | starting.keys():
                column_fits[x, y] = _joined_fits(
                    ending.get(y, _NO_TILES), starting.get(y, _NO_TILES)
                )
        for cell in row_fits.keys() - column_fits.keys():
            column_fits[cell] = _ALL
        for cell in column_fits.keys() - row_fits.keys():
            row_fits[cell] = _ALL
        self.fits = (row_fits, column_fits)
        # alone[cell]: the codes an anchor takes as the only tile placed.
        self.alone = {cell: fit & column_fits[cell] for cell, fit in row_fits.items()}
        # near[0][y] and near[1][x]: the anchors of a row or column, by position.
        self.near: tuple[dict[int, list[int]], dict[int, list[int]]] = ({}, {})
        near_rows, near_columns = self.near
        for x, y in sorted(self.alone):
            near_rows.setdefault(y, []).append(x)
            near_columns.setdefault(x, []).append(y)
        self.windows: dict[tuple[int, int], _Window] = {}
        # Placements depend on no grid: kept from grid to grid, up to a bound.
        self.placed: dict[Cell, _Laid] = (
            base.placed if base is not None and len(base.placed) < _LAID_CELLS else {}
        )

    def window(self, axis: int, b: int) -> _Window:
        """Returns the window of row ``b`` (axis 0) or column ``b`` (axis 1)."""
        found = self.windows.get((axis, b))
        if found is None:
            near = self.near[axis][b]
            base = self.base
            if base is not None:
                found = base.windows.get((axis, b))
            if found is None or not self._same_line(axis, b, near):
                found = _Window(self, axis, b, near)
            self.windows[axis, b] = found
        return found

    def _same_line(self, axis: int, b: int, near: list[int]) -> bool:
        """Returns whether the base grid's window of a line holds for this grid."""
        base = self.base
        if (
            base is None
            or base.near[axis].get(b) != near
            or base.lines[axis].get(b) != self.lines[axis].get(b)
        ):
            return False
        row_fits, column_fits = self.fits
        base_rows, base_columns = base.fits
        for a in near:
            cell = (a, b) if axis == 0 else (b, a)
            if (
                row_fits[cell] != base_rows[cell]
                or column_fits[cell] != base_columns[cell]
            ):
                return False
        return True

    def laid(self, cell: Cell) -> _Laid:
        """Returns the placements on ``cell`` by code, made once and shared by all."""
        found = self.placed.get(cell)
        if found is None:
            found = self.placed[cell] = _Laid(cell)
        return found


# The grids searched last (the grid of the state to move, then the grid after
# its move): an exchange keeps the grid, and the end checks every rack on one.
_RECENT: list[_Grid] = []
_KEPT = 2
# Cells whose placement objects grids pass on (about 2.5 MiB; games share most).
_LAID_CELLS = 1024


def _grid(board: Mapping[Cell, Tile]) -> _Grid:
    """Returns the analysis of ``board``, reusing a recent one of equal content."""
    for grid in _RECENT:
        if board == grid.board:
            return grid
    grid = _Grid(board, _RECENT[0] if _RECENT else None)
    for older in _RECENT:
        older.base = None  # no chain of grids kept alive
    _RECENT.insert(0, grid)
    del _RECENT[_KEPT:]
    return grid


class Search:
    """One position's search: the grid's analysis and the rack."""

    def __init__(self, board: Mapping[Cell, Tile], rack: Sequence[Tile]) -> None:
        self.grid = _grid(board)
        self.kinds = 0
        for tile in rack:
            self.kinds |= 1 << _CODES[tile]
        self.size = self.kinds.bit_count()

    def can_place(self) -> bool:
        """Returns whether some rack tile fits alone on some anchor (§3 lemma)."""
        kinds = self.kinds
        return any(fit & kinds for fit in self.grid.alone.values())

    def placements(self) -> Iterator[tuple[Placement, ...]]:
        """Yields every legal placement, each once: rows first, then columns."""
        kinds = self.kinds
        if not kinds:
            return
        live = [cell for cell, fit in self.grid.alone.items() if fit & kinds]
        if not live:
            return
        plenty = _plenty(kinds)
        # No placement lays more tiles than rack tiles share an attribute.
        reach = max(n for n, shared in enumerate(plenty) if shared)
        rows: dict[int, list[int]] = {}
        columns: dict[int, list[int]] = {}
        for x, y in live:
            rows.setdefault(y, []).append(x)
            columns.setdefault(x, []).append(y)
        for axis, lines in ((0, rows), (1, columns)):
            for b in sorted(lines):
                window = self.grid.window(axis, b)
                index = window.index
                starts = sorted(index[a] for a in lines[b])
                yield from _walk(self, window, axis == 0, starts, plenty, reach)


def _walk(
    search: Search,
    window: _Window,
    row: bool,  # noqa: FBT001 (rows and columns differ only here)
    live: list[int],
    plenty: list[int],
    reach: int,
) -> list[tuple[Placement, ...]]:
    """Returns the placements in a window, by first and then last placed cell.

    ``live`` holds the free cells (ascending) of the anchors some rack tile
    fits alone: every placement holds one, so it starts within ``reach - 1``
    cells before one.
    """
    found: list[tuple[Placement, ...]] = []
    kinds = search.kinds
    size = search.size
    grid = search.grid
    cells = window.cells
    crosses = window.crosses
    alone = window.alone
    runs = window.runs
    touches = window.touching
    end = len(cells)
    lone_attributes = _attributes(kinds)
    done = 0
    for anchor in live:
        for first in range(max(done, anchor - reach + 1), anchor + 1):
            mask, shared, length = runs[first]
            # Attributes that a code each placed cell accepts alone has.
            allowed = _ANY_ATTRIBUTE
            touching = False
            for last in range(first, min(end, first + size)):
                after_mask, after_shared, after_count = runs[last + 1]
                if touches[last]:
                    allowed &= _attributes(alone[last] & kinds)
                    touching = True
                else:
                    allowed &= lone_attributes
                shared &= after_shared
                length += 1
                # Going further only adds tiles to the run: every test here
                # only gets harder to pass.
                if (
                    not allowed & shared & plenty[last - first + 1]
                    or mask & after_mask
                    or length + after_count > QWIRKLE_LENGTH
                ):
                    break
                mask |= after_mask
                length += after_count
                fits = kinds & _OPEN[shared] & ~mask
                if first == last:
                    options = crosses[first] & fits
                    if not options:
                        break
                    # A lone tile lies in a row and a column: rows only.
                    if touching and row:
                        laid = grid.laid(cells[first])
                        found.extend((laid[code],) for code in _codes_of(options))
                    continue
                choices = [cross & fits for cross in crosses[first : last + 1]]
                if not all(choices):
                    break
                if touching:
                    on = [grid.laid(cell) for cell in cells[first : last + 1]]
                    _choose(found, on, choices, shared)
        done = anchor + 1
    return found


def _choose(
    found: list[tuple[Placement, ...]],
    on: list[_Laid],
    options: list[int],
    shared: int,
) -> None:
    """Adds every choice of one code per free cell forming a line with the rest.

    ``options[i]`` holds the codes cell i accepts (its cross line and the old
    tiles of the main line agree), ``shared`` the attributes the old tiles of
    the main line share. The chosen codes must differ and share one of those
    attributes. Choices come as the cells' placements in cell order, found by
    a depth-first search that fills the most constrained cell first and tries
    codes in ascending order: the order ``legal_moves`` has always had.
    """
    if len(options) == _PAIR:  # the most common case, without the recursion
        near, far = options
        laid_near, laid_far = on
        if near.bit_count() <= far.bit_count():
            for code in _codes_of(near & _OPEN[shared]):
                fits = far & _OPEN[shared & _TRAITS[code]] & ~(1 << code)
                tile = laid_near[code]
                found.extend((tile, laid_far[other]) for other in _codes_of(fits))
        else:
            for code in _codes_of(far & _OPEN[shared]):
                fits = near & _OPEN[shared & _TRAITS[code]] & ~(1 << code)
                tile = laid_far[code]
                found.extend((laid_near[other], tile) for other in _codes_of(fits))
        return
    order = sorted(range(len(options)), key=lambda i: options[i].bit_count())
    chosen: list[Placement | None] = [None] * len(options)
    depth_of_last = len(order) - 1

    def fill(depth: int, used: int, common: int) -> None:
        i = order[depth]
        laid = on[i]
        codes = _codes_of(options[i] & _OPEN[common] & ~used)
        if depth == depth_of_last:
            for code in codes:
                chosen[i] = laid[code]
                found.append(tuple(chosen))  # type: ignore[arg-type]
            return
        for code in codes:
            chosen[i] = laid[code]
            fill(depth + 1, used | 1 << code, common & _TRAITS[code])

    fill(0, 0, shared)


def _plenty(kinds: int) -> list[int]:
    """Returns, for each n, the attributes that at least n rack codes have."""
    counts = [(kinds & having).bit_count() for having in _HAVING]
    return [
        sum(1 << a for a, count in enumerate(counts) if count >= n)
        for n in range(QWIRKLE_LENGTH + 1)
    ]
