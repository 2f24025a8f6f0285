"""Drawing a whole screen fitted to the terminal: table, log, message, prompt.

Every part but the first is drawn whole, wrapped to the terminal's width; the
log takes the rows left over (at least a few), newest lines last; the first
part, the table, gets the rest. A ``Board`` in the table (a grid) is never
wrapped: a narrower or shorter terminal shows a window of it around the
renderer's focus, which the person pans with ``<``, ``>``, ``^`` and ``v``
(``.`` centres it again). A table without a board that does not fit scrolls
with ``^`` and ``v``. The frame, the prompt's line included, never has more
rows or columns than the terminal, whose size is read at every redraw.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment, Segments
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2

from infra.terminal.render import describe_event, names_for
from infra.terminal.render_common import Board, Focus, Focused

LOG_KEPT = 200  # lines of the log kept; the screen shows the newest that fit
MIN_LOG_LINES = 3
MIN_BOARD_LINES = 6  # the board's labels and a few of its rows
PROMPT_LINES = 1
UNFITTED = 100_000  # the rows of output that goes to no terminal
STEPS = {"<": (0, -1), ">": (0, 1), "^": (-1, 0), "v": (1, 0)}
CENTRE = "."
PAN_HELP = "<, >, ^, v: pan"
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


def make_console() -> Console:
    """Returns the console to draw on; numbers are not recoloured."""
    return Console(highlight=False)


def new_log() -> deque[str]:
    """Returns an empty log of the last moves."""
    return deque(maxlen=LOG_KEPT)


def record(
    log: deque[str], game: game_pb2.Game, events: Iterable[event_pb2.GameEvent]
) -> None:
    """Adds the events worth a line to the log."""
    names = names_for(game)
    for event in events:
        line = describe_event(event, names)
        if line is not None:
            log.append(f"r{event.revision}: {line}")


def log_text(log: Sequence[str]) -> Log:
    """Returns the log, oldest line first, for ``draw`` to fit to the screen."""
    return Log(tuple(log))


def final_scores(game: game_pb2.Game) -> Text:
    """Returns the final scores and the winners in one line."""
    ranked = sorted(game.players, key=lambda p: (-p.score, p.seat))
    scores = ", ".join(f"{p.display_name} {p.score}" for p in ranked)
    names = {p.name: p.display_name for p in game.players}
    won = ", ".join(names.get(w, w) for w in game.winners) or "nobody"
    out = Text.assemble(("Final scores: ", "bold"), scores, ("   won by ", "bold"), won)
    if game.abandoned:
        out.append("\nThe game was abandoned: no seat was left playing.", style="bold")
    return out


def panned(text: str, pan: Pan) -> Pan | None:
    """Returns the pan a typed line asks for (``<<`` is two steps left); None
    when the line is not a pan command."""
    typed = text.strip()
    if typed == CENTRE:
        return Pan()
    if not typed or len(set(typed)) != 1 or typed[0] not in STEPS:
        return None
    lines, columns = STEPS[typed[0]]
    return Pan(pan.lines + lines * len(typed), pan.columns + columns * len(typed))


def menu_rows(height: int) -> int:
    """Returns how many moves a page of the move list shows on a terminal."""
    return max(3, min(12, height // 3 - 3))


def terminal_size(console: Console) -> tuple[int, int]:
    """Returns the terminal's columns and rows, read afresh (it may have been
    resized); the console's own size when it draws on no terminal it can ask,
    and rows without end when it draws on no terminal at all (piped)."""
    try:
        size = os.get_terminal_size(console.file.fileno())
    except (OSError, ValueError, AttributeError):  # not a terminal, or no fd
        return console.width, console.height if console.is_terminal else UNFITTED
    if size.columns > 0 and size.lines > 0:
        console.size = (size.columns, size.lines)
    return console.width, console.height


def draw(console: Console, *parts: RenderableType | None, pan: Pan = Pan()) -> Pan:
    """Clears the screen and draws the parts one under another, fitted to the
    terminal with a line left for the prompt; returns the pan as applied (a
    pan past the board's edge stops at it)."""
    width, height = terminal_size(console)
    drawn = [part for part in parts if part is not None]
    frame = Frame(console, width, max(1, height - PROMPT_LINES), pan)
    lines = frame.compose(drawn)
    segments: list[Segment] = []
    for line in lines:
        segments.extend(line)
        segments.append(Segment.line())
    console.clear()
    console.print(Segments(segments))
    return frame.used


def prompt(console: Console, text: str) -> None:
    """Shows a prompt on the last line, the cursor after it."""
    console.print(Text(text, style="bold green"), end="")
    console.file.flush()


def problem(message: str) -> Text | None:
    """Returns an error line, or None when there is none."""
    return Text(message, style="bold red") if message else None


@dataclass
class _Window:
    """A board's rendered lines and the focus to keep in view."""

    board: Board
    focus: Focus | None
    lines: list[Line]
    width: int


@dataclass
class Frame:
    """Fits parts to ``rows`` lines of ``width`` columns (see the module's doc)."""

    console: Console
    width: int
    rows: int
    pan: Pan
    used: Pan = field(default_factory=Pan)

    def compose(self, parts: Sequence[RenderableType]) -> list[Line]:
        """Returns the frame's lines, at most ``rows`` of them."""
        if not parts:
            return []
        table, rest = (parts[0], parts[1:])
        if isinstance(table, Log):
            table, rest = Group(), parts
        pieces = [self._below(part) for part in rest]
        fixed = sum(1 for piece in pieces for p in piece if isinstance(p, list))
        logs = [p for piece in pieces for p in piece if isinstance(p, Log)]
        wanted = len(logs[0].lines) if logs else 0
        room = self.rows - fixed - min(wanted, MIN_LOG_LINES)
        table_lines = self._table(self._pieces(table), max(0, room))
        log_rows = max(0, min(wanted, self.rows - fixed - len(table_lines)))
        lines = list(table_lines)
        for piece in pieces:
            for item in piece:
                if isinstance(item, Log):
                    lines.extend(self._log(item, log_rows))
                    log_rows = 0  # a second log gets no room
                else:
                    lines.append(item)
        return lines[-self.rows :]

    def _pieces(self, part: RenderableType) -> list[Line | Log | _Window]:
        """Returns a part as lines, its log and its boards, in drawing order."""
        return list(self._flatten(part, None))

    def _below(self, part: RenderableType) -> list[Line | Log]:
        """Returns a part under the table as lines and its log; a board there
        is shown as wide as the screen, every row of it."""
        out: list[Line | Log] = []
        for piece in self._flatten(part, None):
            if isinstance(piece, _Window):
                out.extend(self._window(piece, len(piece.lines), first=False))
            else:
                out.append(piece)
        return out

    def _flatten(
        self, part: RenderableType, focus: Focus | None
    ) -> Iterator[Line | Log | _Window]:
        if isinstance(part, Focused):
            yield from self._flatten(part.table, part.focus)
        elif isinstance(part, Group):
            for inner in part.renderables:
                yield from self._flatten(inner, focus)
        elif isinstance(part, Log):
            yield part
        elif isinstance(part, Board):
            yield self._board(part, focus)
        else:
            options = self.console.options.update_width(self.width)
            yield from self.console.render_lines(part, options, pad=False)

    def _board(self, board: Board, focus: Focus | None) -> _Window:
        """Renders a board at its own width, unwrapped."""
        wide = self.console.options.update_width(10_000)
        width = max(1, Measurement.get(self.console, wide, board.drawing).maximum)
        options = wide.update(width=width, no_wrap=True)
        lines = self.console.render_lines(board.drawing, options, pad=True)
        return _Window(board, focus, lines, width)

    def _log(self, log: Log, rows: int) -> list[Line]:
        """Returns the newest ``rows`` lines of the log, one screen line each."""
        options = self.console.options.update_width(self.width)
        out: list[Line] = []
        for line in log.lines[max(0, len(log.lines) - rows) :] if rows else ():
            text = Text(line, style="dim italic", no_wrap=True, overflow="ellipsis")
            out.extend(self.console.render_lines(text, options, pad=False)[:1])
        return out

    def _table(self, pieces: list[Line | Log | _Window], rows: int) -> list[Line]:
        """Returns the table fitted to ``rows`` lines: its boards windowed,
        then, if still too tall, the table cropped around its first board."""
        windows = [p for p in pieces if isinstance(p, _Window)]
        other = sum(1 for p in pieces if isinstance(p, list))
        board_rows = sum(len(w.lines) for w in windows)
        spare = rows - other
        lines: list[Line] = []
        anchor = -1  # the middle line of the first board, once drawn
        for piece in pieces:
            if isinstance(piece, _Window):
                share = len(piece.lines)
                if other + board_rows > rows:
                    share = min(share, max(MIN_BOARD_LINES, spare // len(windows)))
                first = anchor < 0
                if first:
                    anchor = len(lines) + share // 2
                lines.extend(self._window(piece, share, first=first))
            elif isinstance(piece, list):
                lines.append(piece)
        if len(lines) <= rows:
            return lines
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
