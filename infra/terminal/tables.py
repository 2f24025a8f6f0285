"""``tabletop games``: the lobby, the game types and the tables the caller may join.

The game types are the server's ``ListGameTypes``, each with its display name;
one this client cannot draw is listed too, and says so.

Signed in with the device id this machine keeps for the server (never made
here: a machine that never played on the server has no player to list), the
player's games come from ``ListMyGames`` (``infra/terminal/my_games.py``).
Open tables come from ``ListGames`` without a token, so a private table is
never among them; the caller's other tables come from the seats this client
kept with a seat token (``infra/terminal/seats.py``), each read with its own
token, so a private table shows to the players seated at it and to nobody else.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeAlias

import grpc
from rich.console import Console
from rich.table import Table
from tabletop.v1 import game_pb2, game_service_pb2

from infra.terminal.account import sign_in
from infra.terminal.connection import UNARY_TIMEOUT, Connection, catalogue, with_token
from infra.terminal.credentials import with_session
from infra.terminal.games import Catalogue, info_name, spelled
from infra.terminal.my_games import (
    STATES,
    add_id_column,
    add_plain_row,
    my_games,
    my_games_table,
)
from infra.terminal.render import renderer_for
from infra.terminal.seats import Seat, load_seat, state_dir

OPEN_TABLES = 50  # listed at most
Kept: TypeAlias = tuple[game_pb2.Game, Seat]  # a kept seat's game


def list_tables(
    connection: Connection,
    server: str,
    console: Console,
    guest: bool = False,  # noqa: FBT001, FBT002
) -> int:
    """Prints the game types, the caller's games and tables, then the open ones;
    returns 0."""
    games = catalogue(connection)
    console.print(game_types_table(games))
    shown = set() if guest else _my_games(connection, server, console, games)
    own = [
        kept for kept in _own_tables(connection, server) if kept[0].name not in shown
    ]
    if own:
        console.print(_own_table(own, games))
    shown |= {game.name for game, _ in own}
    listing = connection.stub.ListGames(
        game_service_pb2.ListGamesRequest(
            page_size=OPEN_TABLES,
            filter="state = WAITING_FOR_PLAYERS",
            view=game_service_pb2.GAME_VIEW_BASIC,
        ),
        timeout=UNARY_TIMEOUT,
    )
    open_games = [game for game in listing.games if game.name not in shown]
    if open_games:
        console.print(_open_table(open_games, games))
        console.print("Join one with: tabletop play --join GAME_ID")
    else:
        console.print(
            "No open table waits for players; open one with: tabletop play GAME_TYPE"
        )
    return 0


def _my_games(
    connection: Connection, server: str, console: Console, games: Catalogue
) -> set[str]:
    """Prints the signed-in player's games, if this machine has a player on the
    server; returns their names."""
    account = sign_in(connection.channel, server, console, None, make=False)
    if account is None:
        return set()
    mine = my_games(with_session(connection, account))
    if mine:
        console.print(my_games_table(mine, games))
    return {game.game for game in mine}


def _own_tables(
    connection: Connection, server: str
) -> list[tuple[game_pb2.Game, Seat]]:
    """Returns the kept seats' games on ``server`` that are not over, oldest first."""
    found: list[Kept] = []
    for path in sorted(Path(state_dir(), "seats").glob("*.json")):
        seat = load_seat(path)
        if seat is None or seat.server != server:
            continue
        seated = with_token(connection, seat.seat_token)
        try:
            game = seated.stub.GetGame(
                game_service_pb2.GetGameRequest(
                    name=seat.game, view=game_service_pb2.GAME_VIEW_BASIC
                ),
                metadata=seated.metadata,
                timeout=UNARY_TIMEOUT,
            ).game
        except grpc.RpcError:  # gone, or the seat was given up
            continue
        if game.state in (
            game_pb2.GAME_STATE_WAITING_FOR_PLAYERS,
            game_pb2.GAME_STATE_IN_PROGRESS,
        ):
            found.append((game, seat))
    found.sort(key=lambda pair: pair[0].create_time.ToDatetime())
    return found


def game_types_table(games: Catalogue) -> Table:
    """Returns the game types the server plays, as ``tabletop play`` names them."""
    table = Table(title="Games (open a table with tabletop play GAME_TYPE)")
    notes = {
        info.game_type: "" if renderer_for(info.game_type) else "cannot draw it"
        for info in games.game_types
    }
    noted = any(notes.values())  # a note column only when a type needs one
    for column in ("GAME_TYPE", "game", "players", "this client")[: 3 + noted]:
        table.add_column(column)
    for info in games.game_types:
        cells = (
            spelled(info_name(info)),
            games.display_name(info.game_type),
            f"{info.min_players}-{info.max_players}",
            notes[info.game_type],
        )
        add_plain_row(table, *cells[: 3 + noted])
    return table


def _own_table(own: list[Kept], games: Catalogue) -> Table:
    table = Table(title="Your tables (resume with tabletop play --join GAME_ID)")
    add_id_column(table)
    for column in ("type", "state", "seats", "you", "invite code"):
        table.add_column(column)
    for game, seat in own:
        you = game.caller.rsplit("/", 1)[-1] if game.caller else "?"
        private = game.visibility == game_pb2.VISIBILITY_PRIVATE
        code = (seat.invite_code or "(ask the host)") if private else "public"
        add_plain_row(
            table,
            game.name.removeprefix("games/"),
            games.display_name(game.game_type),
            STATES.get(game.state, "?"),
            f"{len(game.players)}/{game.max_players}",
            _you(you, seat, host=game.caller == game.host),
            code,
        )
    return table


def _you(index: str, seat: Seat, *, host: bool) -> str:
    """Returns the caller's seat: its number, the name it was kept under (two
    people may keep seats at one table on one machine) and whether it hosts."""
    notes = [seat.name] if seat.name else []
    notes += ["host"] if host else []
    return f"seat {index}" + (f" ({', '.join(notes)})" if notes else "")


def _open_table(open_games: list[game_pb2.Game], games: Catalogue) -> Table:
    table = Table(title="Open tables")
    add_id_column(table)
    for column in ("type", "seats", "host", "closes"):
        table.add_column(column)
    for game in open_games:
        host = next((p.display_name for p in game.players if p.name == game.host), "")
        closes = (
            game.expire_time.ToDatetime().strftime("%Y-%m-%d %H:%M UTC")
            if game.HasField("expire_time")
            else ""
        )
        add_plain_row(
            table,
            game.name.removeprefix("games/"),
            games.display_name(game.game_type),
            f"{len(game.players)}/{game.max_players}",
            host,
            closes,
        )
    return table
