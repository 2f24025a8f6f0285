"""Fitting a screen's parts to the terminal's rows and columns (see
infra/terminal/screen.py, which draws them).

Every part is drawn wrapped to the terminal's width but a ``Board`` (a grid),
which is never wrapped: a narrower or shorter terminal shows a window of it
around the renderer's focus, which the person pans with ``<``, ``>``, ``^``
and ``v``. Rows go first to the table's header, then to the rest of the table
but its boards (scores, racks, legends), then to the parts under it (the
moves, a message), then to the boards, shrunk down to their labels and a row
before anything else is cut; the log takes only the rows left over. A table
still too tall takes rows from the parts under it for at most half the screen,
then is cropped around its board, or scrolls with ``^`` and ``v`` without one;
its header stays. ``Keys`` name the pan keys only when there is something to
pan.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

from infra.terminal.header import Header
from infra.terminal.render_common import Board, Focus, Focused

PAN_HELP = "<, >, ^, v: pan"
KEYS_SEP = "   "  # between two items of help on a line
Line = list[Segment]


@dataclass(frozen=True, slots=True)
class Pan:
    """How far the person panned from the focus, in steps of half a window."""

    lines: int = 0
    columns: int = 0


@dataclass(frozen=True, slots=True)
class Log:
    """The log's lines, oldest first; the screen shows the newest that fit."""

    lines: tuple[str, ...] = ()

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> RenderResult:
        yield Text("\n".join(self.lines), style="dim italic")


@dataclass(frozen=True, slots=True)
class Keys:
    """Dim lines of help, their items as many to a line as the width takes;
    the pan keys come between ``before`` and ``after`` only when the frame
    drawn has something to pan."""

    before: tuple[str, ...]
    after: tuple[str, ...] = ()

    def text(self, width: int, *, pans: bool) -> Text:
        """Returns the help packed to ``width`` cells, the pan keys in it or not."""
        items = [*self.before, *((PAN_HELP,) if pans else ()), *self.after]
        lines: list[str] = []
        for item in filter(None, items):
            if lines and cell_len(lines[-1]) + len(KEYS_SEP) + cell_len(item) <= width:
                lines[-1] += f"{KEYS_SEP}{item}"
            else:
                lines.append(item)
        return Text("\n".join(lines), style="dim")

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> RenderResult:
        yield self.text(options.max_width, pans=True)


@dataclass
class _Window:
    """A board's rendered lines and the focus to keep in view."""

    board: Board
    focus: Focus | None
    lines: list[Line]
    width: int


@dataclass
class _Title:
    """A line of the table's header: kept in view whatever else is cut."""

    line: Line


Piece = Line | Log | _Window | _Title


@dataclass
class Frame:
    """Fits parts to ``rows`` lines of ``width`` columns (see the module's doc)."""

    console: Console
    width: int
    rows: int
    pan: Pan
    used: Pan = field(default_factory=Pan)
    pans: bool = True  # the frame has something to pan: ``Keys`` name the keys

    def compose(self, parts: Sequence[RenderableType]) -> list[Line]:
        """Returns the frame's lines, at most ``rows`` of them: the table, then
        the log and the parts under it, those cut from the top if need be."""
        if not parts:
            return []
        table, rest = (parts[0], parts[1:])
        if isinstance(table, Log):
            table, rest = Group(), parts
        pieces = self._pieces(table)
        below = [self._below(part) for part in rest]
        # The table cuts into the parts under it for at most half the screen:
        # beyond that, it scrolls.
        least = min(self._least(pieces), self.rows // 2)
        table_lines = self._table(pieces, max(least, self._room(below)))
        if not self.pans:  # the help lines under the table leave out the pan keys
            below = [self._below(part) for part in rest]
        room = self.rows - len(table_lines)
        logs = [p for piece in below for p in piece if isinstance(p, Log)]
        wanted = len(logs[0].lines) if logs else 0
        log_rows = max(0, min(wanted, self._room(below) - len(table_lines)))
        under: list[Line] = []
        for piece in below:
            for item in piece:
                if isinstance(item, Log):
                    under.extend(self._log(item, log_rows))
                    log_rows = 0  # a second log gets no room
                else:
                    under.append(item)
        return table_lines + under[max(0, len(under) - room) :]

    def _room(self, below: list[list[Line | Log]]) -> int:
        """Returns the rows the parts under the table leave it."""
        return self.rows - sum(
            1 for piece in below for p in piece if isinstance(p, list)
        )

    def _least(self, pieces: list[Piece]) -> int:
        """Returns the rows the table keeps before the parts under it are cut:
        all but its boards' rows, of which it keeps their labels and one row."""
        least = 0
        for piece in pieces:
            if isinstance(piece, _Window):
                least += min(len(piece.lines), piece.board.label_lines + 1)
            elif not isinstance(piece, Log):
                least += 1
        return min(least, self.rows)

    def _pieces(self, part: RenderableType) -> list[Piece]:
        """Returns a part as lines, its log and its boards, in drawing order."""
        return list(self._flatten(part, None))

    def _below(self, part: RenderableType) -> list[Line | Log]:
        """Returns a part under the table as lines and its log; a board there
        is shown as wide as the screen, every row of it."""
        out: list[Line | Log] = []
        for piece in self._flatten(part, None):
            if isinstance(piece, _Window):
                out.extend(self._window(piece, len(piece.lines), first=False))
            elif isinstance(piece, _Title):
                out.append(piece.line)
            else:
                out.append(piece)
        return out

    def _flatten(self, part: RenderableType, focus: Focus | None) -> Iterator[Piece]:
        if isinstance(part, Focused):
            yield from self._flatten(part.table, part.focus)
        elif isinstance(part, Group):
            for inner in part.renderables:
                yield from self._flatten(inner, focus)
        elif isinstance(part, Log):
            yield part
        elif isinstance(part, Board):
            yield self._board(part, focus)
        elif isinstance(part, Header):
            yield from (_Title(line) for line in self._lines(part))
        elif isinstance(part, Keys):
            yield from self._lines(part.text(self.width, pans=self.pans))
        else:
            yield from self._lines(part)

    def _lines(self, part: RenderableType) -> list[Line]:
        """Returns a part's lines, wrapped to the frame's width."""
        options = self.console.options.update_width(self.width)
        return self.console.render_lines(part, options, pad=False)

    def _board(self, board: Board, focus: Focus | None) -> _Window:
        """Renders a board at its own width, unwrapped."""
        wide = self.console.options.update_width(10_000)
        width = max(1, Measurement.get(self.console, wide, board.drawing).maximum)
        options = wide.update(width=width, no_wrap=True)
        lines = self.console.render_lines(board.drawing, options, pad=True)
        return _Window(board, focus, lines, width)

    def _log(self, log: Log, rows: int) -> list[Line]:
        """Returns the newest ``rows`` lines of the log, one screen line each."""
        out: list[Line] = []
        for line in log.lines[max(0, len(log.lines) - rows) :] if rows else ():
            text = Text(line, style="dim italic", no_wrap=True, overflow="ellipsis")
            out.extend(self._lines(text)[:1])
        return out

    def _table(self, pieces: list[Piece], rows: int) -> list[Line]:
        """Returns the table fitted to ``rows`` lines: its boards windowed down
        to their labels and a row, then, if still too tall, the table cropped
        around its first board (or scrolled, without one), its header kept."""
        windows = [p for p in pieces if isinstance(p, _Window)]
        other = sum(1 for p in pieces if isinstance(p, list | _Title))
        board_rows = sum(len(w.lines) for w in windows)
        spare = rows - other
        lines: list[Line] = []
        title, anchor = 0, -1  # the header's lines; the first board's middle
        self.pans = False
        for piece in pieces:
            if isinstance(piece, _Window):
                share = len(piece.lines)
                if other + board_rows > rows:
                    least = min(share, piece.board.label_lines + 1)
                    share = min(share, max(least, spare // len(windows)))
                self.pans = self.pans or share < len(piece.lines)
                self.pans = self.pans or piece.width > self.width
                first = anchor < 0
                if first:
                    anchor = len(lines) + share // 2
                lines.extend(self._window(piece, share, first=first))
            elif isinstance(piece, _Title):
                if len(lines) == title:  # a header line before any other line
                    title += 1
                lines.append(piece.line)
            elif isinstance(piece, list):
                lines.append(piece)
        if len(lines) <= rows:
            return lines
        body = self._crop(lines[title:], rows - title, anchor - title)
        return lines[: min(title, rows)] + body

    def _crop(self, lines: list[Line], rows: int, anchor: int) -> list[Line]:
        """Returns ``rows`` of the table's lines under its header: around the
        board's middle (``anchor``), or where the pan scrolled them to."""
        self.pans = True
        if rows <= 0:
            return []
        if anchor >= 0:  # keep the board in the middle
            start = _clamp(anchor - rows // 2, 0, len(lines) - rows)
        else:  # no board: the pan scrolls the table
            step = max(1, rows // 2)
            start, steps = _scroll(0, self.pan.lines, step, 0, len(lines) - rows)
            self.used = Pan(steps, self.used.columns)
        return lines[start : start + rows]

    def _window(self, window: _Window, rows: int, *, first: bool) -> list[Line]:
        """Returns the part of a board the screen shows: ``rows`` lines and the
        screen's width, its labels kept, around the focus moved by the pan."""
        board, lines = window.board, window.lines
        focus = window.focus or Focus(len(lines) // 2, window.width // 2)
        label_lines = min(board.label_lines, rows)
        label_columns = min(board.label_columns, self.width)
        view_rows, view_columns = rows - label_lines, self.width - label_columns
        top, line_steps = _scroll(
            focus.line - view_rows // 2,
            self.pan.lines if first else 0,
            max(1, view_rows // 2),
            label_lines,
            len(lines) - view_rows,
        )
        left, column_steps = _scroll(
            focus.column - view_columns // 2,
            self.pan.columns if first else 0,
            max(1, view_columns // 2),
            label_columns,
            window.width - view_columns,
        )
        if first:
            self.used = Pan(line_steps, column_steps)
        shown = lines[:label_lines] + lines[top : top + view_rows]
        return [
            _cut(line, 0, label_columns) + _cut(line, left, left + view_columns)
            for line in shown
        ]


def _scroll(
    base: int, steps: int, step: int, lowest: int, highest: int
) -> tuple[int, int]:
    """Returns where a window starts (``base`` moved ``steps`` steps, kept
    within [lowest, highest]) and the steps that still move it."""
    if highest <= lowest:
        return lowest, 0
    fewest = (lowest - base) // step  # the steps that reach the lowest start
    most = -((base - highest) // step)  # and the highest
    steps = _clamp(steps, min(fewest, 0), max(most, 0))
    return _clamp(base + steps * step, lowest, highest), steps


def _clamp(value: int, lowest: int, highest: int) -> int:
    return max(lowest, min(value, highest))


def _cut(line: Line, start: int, end: int) -> Line:
    """Returns the cells [start, end) of a rendered line."""
    if end <= start:
        return []
    return list(Segment.divide(line, [start, end]))[1]
