"""The placement search behind ``legal_moves`` and the pass and deadlock rules.

Speed matters here (bots and playouts list every move every turn), so tiles
become codes 0..35 (colour index * 6 + shape index), sets of tiles become bit
masks, and a set of tiles is summarised by its mask and the attributes all of
its tiles share (12 bits: six colours, then six shapes). A set is one valid
line (§3) exactly when no code repeats and some attribute is shared, so adding
a tile is two bit operations and never re-reads the line.

Placements are found by walking each row and column holding a cell next to
the grid (an anchor) from every possible first placed cell; each free cell
keeps the rack codes its cross line and the main line accept, and the choices
of distinct codes for a run of free cells come from a cache keyed by those
masks, since the same few patterns recur turn after turn.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from operator import getitem

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
    """Returns the colours and shapes found among a mask of codes, as 12 bits."""
    return sum(1 << a for a, having in enumerate(_HAVING) if codes & having)


@lru_cache(maxsize=1 << 16)
def _choices(options: tuple[int, ...], shared: int) -> tuple[tuple[int, ...], ...]:
    """Returns every choice of one code per free cell forming a line with the rest.

    ``options[i]`` holds the codes cell i accepts (its cross line and the old
    tiles of the main line agree), ``shared`` the attributes the old tiles of
    the main line share. The chosen codes must differ and share one of those
    attributes. Choices come as the cells' codes in cell order, found by a
    depth-first search that fills the most constrained cell first and tries
    codes in ascending order: the order ``legal_moves`` has always had.
    """
    order = sorted(range(len(options)), key=lambda i: options[i].bit_count())
    found: list[tuple[int, ...]] = []
    codes = [0] * len(options)

    def fill(depth: int, used: int, common: int) -> None:
        if depth == len(order):
            found.append(tuple(codes))
            return
        i = order[depth]
        for code in _codes_of(options[i] & _OPEN[common] & ~used):
            codes[i] = code
            fill(depth + 1, used | 1 << code, common & _TRAITS[code])

    fill(0, 0, shared)
    return tuple(found)


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


class _Laid(dict[int, Placement]):
    """The placements of one cell by code, each made when first asked for."""

    def __init__(self, cell: Cell) -> None:
        super().__init__()
        self.cell = cell

    def __missing__(self, code: int) -> Placement:
        placement = self[code] = Placement(_TILES[code], *self.cell)
        return placement


class Search:
    """One position's search: the grid as rows and columns of codes, and the rack."""

    def __init__(self, board: Mapping[Cell, Tile], rack: Sequence[Tile]) -> None:
        # lines[0][y][x] and lines[1][x][y]: the code on cell (x, y).
        rows: dict[int, dict[int, int]] = {}
        columns: dict[int, dict[int, int]] = {}
        for (x, y), tile in board.items():
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
        self.kinds = 0
        for tile in rack:
            self.kinds |= 1 << _CODES[tile]
        self.size = self.kinds.bit_count()
        self.near = anchors(board)
        self.plenty = _plenty(self.kinds)
        # No placement lays more tiles than rack tiles share an attribute.
        self.reach = max(n for n, shared in enumerate(self.plenty) if shared)
        self._laid: dict[Cell, _Laid] = {}

    def fitting(self, axis: int, b: int, a: int) -> int:
        """Returns the rack codes the old tiles around position ``a`` of a line take.

        The line is row ``b`` (axis 0) or column ``b`` (axis 1); the tiles are
        the runs just before and just after ``a``.
        """
        line = self.lines[axis].get(b)
        if line is None:
            return self.kinds
        mask = 0
        shared = _ANY_ATTRIBUTE
        for step in (-1, 1):
            i = a + step
            while (code := line.get(i)) is not None:
                if mask >> code & 1:
                    return 0
                mask |= 1 << code
                shared &= _TRAITS[code]
                i += step
        return self.kinds & _OPEN[shared] & ~mask if shared else 0

    def laid(self, cell: Cell) -> _Laid:
        """Returns the placements on ``cell`` by code, made once and shared by all."""
        found = self._laid.get(cell)
        if found is None:
            found = self._laid[cell] = _Laid(cell)
        return found

    def can_place(self) -> bool:
        """Returns whether some rack tile fits alone on some anchor (§3 lemma)."""
        return any(self.fitting(0, y, x) & self.fitting(1, x, y) for x, y in self.near)

    def placements(self) -> Iterator[tuple[Placement, ...]]:
        """Yields every legal placement, each once: rows first, then columns."""
        if not self.kinds:
            return
        for axis in (0, 1):
            # Anchors by line (b) and position along it (a); axis 0 is rows.
            spans: dict[int, list[int]] = {}
            for x, y in sorted(self.near):
                a, b = (x, y) if axis == 0 else (y, x)
                spans.setdefault(b, []).append(a)
            for b in sorted(spans):
                yield from _Window(self, axis, b, spans[b]).placements()


class _Window:
    """The cells of one row or column that a placement can use, free cells apart.

    A placement holds an anchor and at most ``reach`` tiles, so it lies between
    ``reach - 1`` cells before the first anchor and as many after the last; the
    cells beyond the anchors are free. Free cell t comes with the old run
    before it (``runs[t]``; ``runs[t + 1]`` follows it), the rack codes its
    cross line takes and those it takes alone (with its neighbours in this line).
    """

    def __init__(self, search: Search, axis: int, b: int, near: list[int]) -> None:
        self.search = search
        self.row = axis == 0
        line = search.lines[axis].get(b, _NO_LINE)
        anchored = search.near
        kinds = search.kinds
        self.cells: list[Cell] = []
        self.crosses: list[int] = []
        self.touching: list[bool] = []
        self.runs: list[Run] = []
        add_cell = self.cells.append
        add_cross = self.crosses.append
        add_touching = self.touching.append
        add_run = self.runs.append
        mask = 0
        shared = _ANY_ATTRIBUTE
        count = 0
        for a in range(near[0] - search.reach + 1, near[-1] + search.reach):
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
            cell = (a, b) if self.row else (b, a)
            add_cell(cell)
            if cell in anchored:
                add_touching(True)  # noqa: FBT003 (a list of flags)
                add_cross(search.fitting(1 - axis, a, b))
            else:
                add_touching(False)  # noqa: FBT003
                add_cross(kinds)
        add_run((mask, shared, count))
        runs = self.runs
        self.alone = [
            cross & _joined_fits(runs[t], runs[t + 1]) if touching else cross
            for t, (cross, touching) in enumerate(
                zip(self.crosses, self.touching, strict=True)
            )
        ]

    def placements(self) -> Iterator[tuple[Placement, ...]]:
        """Yields the placements in this line, by first and then last placed cell."""
        search = self.search
        plenty = search.plenty
        cells = self.cells
        crosses = self.crosses
        alone = self.alone
        runs = self.runs
        touches = self.touching
        # A placement starting after the last anchor touches nothing.
        starts = max(t for t, touching in enumerate(touches) if touching) + 1
        for first in range(starts):
            mask, shared, length = runs[first]
            # Attributes that a code each placed cell accepts alone has.
            allowed = _ANY_ATTRIBUTE
            touching = False
            for last in range(first, min(len(cells), first + search.size)):
                allowed &= _attributes(alone[last])
                after_mask, after_shared, after_count = runs[last + 1]
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
                fits = _OPEN[shared] & ~mask
                options = [cross & fits for cross in crosses[first : last + 1]]
                if not all(options):
                    break
                touching = touching or touches[last]
                # A lone tile lies in a row and a column: yield it for rows only.
                if touching and (self.row or last > first):
                    yield from _assign(search, cells[first : last + 1], options, shared)


def _joined_fits(before: Run, after: Run) -> int:
    """Returns the codes that fit between two old runs, joining them into one line."""
    if before[0] & after[0]:
        return 0
    shared = before[1] & after[1]
    return _OPEN[shared] & ~(before[0] | after[0]) if shared else 0


def _plenty(kinds: int) -> list[int]:
    """Returns, for each n, the attributes that at least n rack codes have."""
    counts = [(kinds & having).bit_count() for having in _HAVING]
    return [
        sum(1 << a for a, count in enumerate(counts) if count >= n)
        for n in range(QWIRKLE_LENGTH + 1)
    ]


def _assign(
    search: Search, free: list[Cell], options: list[int], shared: int
) -> Iterator[tuple[Placement, ...]]:
    """Yields every choice of one code per free cell keeping the main line valid."""
    if len(free) == 1:
        laid = search.laid(free[0])
        return ((laid[code],) for code in _codes_of(options[0]))
    on = [search.laid(cell) for cell in free]
    return (
        tuple(map(getitem, on, codes)) for codes in _choices(tuple(options), shared)
    )
