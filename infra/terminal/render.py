"""One dispatch over the five games' renderers: the table, a move, an event."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType

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
from infra.terminal.render_common import describe_lifecycle, header, names_of, scores


@dataclass(frozen=True, slots=True)
class Renderer:
    """What a game's module draws: its table, a move and an event."""

    table: Callable[
        [game_pb2.Game, game_type_pb2.GameTypeInfo | None, str], RenderableType
    ]
    move: Callable[[move_pb2.Move], Text]
    event: Callable[[event_pb2.GameEvent, Mapping[str, str]], str | None]


def _of(module: ModuleType) -> Renderer:
    return Renderer(module.render, module.describe_move, module.describe_event)


# The Move, GameEvent and Game.view members of each game share its name.
MEMBERS = {
    game_pb2.GAME_TYPE_QWIRKLE: "qwirkle",
    game_pb2.GAME_TYPE_HUES_AND_CUES: "hues_and_cues",
    game_pb2.GAME_TYPE_SPLIT: "split",
    game_pb2.GAME_TYPE_GNOMING_A_ROUND: "gnoming_a_round",
    game_pb2.GAME_TYPE_FOOL: "fool",
}
RENDERERS: dict[str, Renderer] = {
    "qwirkle": _of(render_qwirkle),
    "hues_and_cues": _of(render_hues_and_cues),
    "split": _of(render_split),
    "gnoming_a_round": _of(render_gnoming_a_round),
    "fool": _of(render_fool),
}


def render_game(
    game: game_pb2.Game, info: game_type_pb2.GameTypeInfo | None = None, me: str = ""
) -> RenderableType:
    """Returns the game's table as the caller sees it; a bare summary without a view."""
    renderer = RENDERERS.get(MEMBERS.get(game.game_type, ""))
    if renderer is None or game.WhichOneof("view") is None:
        return Group(header(game, me), scores(game, me))
    return renderer.table(game, info, me)


def describe_move(move: move_pb2.Move) -> Text:
    """Returns a move as one line of text."""
    member = move.WhichOneof("game")
    renderer = RENDERERS.get(member or "")
    return renderer.move(move) if renderer else Text("(a move this client cannot show)")


def describe_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes an event for the log; None when it is not worth a line."""
    renderer = RENDERERS.get(event.WhichOneof("event") or "")
    if renderer is not None:
        return renderer.event(event, names)
    return describe_lifecycle(event, names)


def names_for(game: game_pb2.Game) -> dict[str, str]:
    """Returns each player's display name by resource name (for describe_event)."""
    return names_of(game)
