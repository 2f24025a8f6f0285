"""The signed-in player's games for ``tabletop games``, from ``ListMyGames``.

The server lists them in the order a player wants: the games where it is the
player's turn first, then the tables waiting for players, then the rest, each
group most recently active first. Every page is read.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from tabletop.v1 import game_pb2, game_service_pb2

from infra.terminal.connection import UNARY_TIMEOUT, Connection
from infra.terminal.games import Catalogue

PAGE_SIZE = 200  # the most ListMyGames returns at once
MAX_GAMES = 5000  # read at most, should a server keep giving pages
ID_CELLS = 36  # a game id (a UUID), shown whole so that it can be copied
STATES = {
    game_pb2.GAME_STATE_WAITING_FOR_PLAYERS: "waiting",
    game_pb2.GAME_STATE_IN_PROGRESS: "playing",
    game_pb2.GAME_STATE_FINISHED: "finished",
    game_pb2.GAME_STATE_CLOSED: "closed",
}


def my_games(connection: Connection) -> list[game_service_pb2.MyGame]:
    """Returns the signed-in caller's games, every page, in the server's order."""
    games: list[game_service_pb2.MyGame] = []
    page_token = ""
    while len(games) < MAX_GAMES:
        reply = connection.stub.ListMyGames(
            game_service_pb2.ListMyGamesRequest(
                page_size=PAGE_SIZE, page_token=page_token
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        )
        games.extend(reply.games)
        page_token = reply.next_page_token
        if not page_token:
            break
    return games


def my_games_table(games: list[game_service_pb2.MyGame], catalogue: Catalogue) -> Table:
    """Returns the player's games: id, type, state, seat, turn, players and scores."""
    table = Table(title="Your games (play with tabletop play --join GAME_ID)")
    add_id_column(table)
    for column in ("type", "state", "you", "turn", "players"):
        table.add_column(column)
    for game in games:
        add_plain_row(
            table,
            game.game.removeprefix("games/"),
            catalogue.display_name(game.game_type),
            STATES.get(game.state, "?"),
            f"seat {game.player.rsplit('/', 1)[-1]}",
            _turn(game),
            players_line(game),
        )
    return table


def add_id_column(table: Table) -> None:
    """Adds the ``game`` column: its ids are never cut, the other columns wrap."""
    table.add_column("game", no_wrap=True, min_width=ID_CELLS)


def add_plain_row(table: Table, *cells: str) -> None:
    """Adds a row shown as it is written: a display name is any printable text,
    and one that reads as console markup (``[/x]``) must neither break the
    table nor style it."""
    table.add_row(*(Text(cell) for cell in cells))


def _turn(game: game_service_pb2.MyGame) -> str:
    if game.my_turn:
        return "your turn"
    if game.state != game_pb2.GAME_STATE_IN_PROGRESS:
        return ""
    to_act = set(game.players_to_act)
    names = [p.display_name for p in game.players if p.name in to_act]
    return f"{', '.join(names)} to play" if names else ""


def players_line(game: game_service_pb2.MyGame) -> str:
    """Returns the seats' names, with their scores once the game has started."""
    if game.state == game_pb2.GAME_STATE_WAITING_FOR_PLAYERS:
        return ", ".join(p.display_name for p in game.players)
    return ", ".join(f"{p.display_name} {p.score}" for p in game.players)
