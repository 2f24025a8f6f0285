"""The one-line title of a game's table: game, id, state, revision and moves."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from tabletop.v1 import game_pb2, game_type_pb2

from infra.terminal.games import display_name

STATE_NAMES = {
    game_pb2.GAME_STATE_WAITING_FOR_PLAYERS: "waiting for players",
    game_pb2.GAME_STATE_IN_PROGRESS: "in progress",
    game_pb2.GAME_STATE_FINISHED: "finished",
    game_pb2.GAME_STATE_CLOSED: "closed",
}
ID_SHOWN = 8  # a header too wide shows this many characters of the game's id


@dataclass(frozen=True, slots=True)
class Header:
    """The one-line title: game, id, state, revision and moves, and who the
    caller is. Drawn where the whole line does not fit, the id is shortened to
    its first characters, then ``you are ...`` is left out, then the line ends
    in an ellipsis: it never takes a second line."""

    title: str
    name: str
    state: str
    revision: int
    moves: int
    me: str = ""

    def line(self, width: int) -> Text:
        """Returns the header as it fits ``width`` cells."""
        game_id = self.name.removeprefix("games/")
        shortened = f"games/{game_id[:ID_SHOWN]}…"
        tries = [(self.name, self.me)]
        if len(game_id) > ID_SHOWN:
            tries.append((shortened, self.me))
        tries.append((tries[-1][0], ""))
        for name, me in tries:
            out = self._text(name, me)
            if out.cell_len <= width:
                return out
        out.truncate(max(1, width), overflow="ellipsis")
        return out

    def _text(self, name: str, me: str) -> Text:
        out = Text.assemble((self.title, "bold"), (f"  {name}", "dim"))
        out.append(f"  {self.state}")
        out.append(f"  revision {self.revision}, move {self.moves}", style="dim")
        if me:
            out.append(f"  you are {me}", style="cyan")
        return out

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> RenderResult:
        yield self.line(options.max_width)

    def __rich_measure__(
        self, console: Console, options: ConsoleOptions
    ) -> Measurement:
        return Measurement(1, self._text(self.name, self.me).cell_len)


def header(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None, me: str = ""
) -> Header:
    """Returns the one-line title: game, id, state, revision and moves."""
    return Header(
        display_name(game.game_type, info),
        game.name,
        STATE_NAMES.get(game.state, "?"),
        game.revision,
        game.move_count,
        {p.name: p.display_name for p in game.players}.get(me, me) if me else "",
    )
