"""Taking a seat (create, join or resume), keeping its token, and starting the game.

A private table is joined with its invite code; only its host (seat 0) starts it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console
from rich.text import Text
from tabletop.v1 import game_pb2, game_service_pb2

from infra.terminal.account import DEFAULT_NAME, sign_in
from infra.terminal.bot_seats import check_seats, with_bots
from infra.terminal.connection import (
    UNARY_TIMEOUT,
    ClientError,
    Connection,
    catalogue,
    game_name,
    get_game,
    with_token,
)
from infra.terminal.credentials import with_session
from infra.terminal.games import Catalogue
from infra.terminal.kept_seats import (
    held_seat,
    kept_at,
    same_name,
    same_player,
)
from infra.terminal.render import cannot_draw, renderer_for
from infra.terminal.render_common import names_of, seat_of
from infra.terminal.seats import (
    Seat,
    load_kept,
    named_seat_path,
    save_seat,
    seat_path,
)


@dataclass(frozen=True, slots=True)
class Table:
    """The caller's seat at a game and the connection presenting its token."""

    connection: Connection
    seat: Seat
    created: bool
    path: Path  # where the seat is kept


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """What ``tabletop play`` was asked for."""

    server: str
    game_type: str | None
    name: str | None  # None: not given (a guest or a new player is "Player")
    players: int
    join: str | None
    seat_token_file: str | None
    bots: int = 0  # bots to seat at a new table (infra/bot_client.py)
    bot_delay: float = 1.0
    private: bool = False  # create a table joined only with its invite code
    invite_code: str = ""  # the code of a private table to join
    guest: bool = False  # take the seat without signing in
    resume: bool = False  # resume the kept seat whatever --name says


def game_type_of(text: str, games: Catalogue) -> game_pb2.GameType:
    """Returns the game type a name means among the server's: ``hues-and-cues``, ...

    Refuses a game type the server plays but this client cannot draw.
    """
    info = games.find(text)
    if info is None:
        known = ", ".join(games.spelled_names()) or "none"
        raise ClientError(f"the server plays no game {text!r}; it plays: {known}")
    if renderer_for(info.game_type) is None:
        raise ClientError(cannot_draw(info.game_type, info))
    return info.game_type


def take_seat(connection: Connection, request: SeatRequest, console: Console) -> Table:
    """Creates or joins a game, or resumes a kept seat or one the signed-in
    player holds; says where the seat is kept.

    A kept seat is resumed for the same player only: without ``--name``, with
    the name it was taken under, or with ``--resume``. Another name takes a new
    seat, kept in a file of its own (``named_seat_path``).
    """
    if not request.join:
        return _open(connection, request, console)
    name = game_name(request.join)
    path = seat_path(name, request.seat_token_file)
    kept = kept_at(path, name, request.server)
    if kept is not None and not same_player(
        connection, kept, request.name, resume=request.resume
    ):
        path, kept = _own_seat_file(request, kept, path)
        if kept is None:
            seating = _seating(connection, request, console)
            return _join_another(connection, seating, request, path, console)
    if kept is not None and kept.seat_token:
        console.print(f"Resuming your seat at {name} (seat kept in {path})")
        credentials = with_token(connection, kept.seat_token)
        return Table(credentials, kept, created=False, path=path)
    seating = _seating(connection, request, console)
    held, shown = held_seat(seating, name)
    if (
        held
        and kept is None
        and not same_name(request.name, shown, resume=request.resume)
    ):
        return _join_another(connection, seating, request, path, console)
    if held:
        seat = (
            Seat(name, held, "", request.server, name=shown) if kept is None else kept
        )
        return _resume_held(seating, replace(seat, player=held), path, console)
    if kept is not None and seating.session is None:
        raise ClientError(
            f"your seat at {name} is kept for a signed-in player ({path}): "
            "play it signed in, without --guest"
        )
    return _taken(connection, request, _join(seating, request, name), path, console)


def _open(connection: Connection, request: SeatRequest, console: Console) -> Table:
    """Opens a new table with the bots asked for; keeps the seat and theirs."""
    games = catalogue(connection)
    game_type = game_type_of(request.game_type or "", games)
    check_seats(request.bots, request.players, games.info(game_type))
    seating = _seating(connection, request, console)
    seat = with_bots(connection, _create(seating, request, game_type), request.bots)
    path = seat_path(seat.game, request.seat_token_file)
    return _taken(connection, request, seat, path, console)


def _own_seat_file(
    request: SeatRequest, other: Seat, path: Path
) -> tuple[Path, Seat | None]:
    """Returns where the caller's seat is kept, and the seat kept there, when
    ``path`` keeps another person's; refuses a ``--seat-token-file`` that does."""
    if request.seat_token_file:
        raise ClientError(
            f"{path} keeps {other.name or 'another player'}'s seat at "
            f"{other.game}, not one of yours: add --resume to play it, or keep "
            "yours in another --seat-token-file"
        )
    own = named_seat_path(other.game, request.name or "")
    return own, kept_at(own, other.game, request.server)


def _join_another(
    connection: Connection,
    seating: Connection,
    request: SeatRequest,
    path: Path,
    console: Console,
) -> Table:
    """Takes a new seat for another person than the one whose seat is kept,
    or resumes the one the signed-in player holds under that person's name.

    The machine's player account holds one seat per table at most; when it
    holds another person's here, the newcomer joins as a guest.
    """
    name = game_name(request.join or "")
    held, shown = held_seat(seating, name)
    if held and same_name(request.name, shown, resume=request.resume):
        seat = Seat(name, held, "", request.server, name=shown)
        return _resume_held(seating, seat, path, console)
    if held:
        console.print(
            f"This machine's player already sits at {name}: "
            f"{request.name or DEFAULT_NAME} joins as a guest"
        )
        seating = connection
    return _taken(connection, request, _join(seating, request, name), path, console)


def _resume_held(
    seating: Connection, seat: Seat, path: Path, console: Console
) -> Table:
    """Resumes the seat the signed-in player holds, played with the session, and
    keeps it (without a token) from now on."""
    kept = load_kept(path)
    if kept is not None and kept.game == seat.game:
        console.print(f"Resuming your seat at {seat.game} (seat kept in {path})")
    else:
        console.print(
            f"Resuming the seat your account holds at {seat.game} "
            f"(kept from now on in {path})"
        )
    if kept != seat:
        save_seat(seat, path)
    return Table(seating, seat, created=False, path=path)


def _seating(
    connection: Connection, request: SeatRequest, console: Console
) -> Connection:
    """Returns the connection that takes a seat: a signed-in player's, or a guest's."""
    if request.guest:
        return connection
    account = sign_in(connection.channel, request.server, console, request.name)
    return connection if account is None else with_session(connection, account)


def _taken(
    connection: Connection,
    request: SeatRequest,
    seat: Seat,
    path: Path,
    console: Console,
) -> Table:
    """Keeps a seat just taken and says where; returns it presenting its token."""
    save_seat(seat, path)
    console.print(
        Text.assemble("Game ", (seat.game, "bold"), f"  you are {seat.player}")
    )
    console.print(
        f"Seat token saved to {path} (resume with: tabletop play --join "
        f"{seat.game.removeprefix('games/')})"
    )
    if seat.invite_code and not request.join:
        console.print(Text.assemble("Invite code: ", (seat.invite_code, "bold")))
        console.print(f"A friend joins with: {join_command(seat.game, seat)}")
    credentials = with_token(connection, seat.seat_token)
    return Table(credentials, seat, created=not request.join, path=path)


def join_command(game: str, seat: Seat, *, private: bool = True) -> str:
    """Returns the command line that takes a seat at the game."""
    line = f"tabletop play --join {game.removeprefix('games/')}"
    if seat.invite_code:
        return f"{line} --code {seat.invite_code}"
    return f"{line} --code CODE" if private else line


def _create(
    connection: Connection, request: SeatRequest, game_type: game_pb2.GameType
) -> Seat:
    visibility = game_pb2.VISIBILITY_PUBLIC
    if request.private:
        visibility = game_pb2.VISIBILITY_PRIVATE
    reply = connection.stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_type,
                max_players=request.players,
                visibility=visibility,
            ),
            display_name=request.name or DEFAULT_NAME,
            request_id=str(uuid.uuid4()),
        ),
        timeout=UNARY_TIMEOUT,
    )
    return Seat(
        reply.game.name,
        reply.player,
        reply.seat_token,
        request.server,
        reply.invite_code,
        name=_taken_name(request, reply.game, reply.player),
    )


def _join(connection: Connection, request: SeatRequest, name: str) -> Seat:
    if request.game_type:
        wanted = game_type_of(request.game_type, catalogue(connection))
        if get_game(connection, name).game_type != wanted:
            raise ClientError(f"{name} is not a game of {request.game_type}")
    reply = connection.stub.JoinGame(
        game_service_pb2.JoinGameRequest(
            name=name,
            display_name=request.name or DEFAULT_NAME,
            request_id=str(uuid.uuid4()),
            invite_code=request.invite_code,
        ),
        timeout=UNARY_TIMEOUT,
    )
    private = reply.game.visibility == game_pb2.VISIBILITY_PRIVATE
    code = request.invite_code if private else ""
    taken = _taken_name(request, reply.game, reply.player)
    return Seat(
        reply.game.name,
        reply.player,
        reply.seat_token,
        request.server,
        code,
        name=taken,
    )


def _taken_name(request: SeatRequest, game: game_pb2.Game, player: str) -> str:
    """Returns the name a seat is kept under: ``--name``, else the one shown."""
    return request.name or names_of(game).get(player, DEFAULT_NAME)


def start_game(table: Table) -> None:
    """Starts the game (the host does, once enough players sit); raises refusals."""
    table.connection.stub.StartGame(
        game_service_pb2.StartGameRequest(
            name=table.seat.game, request_id=str(uuid.uuid4())
        ),
        metadata=table.connection.metadata,
        timeout=UNARY_TIMEOUT,
    )


@dataclass(frozen=True, slots=True)
class Lobby:
    """What the lobby screen says: who sits, how others join, who starts."""

    game: game_pb2.Game
    seat: Seat
    wanted: int  # the players the host starts the game at
    can_start: bool  # enough players sit for the host to start now


def lobby_text(lobby: Lobby) -> Text:
    """Returns who sits, how others join and what the table waits for."""
    game, seat = lobby.game, lobby.seat
    seated = ", ".join(p.display_name for p in game.players)
    out = Text.assemble(("Waiting for players: ", "bold"), f"{len(game.players)}/")
    out.append(f"{lobby.wanted} seated ({seated})\n")
    private = game.visibility == game_pb2.VISIBILITY_PRIVATE
    if private and seat.invite_code:
        out.append("Private table; invite code: ")
        out.append(f"{seat.invite_code}\n", style="bold")
    elif private:
        out.append("Private table: others need the invite code its host shared\n")
    command = join_command(game.name, seat, private=private)
    out.append(f"Others join with: {command}")
    host = names_of(game).get(game.host, "the host")
    if game.host != seat.player:
        out.append(f"\nWaiting for the host, {host}, to start the game.")
    else:
        out.append(f"\nYou are the host: the game starts when {lobby.wanted} sit.")
        if lobby.can_start:
            out.append(f"\ns: start now with {len(game.players)}", style="bold")
    out.append("\nq quits (your seat is kept).", style="dim")
    return out


def seat_after_leaving(me: str, left: str) -> str | None:
    """Returns the caller's player name once ``left`` gave up a seat.

    The seats after a seat given up move down by one; None when it was the
    caller's own (the host removed it, or it left from elsewhere).
    """
    if left == me:
        return None
    mine, theirs = seat_of(me), seat_of(left)
    if 0 <= theirs < mine:
        return f"{me.rsplit('/', 1)[0]}/{mine - 1}"
    return me


def seat_file(request: SeatRequest, game: str) -> Path:
    """Returns where the seat of a game is kept for this request."""
    return seat_path(game, request.seat_token_file)
