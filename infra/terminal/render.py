"""The games' renderers, found by game name: the table, a move, an event, typed input.

Each ``render_<game>`` module declares its ``RENDERER``; a new game adds its
module and names it in ``RENDERERS``. A game type without a renderer (a server
newer than this client) is drawn as its header and scores, with a line saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rich.console import Group, RenderableType
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2, move_pb2

from infra.terminal import (
    render_fool,
    render_gnoming_a_round,
    render_hues_and_cues,
    render_qwirkle,
    render_split,
)
from infra.terminal.games import display_name, name_of
from infra.terminal.header import header
from infra.terminal.render_common import (
    Focused,
    Renderer,
    describe_lifecycle,
    names_of,
    scores,
)

# The game's name -> its renderer; the name is also its Move and GameEvent member.
RENDERERS: Mapping[str, Renderer] = MappingProxyType(
    {
        renderer.game: renderer
        for renderer in (
            render_qwirkle.RENDERER,
            render_hues_and_cues.RENDERER,
            render_split.RENDERER,
            render_gnoming_a_round.RENDERER,
            render_fool.RENDERER,
        )
    }
)


def renderer_for(game_type: int) -> Renderer | None:
    """Returns the renderer of a game type, None when this client cannot draw it."""
    return RENDERERS.get(name_of(game_type))


def cannot_draw(game_type: int, info: game_type_pb2.GameTypeInfo | None) -> str:
    """Says that this client cannot draw a game type the server plays."""
    name = display_name(game_type, info)
    return f"this client cannot draw {name} (a newer tabletop can)"


def render_game(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None = None, me: str = ""
) -> RenderableType:
    """Returns the game's table as the caller sees it; a bare summary without a view.

    The table carries the point of its board the screen keeps in view.
    """
    renderer = renderer_for(game.game_type)
    if renderer is None:
        missing = Text(
            f"{cannot_draw(game.game_type, info)}; only its players and scores "
            "are shown",
            style="yellow",
        )
        return Group(header(game, info, me), scores(game, me), missing)
    if game.WhichOneof("view") is None:
        return Group(header(game, info, me), scores(game, me))
    return Focused(renderer.table(game, info, me), renderer.focus(game))


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as one line of text."""
    renderer = RENDERERS.get(move.WhichOneof("game") or "")
    return renderer.move(move) if renderer else Text("(a move this client cannot show)")


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes an event for the log; None when it is not worth a line."""
    renderer = RENDERERS.get(event.WhichOneof("event") or "")
    if renderer is not None:
        return renderer.event(event, names)
    return describe_lifecycle(event, names)


def typed_move(
    game: game_pb2.Game, text: str, listed: list[move_pb2.Move]
) -> move_pb2.Move | None:
    """Returns the move a typed text means in this game now; None when it means none."""
    renderer = renderer_for(game.game_type)
    return renderer.typed(game, text, listed) if renderer else None


def hint(game: game_pb2.Game) -> str:
    """Returns what may be typed besides a number, for the prompt."""
    renderer = renderer_for(game.game_type)
    return renderer.hint(game) if renderer else ""


def names_for(game: game_pb2.Game) -> dict[str, str]:
    """Returns each player's display name by resource name (for describe_event)."""
    return names_of(game)
