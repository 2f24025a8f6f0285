"""Which kept seat is the caller's: the same person's is resumed, another's is not.

Two people may play at one table from one machine. A seat kept in the game's
seat file is resumed by ``tabletop play --join`` without ``--name``, with the
name the seat was taken under, or with ``--resume``; another ``--name`` is
another person, who takes a seat of their own (``seats.named_seat_path``).
"""

from __future__ import annotations

from pathlib import Path

import grpc
from tabletop.v1 import game_pb2, game_service_pb2

from infra.terminal.connection import (
    UNARY_TIMEOUT,
    ClientError,
    Connection,
    with_token,
)
from infra.terminal.render_common import names_of
from infra.terminal.seats import Seat, load_kept


def kept_at(path: Path, name: str, server: str) -> Seat | None:
    """Returns the seat kept at ``path`` if it is one at game ``name``.

    Refuses one kept for another server than ``server``: its tokens go to the
    server they were kept for only. Anybody may name a game a player sits at
    and ask them to join it elsewhere, and that server would be given the
    tokens to play the seat with where it is.
    """
    kept = load_kept(path)
    if kept is None or kept.game != name:
        return None
    check_server(kept, path, server)
    return kept


def check_server(kept: Seat, path: Path, server: str) -> None:
    """Refuses to use a seat kept at ``path`` with another server than its own."""
    if kept.server != server:
        raise ClientError(
            f"your seat at {kept.game} is kept for {kept.server} ({path}), and its "
            f"tokens go to that server only, not to {server}: play it with "
            f"--server {kept.server}"
        )


def same_name(wanted: str | None, name: str, *, resume: bool = False) -> bool:
    """Tells whether a seat taken under ``name`` is the caller's to resume, the
    caller asking for ``wanted`` (``--name``) or, with ``resume``, for the kept
    seat whatever its name; a seat whose name is not known is."""
    if resume or not wanted or not name:
        return True
    return name.strip().casefold() == wanted.strip().casefold()


def same_player(
    connection: Connection, kept: Seat, wanted: str | None, *, resume: bool = False
) -> bool:
    """Tells whether a kept seat is the caller's; for a seat file kept before
    seats had names, the server tells the seat's display name."""
    if resume or not wanted:
        return True
    if kept.name or not kept.seat_token:
        return same_name(wanted, kept.name)
    seated = with_token(connection, kept.seat_token)
    return same_name(wanted, shown_name(seated, kept.game))


def shown_name(connection: Connection, name: str) -> str:
    """Returns the display name the server shows for the caller's seat at game
    ``name``; empty when it shows none."""
    game = caller_game(connection, name)
    if game is None:
        return ""
    return names_of(game).get(game.caller, "")


def held_seat(seating: Connection, name: str) -> tuple[str, str]:
    """Returns the seat the signed-in player holds in a game and the name it is
    shown under; empty strings if none."""
    if seating.session is None:
        return "", ""
    game = caller_game(seating, name)
    if game is None or not game.caller:
        return "", ""
    return game.caller, names_of(game).get(game.caller, "")


def caller_game(connection: Connection, name: str) -> game_pb2.Game | None:
    """Returns the game as the connection's caller sees it; None if refused."""
    try:
        return connection.stub.GetGame(
            game_service_pb2.GetGameRequest(
                name=name, view=game_service_pb2.GAME_VIEW_BASIC
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        ).game
    except grpc.RpcError:  # joining or resuming tells what is wrong with the game
        return None
