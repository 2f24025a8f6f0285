"""The placement search behind ``legal_moves`` and the pass and deadlock rules.

Speed matters here (bots and playouts call it every turn), so tiles become
codes 0..35 (colour index * 6 + shape index), sets of tiles become bit masks,
and a line is summarised as ``(mask of codes, shared colour, shared shape)``.
Placements are found by walking each row and column holding a cell next to
the grid (an anchor) from every possible first placed cell; each cell keeps
the rack tiles its perpendicular line and the main line accept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache

from domain.games.qwirkle.model import (
    QWIRKLE_LENGTH,
    Cell,
    Color,
    Placement,
    Shape,
    Tile,
)

_SHAPES = len(Shape)
_MIXED = -1
_CODES = {
    Tile(c, s): i * _SHAPES + j
    for i, c in enumerate(Color)
    for j, s in enumerate(Shape)
}
_TILES = tuple(sorted(_CODES, key=_CODES.__getitem__))
_ALL = (1 << len(_TILES)) - 1
_COLORS = len(Color)
_OF_COLOR = tuple(
    sum(1 << (c * _SHAPES + s) for s in range(_SHAPES)) for c in range(_COLORS)
)
_OF_SHAPE = tuple(
    sum(1 << (c * _SHAPES + s) for c in range(_COLORS)) for s in range(_SHAPES)
)
_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))
# Attribute a < 6 is colour a, a >= 6 is shape a - 6; _HAVING[a] masks its codes.
_HAVING = _OF_COLOR + _OF_SHAPE
_ANY_ATTRIBUTE = (1 << len(_HAVING)) - 1

# A line's summary: the codes it holds as a bit mask, and the colour and shape
# every tile shares (_MIXED when they differ). The empty line has mask 0.
Line = tuple[int, int, int]
EMPTY: Line = (0, _MIXED, _MIXED)


def fitting(line: Line) -> int:
    """Returns the mask of the codes that keep ``line`` valid when added (§3)."""
    mask, color, shape = line
    if not mask:
        return _ALL
    fits = (_OF_COLOR[color] if color != _MIXED else 0) | (
        _OF_SHAPE[shape] if shape != _MIXED else 0
    )
    return fits & ~mask


def _added(line: Line, code: int) -> Line:
    mask, color, shape = line
    c, s = divmod(code, _SHAPES)
    if not mask:
        return (1 << code, c, s)
    return (
        mask | 1 << code,
        color if color == c else _MIXED,
        shape if shape == s else _MIXED,
    )


def extended(line: Line, code: int) -> Line | None:
    """Returns ``line`` with one more tile, or None when it would be invalid (§3)."""
    return _added(line, code) if fitting(line) >> code & 1 else None


def summary(codes: Sequence[int], line: Line = EMPTY) -> Line | None:
    """Returns the summary of ``line`` plus ``codes``, or None when invalid."""
    result: Line | None = line
    for code in codes:
        if result is None:
            return None
        result = extended(result, code)
    return result


@cache
def _attributes(codes: int) -> int:
    """Returns the colours and shapes found among a mask of codes, as 12 bits."""
    return sum(1 << a for a, having in enumerate(_HAVING) if codes & having)


def anchors(board: Mapping[Cell, object]) -> list[Cell]:
    """Returns the empty cells next to the grid, sorted."""
    found = {
        (x + dx, y + dy)
        for (x, y) in board
        for dx, dy in _NEIGHBOURS
        if (x + dx, y + dy) not in board
    }
    return sorted(found)


class Search:
    """One position's search; caches the rack tiles each cell's cross line takes."""

    def __init__(self, board: Mapping[Cell, Tile], rack: Sequence[Tile]) -> None:
        self.grid = {cell: _CODES[tile] for cell, tile in board.items()}
        self.kinds = sum(1 << code for code in {_CODES[t] for t in rack})
        self.size = self.kinds.bit_count()
        self.near = set(anchors(board))
        self._cross: dict[tuple[Cell, int], int] = {}
        self._laid: dict[tuple[int, Cell], Placement] = {}
        # plenty[n]: the attributes that at least n different rack tiles have.
        counts = [(self.kinds & having).bit_count() for having in _HAVING]
        self.plenty = [
            sum(1 << a for a, count in enumerate(counts) if count >= n)
            for n in range(QWIRKLE_LENGTH + 1)
        ]

    def side(self, cell: Cell, step: Cell, sign: int) -> list[int]:
        """Returns the codes of the run next to ``cell`` on one side, outwards."""
        codes = []
        dx, dy = step[0] * sign, step[1] * sign
        x, y = cell[0] + dx, cell[1] + dy
        while (x, y) in self.grid:
            codes.append(self.grid[(x, y)])
            x, y = x + dx, y + dy
        return codes

    def cross(self, cell: Cell, across: int) -> int:
        """Returns the rack codes the line through ``cell`` on axis ``across`` takes."""
        key = (cell, across)
        if key not in self._cross:
            step = (1, 0) if across == 0 else (0, 1)
            run = summary(self.side(cell, step, 1) + self.side(cell, step, -1))
            self._cross[key] = 0 if run is None else self.kinds & fitting(run)
        return self._cross[key]

    def lay(self, code: int, cell: Cell) -> Placement:
        """Returns the placement of a code on a cell, shared by every result."""
        key = (code, cell)
        placement = self._laid.get(key)
        if placement is None:
            placement = self._laid[key] = Placement(_TILES[code], cell[0], cell[1])
        return placement

    def can_place(self) -> bool:
        """Returns whether some rack tile fits alone on some anchor (§3 lemma)."""
        return any(self.cross(cell, 0) & self.cross(cell, 1) for cell in self.near)

    def placements(self) -> Iterator[tuple[Placement, ...]]:
        """Yields every legal placement, each once: rows first, then columns."""
        for axis in (0, 1):
            # Anchors by line (b) and position along it (a); axis 0 is rows.
            spans: dict[int, list[int]] = {}
            for x, y in sorted(self.near):
                a, b = (x, y) if axis == 0 else (y, x)
                spans.setdefault(b, []).append(a)
            for b in sorted(spans):
                yield from _Line(self, axis, b, spans[b]).placements()


class _Line:
    """One row or column of the search, as arrays indexed from ``start``."""

    def __init__(self, search: Search, axis: int, b: int, near: list[int]) -> None:
        self.search = search
        self.axis = axis
        # The first placed cell reaches an anchor over at most `size` free
        # cells (a free cell just before an old tile is itself an anchor), and
        # a run never exceeds six cells: this window holds every run we walk,
        # with an empty or unreached cell at each end.
        self.start = near[0] - search.size - QWIRKLE_LENGTH - 1
        stop = near[-1] + 2 * QWIRKLE_LENGTH + 2
        self.near = [a - self.start for a in near]
        span = range(self.start, stop)
        self.cells = [(a, b) for a in span] if axis == 0 else [(b, a) for a in span]
        self.codes = [search.grid.get(cell) for cell in self.cells]
        self.touching = [cell in search.near for cell in self.cells]
        self.behind = _runs(self.codes)
        self.ahead = [run[::-1] for run in _runs(self.codes[::-1])[::-1]]
        self.crosses: list[int | None] = [None] * len(self.cells)

    def cross(self, i: int) -> int:
        """Returns the rack codes that the cross line at index ``i`` accepts."""
        cross = self.crosses[i]
        if cross is None:
            cross = self.crosses[i] = self.search.cross(self.cells[i], 1 - self.axis)
        return cross

    def placements(self) -> Iterator[tuple[Placement, ...]]:
        """Yields the placements along this line, by first placed cell."""
        firsts: set[int] = set()
        for q in self.near:
            # Every cell from the first placed cell to the first anchor is free
            # and takes a rack tile of its cross line; these tiles share one
            # colour or shape, so enough rack tiles must have it.
            shared = _ANY_ATTRIBUTE
            i = q
            while q - i < self.search.size and self.codes[i] is None:
                shared &= _attributes(self.cross(i))
                if not shared & self.search.plenty[q - i + 1]:
                    break
                firsts.add(i)
                i -= 1
        for i in sorted(firsts):
            yield from self._from(i)

    def _from(self, i: int) -> Iterator[tuple[Placement, ...]]:
        """Yields placements whose first placed cell has index ``i``."""
        old = summary(self.behind[i])
        length = len(self.behind[i])
        free: list[Cell] = []
        crosses: list[int] = []
        options: list[int] = []
        fits = -1
        touching = False
        while old is not None and length < QWIRKLE_LENGTH:
            code = self.codes[i]
            length += 1
            if code is not None:
                old = extended(old, code)
                i += 1
                continue
            after = self.ahead[i]
            line = summary(after, old) if after else old
            if line is None or len(free) == self.search.size:
                return
            free.append(self.cells[i])
            crosses.append(self.cross(i))
            if fitting(line) != fits:
                fits = fitting(line)
                options = [cross & fits for cross in crosses]
            else:
                options.append(crosses[-1] & fits)
            # Going further only adds old tiles to the run: options only shrink.
            if not all(options) or length + len(after) > QWIRKLE_LENGTH:
                return
            touching = touching or self.touching[i]
            # A lone tile lies in a row and a column: yield it for rows only.
            if touching and (self.axis == 0 or len(free) > 1):
                yield from _assign(self.search.lay, free, options, line)
            i += 1


def _runs(codes: list[int | None]) -> list[list[int]]:
    """Returns, for each index, the codes of the old tiles just before it."""
    runs: list[list[int]] = [[]]
    for code in codes[:-1]:
        runs.append([] if code is None else [*runs[-1], code])
    return runs


def _assign(
    lay: Callable[[int, Cell], Placement],
    free: list[Cell],
    options: list[int],
    line: Line,
) -> Iterator[tuple[Placement, ...]]:
    """Yields every choice of one code per free cell keeping the main line valid."""
    if len(free) == 1:
        cell = free[0]
        return ((lay(k, cell),) for k in range(len(_TILES)) if options[0] >> k & 1)
    # Fill the most constrained cells first; the output stays in cell order.
    order = sorted(range(len(free)), key=lambda i: options[i].bit_count())
    chosen = [0] * len(free)

    def extend(depth: int, line: Line) -> Iterator[tuple[Placement, ...]]:
        if depth == len(order):
            yield tuple(lay(k, c) for k, c in zip(chosen, free, strict=True))
            return
        i = order[depth]
        left = options[i] & fitting(line)
        while left:
            low = left & -left
            left ^= low
            chosen[i] = low.bit_length() - 1
            yield from extend(depth + 1, _added(line, chosen[i]))

    return extend(0, line)
