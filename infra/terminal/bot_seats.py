"""The bots of ``tabletop play --bots``: how many may sit, their kept seats, and
what quitting leaves behind.

The bots play inside the ``play`` process (``infra/bot_client.py``), so their
seat tokens are kept in the player's seat file (``infra/terminal/seats.py``):
``tabletop play --join`` runs them again, and ``tabletop bot GAME_ID --seat N``
plays one of them from elsewhere. When the player quits, the game waits for
them all; the client says so, and how to resume.
"""

from __future__ import annotations

import shlex
import threading
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from tabletop.v1 import game_pb2, game_type_pb2
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from infra.bot_client import BotSeat, play_bots, seat_bots
from infra.terminal.connection import ClientError, Connection
from infra.terminal.games import display_name
from infra.terminal.render_common import seat_of
from infra.terminal.seats import KeptBot, Seat, named_seat_path, seat_path

ONGOING = (game_pb2.GAME_STATE_WAITING_FOR_PLAYERS, game_pb2.GAME_STATE_IN_PROGRESS)


def check_seats(
    bots: int, players: int, info: game_type_pb2.GameTypeInfo | None
) -> None:
    """Refuses a table the game cannot seat, naming the flag to change.

    ``players`` is the table's size, ``bots + 1`` unless ``--players`` asked for
    another; 0 leaves it to the server (the game's most seats).
    """
    if info is None or not players:
        return
    game = display_name(info.game_type, info)
    fewest, most = info.min_players, info.max_players
    by_bots = bots > 0 and players == bots + 1
    if players < bots + 1:
        raise ClientError(
            f"--players {players} leaves no seat for you and {bots} bots; "
            f"use --players {bots + 1} or more"
        )
    if players < fewest and by_bots:
        raise ClientError(
            f"--bots {bots}: {game} needs at least {fewest} players; use "
            f"--bots {fewest - 1} or more, or --players {fewest} to wait for "
            "other players too"
        )
    if players > most and by_bots:
        raise ClientError(
            f"--bots {bots}: {game} seats at most {most} players, you and "
            f"{most - 1} bots; use --bots {most - 1} or fewer"
        )
    if not fewest <= players <= most:
        raise ClientError(
            f"--players {players}: {game} is played by {fewest} to {most} players"
        )


def with_bots(connection: Connection, seat: Seat, count: int) -> Seat:
    """Seats ``count`` bots at the new table; returns the seat keeping theirs."""
    if not count:
        return seat
    stub = GameServiceStub(connection.channel)  # the bots' calls carry no session
    joined = seat_bots(stub, seat.game, count, seat.invite_code)
    return replace(seat, bots=tuple(KeptBot(b.player, b.token) for b in joined))


def run_bots(connection: Connection, seat: Seat, delay: float) -> threading.Event:
    """Lets the seat's kept bots play; set the event to stop them."""
    stub = GameServiceStub(connection.channel)
    bots = [BotSeat(stub, seat.game, b.seat_token, b.player) for b in seat.bots]
    return play_bots(bots, delay)


def resume_flags(seat: Seat, path: Path) -> str:
    """Returns what ``tabletop play --join GAME_ID`` needs added to find the
    seat kept at ``path`` again: nothing, ``--name`` or ``--seat-token-file``."""
    if seat.name and path == named_seat_path(seat.game, seat.name):
        return f" --name {shlex.quote(seat.name)}"
    return "" if path == seat_path(seat.game) else f" --seat-token-file {path}"


def left_text(
    game: game_pb2.Game, seat: Seat, *, resigned: bool, kept: str = ""
) -> Text | None:
    """Returns what the client says when the player quits a game that goes on.

    ``kept`` is the option that finds the seat file when it is not in the usual
    place: ``--name`` for a second person's, else ``--seat-token-file``.
    """
    if game.state not in ONGOING or (resigned and not seat.bots):
        return None
    game_id = game.name.removeprefix("games/")
    count = len(seat.bots)
    bots = f"{count} bot" + ("s" if count > 1 else "")
    if resigned:
        waits = f"the game waits for your {bots}"
    else:
        waits = "the game waits for you" + (f" (and your {bots})" if count else "")
    out = Text(f"You left the table; {waits}. ", style="bold")
    out.append(f"Resume with: tabletop play --join {game_id}{kept}", style="bold")
    if game.turn_time_limit.seconds:
        out.append(
            f"\nThe turn timer ({game.turn_time_limit.seconds} s) plays a move "
            "for any seat whose time runs out, yours and the bots' included."
        )
    if count:
        seats = ", ".join(str(seat_of(b.player)) for b in seat.bots)
        out.append(
            f"\nA bot's seat ({seats}) can play on from elsewhere: "
            f"tabletop bot {game_id} --seat {seat_of(seat.bots[0].player)}{kept}"
        )
    return out
