"""Rendering a renderable the way a true-colour terminal would show it."""

from __future__ import annotations

import io

from rich.console import Console, RenderableType
from tabletop.v1 import game_pb2

from infra.terminal.screen import draw

WIDTH = 120


def screen(renderable: RenderableType, width: int = WIDTH) -> tuple[str, str]:
    """Returns the plain text and the text with ANSI styles of a renderable."""
    console = Console(
        record=True,
        width=width,
        color_system="truecolor",
        force_terminal=True,
        file=io.StringIO(),
    )
    console.print(renderable)
    return console.export_text(clear=False), console.export_text(styles=True)


def fitted(width: int, height: int, *parts: RenderableType) -> list[str]:
    """Returns the lines of a screen drawn, fitted, on a terminal of that size."""
    out = io.StringIO()
    console = Console(
        file=out, width=width, height=height, force_terminal=True, color_system=None
    )
    draw(console, *parts)
    text = out.getvalue().replace("\x1b[2J", "").replace("\x1b[H", "")
    return text.removesuffix("\n").split("\n")


def players(game: game_pb2.Game, *names: str) -> None:
    """Seats the named players in order."""
    for seat, display in enumerate(names):
        game.players.add(
            name=f"{game.name}/players/{seat}", display_name=display, seat=seat
        )


def new_game(game_type: game_pb2.GameType, *names: str) -> game_pb2.Game:
    """Returns a game in progress with the named players seated."""
    game = game_pb2.Game(
        name="games/g1",
        game_type=game_type,
        state=game_pb2.GAME_STATE_IN_PROGRESS,
        revision=12,
        move_count=3,
    )
    players(game, *names)
    return game
