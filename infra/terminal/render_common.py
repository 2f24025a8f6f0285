"""Drawing pieces every game shares: the board, the scores and the event log
(the header is header.py's)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2, move_pb2

from infra.terminal.header import header

CLOSED_REASONS = {
    game_pb2.CLOSED_REASON_EXPIRED: "nobody started it in time",
    game_pb2.CLOSED_REASON_EMPTY: "its last player left",
}
_LUMINANCE_THRESHOLD = 140
WIDTH = 80  # the narrowest terminal a game's table is drawn for
NAME_CELLS = 20  # a longer display name is cut to this many cells
# What ListGameTypes says of the game, when the server listed it.
Info: TypeAlias = game_type_pb2.GameTypeInfo | None


def nothing_typed(
    _game: game_pb2.Game, _text: str, _listed: list[move_pb2.Move]
) -> move_pb2.Move | None:
    """Reads no typed move: the game's moves are picked by number only."""
    return None


def no_hint(_game: game_pb2.Game) -> str:
    """Has nothing to add to the prompt."""
    return ""


class Focus(NamedTuple):
    """A point of a game's ``Board`` drawing: its line and column, from 0."""

    line: int
    column: int


def no_focus(_game: game_pb2.Game) -> Focus | None:
    """Names no point of the board: the screen shows the board's middle."""
    return None


@dataclass(frozen=True, slots=True)
class Board:
    """A drawing that keeps its shape (a grid): never wrapped to the screen.

    A screen narrower or shorter than the drawing shows a window of it
    (infra/terminal/screen.py), around the renderer's focus; the first
    ``label_lines`` lines and ``label_columns`` columns (the coordinates) stay
    in view as the window pans. Drawn on its own, it is just the drawing.
    """

    drawing: Text
    label_lines: int = 0
    label_columns: int = 0

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> RenderResult:
        yield self.drawing

    def __rich_measure__(
        self, console: Console, options: ConsoleOptions
    ) -> Measurement:
        return Measurement.get(console, options, self.drawing)


@dataclass(frozen=True, slots=True)
class Focused:
    """A game's table and the point of its ``Board`` the screen keeps in view."""

    table: RenderableType
    focus: Focus | None = None

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> RenderResult:
        yield self.table

    def __rich_measure__(
        self, console: Console, options: ConsoleOptions
    ) -> Measurement:
        return Measurement.get(console, options, self.table)


@dataclass(frozen=True, slots=True)
class Renderer:
    """What a game's module draws and reads; each ``render_<game>`` declares one."""

    game: str  # the game's name (infra/terminal/games.py), e.g. "hues_and_cues"
    table: Callable[[game_pb2.Game, Info, str], RenderableType]
    move: Callable[[move_pb2.Move], Text]
    event: Callable[[event_pb2.GameEvent, Mapping[str, str]], str | None]
    # A move typed rather than picked by number, and what may be typed.
    typed: Callable[[game_pb2.Game, str, list[move_pb2.Move]], move_pb2.Move | None] = (
        nothing_typed
    )
    hint: Callable[[game_pb2.Game], str] = no_hint
    # Where the action is on the game's Board: the screen keeps it in view.
    focus: Callable[[game_pb2.Game], Focus | None] = no_focus


def short(name: str, cells: int = NAME_CELLS) -> str:
    """Returns a display name cut to ``cells`` cells, ending in an ellipsis."""
    return name if cell_len(name) <= cells else f"{set_cell_size(name, cells - 1)}…"


def packed(first: Text, pieces: Iterable[Text], sep: str = " ") -> Text:
    """Returns ``first`` then the pieces, ``sep`` apart, on as many lines of WIDTH
    cells as they need, each further line indented under the first piece."""
    out, indent = first.copy(), first.cell_len
    column, started, mark = indent, False, sep.rstrip()  # mark ends a broken line
    for piece in pieces:
        if started and column + len(sep) + piece.cell_len + len(mark) > WIDTH:
            out.append(f"{mark}\n{' ' * indent}")
            column, started = indent, False
        if started:
            out.append(sep)
            column += len(sep)
        out.append_text(piece)
        column, started = column + piece.cell_len, True
    return out


def seat_of(player: str) -> int:
    """Returns the seat index of a player resource name, -1 when it has none."""
    tail = player.rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def names_of(game: game_pb2.Game) -> dict[str, str]:
    """Returns each player's display name by resource name."""
    return {player.name: player.display_name for player in game.players}


def name_at(game: game_pb2.Game, seat: int) -> str:
    """Returns the display name of a seat, or its number when it is empty."""
    for player in game.players:
        if player.seat == seat:
            return player.display_name
    return f"seat {seat}"


def hands(
    game: game_pb2.Game,
    revealed: Iterable[Any],
    own: Iterable[Any] | None,
    cards_text: Callable[[Iterable[Any]], Text],
) -> list[Text]:
    """Returns the lines of the hands shown at the round's end, then the caller's."""
    names = {p.seat: p.display_name for p in game.players}
    lines = [
        Text.assemble(f"{names.get(seat, seat)} held: ", cards_text(hand.cards))
        for seat, hand in enumerate(revealed)
    ]
    if own is not None:
        lines.append(Text.assemble(("Your hand: ", "bold"), cards_text(own)))
    return lines


def contrast(red: int, green: int, blue: int) -> str:
    """Returns black or white, whichever reads better on the colour."""
    luminance = 0.299 * red + 0.587 * green + 0.114 * blue
    return "black" if luminance > _LUMINANCE_THRESHOLD else "white"


def scores(game: game_pb2.Game, me: str = "", acting: Sequence[str] = ()) -> Table:
    """Returns the players with their scores; ▶ marks whoever is to act."""
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column(" ")
    table.add_column("player")
    table.add_column("score", justify="right")
    to_act = set(acting) or set(game.players_to_act) or {game.current_player}
    for player in game.players:
        mark = "▶" if player.name in to_act else " "
        label = Text(
            player.display_name, style="bold cyan" if player.name == me else ""
        )
        if player.name in game.winners:
            label.append(" ★ winner", style="bold yellow")
        if player.resigned:
            label.append(" (resigned; the bot plays)", style="dim")
        table.add_row(mark, label, str(player.score))
    return table


def table_frame(
    game: game_pb2.Game, info: Info, body: Sequence[RenderableType], me: str = ""
) -> Group:
    """Returns the header, the game's own drawing and the scores, one under another."""
    return Group(header(game, info, me), *body)


def describe_lifecycle(
    event: event_pb2.GameEvent, names: Mapping[str, str]
) -> str | None:
    """Describes the events every game has; None for the others."""
    kind = event.WhichOneof("event")
    if kind == "player_joined":
        return f"{event.player_joined.display_name} joined"
    if kind == "game_started":
        return "the game started"
    if kind == "game_finished":
        return describe_finish(event.game_finished, names)
    return describe_seats(event, names) or describe_undo(event, names)


def describe_finish(finished: event_pb2.GameFinished, names: Mapping[str, str]) -> str:
    """Describes the end of a game: who won, who resigned, whether it was abandoned."""
    won = ", ".join(names.get(w, w) for w in finished.winners) or "nobody"
    how = "the game was abandoned (no seat left playing)" if finished.abandoned else ""
    line = f"{how or 'the game finished'}; won by {won}"
    if finished.resigned:
        gave_up = ", ".join(names.get(r, r) for r in finished.resigned)
        line += f" ({gave_up} resigned)"
    return line


def describe_seats(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes who left, resigned or was played for, and a table closing."""
    kind = event.WhichOneof("event")
    if kind == "player_left":
        left = event.player_left
        how = "was removed by the host" if left.removed else "left the table"
        return f"{left.display_name} {how}"
    if kind == "table_closed":
        return closed_text(event.table_closed.reason)
    if kind == "invite_code_set":
        return "the table's invite code was set"
    if kind == "player_resigned":
        who = names.get(event.player_resigned.player, "a player")
        return f"{who} resigned; the server's bot plays their seat"
    if kind == "resigned_seat_played":
        who = names.get(event.resigned_seat_played.player, "a player")
        return f"the bot played for {who} (resigned)"
    return None


def describe_undo(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes a takeback event (proposed, answered, moves undone); None else."""
    kind = event.WhichOneof("event")
    if kind == "moves_undone":
        undone = event.moves_undone
        count = "1 move" if undone.moves == 1 else f"{undone.moves} moves"
        how = "" if undone.proposal_id else " alone"
        who = names.get(undone.player, "?")
        return (
            f"{who} took back {count}{how} (back to revision {undone.target_revision})"
        )
    if kind == "undo_proposed":
        proposer = names.get(event.undo_proposed.proposer, "a player")
        return f"{proposer} proposed taking back their last move"
    if kind == "undo_resolved":
        resolved = event.undo_resolved
        who = names.get(resolved.player, "a player")
        # Logged after the moves it took back: the last answer settles it.
        agreed = f"takeback agreed by all ({who} answered last)"
        return {
            event_pb2.UNDO_OUTCOME_ACCEPTED: agreed,
            event_pb2.UNDO_OUTCOME_REJECTED: f"takeback declined by {who}",
            event_pb2.UNDO_OUTCOME_EXPIRED: "takeback proposal expired",
            event_pb2.UNDO_OUTCOME_WITHDRAWN: "takeback proposal withdrawn",
        }.get(resolved.outcome)
    return None


def closed_text(reason: game_pb2.ClosedReason) -> str:
    """Returns why a table closed: ``the table closed: its last player left``."""
    why = CLOSED_REASONS.get(reason, "")
    return f"the table closed{f': {why}' if why else ''}"
