"""``tabletop spectate``: follow a game live, redrawing after every move."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text
from tabletop.v1 import game_pb2

from infra.terminal.connection import (
    ClientError,
    connect,
    game_name,
    game_type_info,
    get_game,
)
from infra.terminal.feed import Item, follow
from infra.terminal.lines import EndOfInput, Line, LineReader, drain, wait
from infra.terminal.menu import QUIT_WORDS
from infra.terminal.render import render_game
from infra.terminal.render_common import closed_text
from infra.terminal.screen import draw, final_scores, log_text, new_log, record

ENDED = {game_pb2.GAME_STATE_FINISHED, game_pb2.GAME_STATE_CLOSED}


def spectate(server: str, game_id: str, console: Console, reader: LineReader) -> int:
    """Follows a game as a spectator until it finishes; returns the exit status."""
    connection = connect(server)
    name = game_name(game_id)
    game = get_game(connection, name)
    info = game_type_info(connection, game.game_type)
    log = new_log()
    feed = follow(connection, name, game.revision)
    try:
        while game.state not in ENDED:
            footer = Text("spectating; q quits", style="dim")
            draw(console, render_game(game, info), log_text(log), footer)
            got = wait(reader, feed)
            if isinstance(got, EndOfInput):
                return 0
            if isinstance(got, Line):
                if got.text.lower() in QUIT_WORDS:
                    return 0
                continue
            items = drain(feed, got)
            _fail_on_error(items)
            for item in items:
                record(log, game, item.events)
            game = get_game(connection, name)
    finally:
        feed.stop()
    draw(console, render_game(game, info), log_text(log), _the_end(game))
    return 0


def _the_end(game: game_pb2.Game) -> Text:
    """Returns the final scores, or why the table closed before play began."""
    if game.state == game_pb2.GAME_STATE_FINISHED:
        return final_scores(game)
    return Text(f"{closed_text(game.closed_reason).capitalize()}.", style="bold")


def _fail_on_error(items: list[Item]) -> None:
    for item in items:
        if item.kind == "error":
            raise ClientError(f"the live feed failed: {item.message}")
