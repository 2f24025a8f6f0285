"""Taking a seat (create, join or resume), keeping its token, and starting the game."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.text import Text
from tabletop.v1 import game_pb2, game_service_pb2

from infra.terminal.connection import (
    UNARY_TIMEOUT,
    ClientError,
    Connection,
    game_name,
    get_game,
    with_token,
)
from infra.terminal.seats import Seat, load_seat, save_seat, seat_path

GAME_TYPES = {
    "qwirkle": game_pb2.GAME_TYPE_QWIRKLE,
    "hues-and-cues": game_pb2.GAME_TYPE_HUES_AND_CUES,
    "split": game_pb2.GAME_TYPE_SPLIT,
    "gnoming-a-round": game_pb2.GAME_TYPE_GNOMING_A_ROUND,
    "fool": game_pb2.GAME_TYPE_FOOL,
}


@dataclass(frozen=True, slots=True)
class Table:
    """The caller's seat at a game and the connection presenting its token."""

    connection: Connection
    seat: Seat
    created: bool


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """What ``tabletop play`` was asked for."""

    server: str
    game_type: str | None
    name: str
    players: int
    join: str | None
    seat_token_file: str | None
    bots: int = 0  # bots to seat at a new table (infra/bot_client.py)
    bot_delay: float = 1.0


def game_type_of(text: str) -> game_pb2.GameType:
    """Returns the game type a name means: ``qwirkle``, ``hues-and-cues``, ..."""
    key = text.strip().lower().replace("_", "-").replace(" ", "-").rstrip("!")
    if key not in GAME_TYPES:
        raise ClientError(f"unknown game {text!r}; one of: {', '.join(GAME_TYPES)}")
    return GAME_TYPES[key]


def take_seat(connection: Connection, request: SeatRequest, console: Console) -> Table:
    """Creates or joins a game, or resumes a kept seat; says where the token is kept."""
    if request.join:
        name = game_name(request.join)
        path = seat_path(name, request.seat_token_file)
        kept = load_seat(path)
        if kept is not None and kept.game == name:
            console.print(f"Resuming your seat at {name} (seat kept in {path})")
            return Table(with_token(connection, kept.seat_token), kept, created=False)
        seat = _join(connection, request, name)
    else:
        seat = _create(connection, request)
        path = seat_path(seat.game, request.seat_token_file)
    save_seat(seat, path)
    console.print(
        Text.assemble("Game ", (seat.game, "bold"), f"  you are {seat.player}")
    )
    console.print(
        f"Seat token saved to {path} (resume with: tabletop play --join "
        f"{seat.game.removeprefix('games/')})"
    )
    return Table(with_token(connection, seat.seat_token), seat, not request.join)


def _create(connection: Connection, request: SeatRequest) -> Seat:
    game_type = game_type_of(request.game_type or "")
    reply = connection.stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_type, max_players=request.players),
            display_name=request.name,
            request_id=str(uuid.uuid4()),
        ),
        timeout=UNARY_TIMEOUT,
    )
    return Seat(reply.game.name, reply.player, reply.seat_token, request.server)


def _join(connection: Connection, request: SeatRequest, name: str) -> Seat:
    if request.game_type:
        wanted = game_type_of(request.game_type)
        if get_game(connection, name).game_type != wanted:
            raise ClientError(f"{name} is not a game of {request.game_type}")
    reply = connection.stub.JoinGame(
        game_service_pb2.JoinGameRequest(
            name=name, display_name=request.name, request_id=str(uuid.uuid4())
        ),
        timeout=UNARY_TIMEOUT,
    )
    return Seat(reply.game.name, reply.player, reply.seat_token, request.server)


def start_game(table: Table) -> None:
    """Starts the game (the creator does, once enough players sit)."""
    table.connection.stub.StartGame(
        game_service_pb2.StartGameRequest(
            name=table.seat.game, request_id=str(uuid.uuid4())
        ),
        metadata=table.connection.metadata,
        timeout=UNARY_TIMEOUT,
    )


def lobby_text(game: game_pb2.Game, wanted: int, *, created: bool) -> Text:
    """Returns who sits and what the table waits for."""
    seated = ", ".join(p.display_name for p in game.players)
    out = Text.assemble(("Waiting for players: ", "bold"), f"{len(game.players)}/")
    out.append(f"{wanted} seated ({seated})\n")
    out.append(
        f"Others join with: tabletop play --join {game.name.removeprefix('games/')}"
    )
    if not created:
        out.append("\nThe game's creator starts it once the table is full.")
    out.append("\nq quits (your seat is kept).", style="dim")
    return out


def seat_file(request: SeatRequest, game: str) -> Path:
    """Returns where the seat of a game is kept for this request."""
    return seat_path(game, request.seat_token_file)
