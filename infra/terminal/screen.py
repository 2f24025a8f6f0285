"""Drawing a whole screen: the table, the log of recent moves, a message, a prompt."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from rich.console import Console, Group, RenderableType
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2

from infra.terminal.render import describe_event, names_for

LOG_LINES = 4


def make_console() -> Console:
    """Returns the console to draw on; numbers are not recoloured."""
    return Console(highlight=False)


def new_log() -> deque[str]:
    """Returns an empty log of the last few moves."""
    return deque(maxlen=LOG_LINES)


def record(
    log: deque[str], game: game_pb2.Game, events: Iterable[event_pb2.GameEvent]
) -> None:
    """Adds the events worth a line to the log."""
    names = names_for(game)
    for event in events:
        line = describe_event(event, names)
        if line is not None:
            log.append(f"r{event.revision}: {line}")


def log_text(log: Sequence[str]) -> Text:
    """Returns the log, oldest line first."""
    if not log:
        return Text("")
    return Text("\n".join(log), style="dim italic")


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


def draw(console: Console, *parts: RenderableType | None) -> None:
    """Clears the screen and draws the parts one under another."""
    console.clear()
    console.print(Group(*(part for part in parts if part is not None)))


def prompt(console: Console, text: str) -> None:
    """Shows a prompt on the last line, the cursor after it."""
    console.print(Text(text, style="bold green"), end="")
    console.file.flush()


def problem(message: str) -> Text | None:
    """Returns an error line, or None when there is none."""
    return Text(message, style="bold red") if message else None
