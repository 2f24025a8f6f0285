"""``tabletop spectate``: follow a game live, redrawing after every move."""

from __future__ import annotations

import grpc
from rich.console import Console
from rich.text import Text
from tabletop.v1 import game_pb2

from infra.terminal.connection import (
    LOST,
    ClientError,
    Connection,
    connect,
    game_name,
    game_type_info,
    get_game,
    unavailable,
)
from infra.terminal.feed import Item, follow
from infra.terminal.lines import EndOfInput, Line, LineReader, drain, wait
from infra.terminal.menu import QUIT_WORDS
from infra.terminal.render import render_game
from infra.terminal.render_common import closed_text
from infra.terminal.screen import (
    Keys,
    Pan,
    draw,
    final_scores,
    log_text,
    new_log,
    panned,
    record,
)

ENDED = {game_pb2.GAME_STATE_FINISHED, game_pb2.GAME_STATE_CLOSED}
FOOTER = Keys(("spectating; q quits",))


def spectate(server: str, game_id: str, console: Console, reader: LineReader) -> int:
    """Follows a game as a spectator until it finishes; returns the exit status."""
    connection = connect(server)
    name = game_name(game_id)
    game = get_game(connection, name)
    info = game_type_info(connection, game.game_type)
    log = new_log()
    feed = follow(connection, name, game.revision)
    pan, lost = Pan(), False
    try:
        while game.state not in ENDED:
            footer = FOOTER
            notice = Text(LOST, style="bold yellow") if lost else None
            table = render_game(game, info)
            pan = draw(console, table, log_text(log), footer, notice, pan=pan)
            got = wait(reader, feed, resize=True)
            if isinstance(got, EndOfInput):
                return 0
            if isinstance(got, Line):
                if got.text.lower() in QUIT_WORDS:
                    return 0
                pan = panned(got.text, pan) or pan
                continue
            if not isinstance(got, Item):  # resized: drawn again at the new size
                continue
            items = drain(feed, got)
            _fail_on_error(items)
            for item in items:
                record(log, game, item.events)
            latest = _latest(connection, name)
            lost = latest is None
            if latest is not None and latest.revision != game.revision:
                pan = Pan()  # the board is centred on the new action
            game = latest or game
    finally:
        feed.stop()
    draw(console, render_game(game, info), log_text(log), _the_end(game))
    return 0


def _latest(connection: Connection, name: str) -> game_pb2.Game | None:
    """Returns the game as it is now; None while the server is away."""
    try:
        return get_game(connection, name)
    except grpc.RpcError as error:
        if unavailable(error):
            return None
        raise


def _the_end(game: game_pb2.Game) -> Text:
    """Returns the final scores, or why the table closed before play began."""
    if game.state == game_pb2.GAME_STATE_FINISHED:
        return final_scores(game)
    return Text(f"{closed_text(game.closed_reason).capitalize()}.", style="bold")


def _fail_on_error(items: list[Item]) -> None:
    for item in items:
        if item.kind == "error":
            raise ClientError(f"the live feed failed: {item.message}")
