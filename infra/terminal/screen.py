"""Drawing a whole screen fitted to the terminal: table, log, message, prompt.

The parts are fitted by infra/terminal/fit.py: the table's header first, then
its scores, racks and legends, then the moves, then its board (windowed, and
panned with ``<``, ``>``, ``^`` and ``v``; ``.`` centres it again), the log in
the rows left over. The frame, the prompt's line included, never has more rows
or columns than the terminal, whose size is read at every redraw.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Sequence

from rich.console import Console, RenderableType
from rich.segment import Segment, Segments
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2

from infra.terminal.fit import PAN_HELP, Frame, Keys, Log, Pan
from infra.terminal.render import describe_event, names_for

# Pan, Keys and PAN_HELP come from fit.py; the client's modules take them here.
__all__ = [
    "PAN_HELP",
    "Keys",
    "Log",
    "Pan",
    "draw",
    "final_scores",
    "log_text",
    "make_console",
    "menu_rows",
    "new_log",
    "panned",
    "problem",
    "prompt",
    "record",
    "terminal_size",
]

LOG_KEPT = 200  # lines of the log kept; the screen shows the newest that fit
PROMPT_LINES = 1
UNFITTED = 100_000  # the rows of output that goes to no terminal
STEPS = {"<": (0, -1), ">": (0, 1), "^": (-1, 0), "v": (1, 0)}
CENTRE = "."
CENTRED = Pan()  # the board around its focus, not panned


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


def draw(console: Console, *parts: RenderableType | None, pan: Pan = CENTRED) -> Pan:
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
