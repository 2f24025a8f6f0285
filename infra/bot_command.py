"""``tabletop bot GAME_ID``: seat a bot at a table and let it play to the end.

Adding the subcommand imports only ``argparse``; running it imports the client.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from infra.terminal.commands import server_option

if TYPE_CHECKING:
    from tabletop.v1.game_service_pb2_grpc import GameServiceStub

    from infra.bot_client import BotSeat


def add_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Adds the ``bot`` subcommand to the ``tabletop`` parser."""
    parser = subparsers.add_parser(
        "bot",
        help="seat a bot at a game and let it play",
        description="Take the next free seat of a game that has not started (or "
        "an existing seat: the one kept in --seat-token-file, or with --seat N "
        "one kept by `tabletop play` on this machine, the player's own or one of "
        "the bots `tabletop play --bots` seated) and play it with the game's bot "
        "until the game ends.",
    )
    parser.add_argument("game", metavar="GAME_ID", help="games/<id> or <id>")
    server_option(parser)
    parser.add_argument("--name", default="Bot", help="the bot's display name")
    parser.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="the seat to play: taken if it is the next free one, else played "
        "with the token kept for it (the player's or a kept bot's)",
    )
    parser.add_argument(
        "--code",
        default="",
        metavar="CODE",
        help="the invite code of a private table (its host has it)",
    )
    parser.add_argument(
        "--seat-token-file",
        metavar="PATH",
        help="play the seat whose token `tabletop play` kept in this file",
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="thinking time before each move, so people can follow "
        "(default %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    """Runs ``tabletop bot``; returns the exit status."""
    import grpc  # noqa: PLC0415 (see the module docstring)
    from tabletop.v1.game_service_pb2_grpc import GameServiceStub  # noqa: PLC0415

    from infra.bot_client import play_seat  # noqa: PLC0415
    from infra.terminal.connection import (  # noqa: PLC0415
        ClientError,
        describe_error,
        game_name,
    )

    channel = grpc.insecure_channel(args.server)
    try:
        name = game_name(args.game)
        stub = GameServiceStub(channel)
        seat, index = _seat(stub, name, args)
        print(f"tabletop: {args.name} plays seat {index} of {name}", flush=True)  # noqa: T201
        moves = play_seat(seat, delay=args.delay)
    except ClientError as error:
        print(f"tabletop: {error}", file=sys.stderr)  # noqa: T201
        return 2
    except grpc.RpcError as error:
        print(f"tabletop: {describe_error(error)}", file=sys.stderr)  # noqa: T201
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        channel.close()
    print(f"tabletop: the game is over; {args.name} made {moves} moves")  # noqa: T201
    return 0


def _seat(
    stub: GameServiceStub, name: str, args: argparse.Namespace
) -> tuple[BotSeat, int]:
    """Returns the bot's seat: a kept one, or the next free seat, joined."""
    from tabletop.v1 import game_pb2  # noqa: PLC0415
    from tabletop.v1 import game_service_pb2 as api  # noqa: PLC0415

    from infra.bot_client import CALL_SECONDS, BotSeat, join_as_bot  # noqa: PLC0415
    from infra.terminal.connection import ClientError  # noqa: PLC0415
    from infra.terminal.kept_seats import kept_at  # noqa: PLC0415
    from infra.terminal.render_common import seat_of  # noqa: PLC0415
    from infra.terminal.seats import seat_path  # noqa: PLC0415

    kept = kept_at(seat_path(name, args.seat_token_file), name, args.server)
    if kept is not None:
        index = int(kept.player.rsplit("/", 1)[1])
        # The player's own kept seat is played only when asked for: by its
        # number, or by naming its file; a bare `tabletop bot GAME_ID` on the
        # player's machine adds a bot instead of taking the player's seat.
        asked = args.seat == index or (args.seat is None and args.seat_token_file)
        if kept.seat_token and asked:
            return BotSeat(stub, name, kept.seat_token), index
        for bot in kept.bots:
            seat = _kept_bot(stub, name, bot.seat_token)
            if seat is not None and seat_of(seat.player) == args.seat:
                return seat, args.seat
    if args.seat_token_file:
        which = "no seat" if args.seat is None else f"no seat {args.seat}"
        msg = f"{args.seat_token_file} holds {which} of {name}"
        raise ClientError(msg)
    game = stub.GetGame(
        api.GetGameRequest(name=name, view=api.GAME_VIEW_BASIC), timeout=CALL_SECONDS
    ).game
    free = len(game.players)
    if game.state != game_pb2.GAME_STATE_WAITING_FOR_PLAYERS or (
        args.seat is not None and args.seat != free
    ):
        wanted = "a seat" if args.seat is None else f"seat {args.seat}"
        msg = (
            f"cannot take {wanted} of {name}: it has started or the seat is taken, "
            "and no token for it is kept here (--seat-token-file)"
        )
        if kept is not None and kept.seat_token and args.seat is None:
            mine = seat_of(kept.player)
            msg += f"; your seat {mine} is kept here: --seat {mine} hands it to the bot"
        raise ClientError(msg)
    return join_as_bot(stub, name, args.name, args.code)


def _kept_bot(stub: GameServiceStub, name: str, token: str) -> BotSeat | None:
    """Returns a kept bot's seat where it sits now; None when its token no
    longer works (the seat was given up)."""
    import grpc  # noqa: PLC0415
    from tabletop.v1 import game_service_pb2 as api  # noqa: PLC0415

    from infra.bot_client import CALL_SECONDS, BotSeat  # noqa: PLC0415

    seat = BotSeat(stub, name, token)
    try:
        game = stub.GetGame(
            api.GetGameRequest(name=name, view=api.GAME_VIEW_BASIC),
            metadata=seat.metadata,
            timeout=CALL_SECONDS,
        ).game
    except grpc.RpcError:
        return None
    return BotSeat(stub, name, token, game.caller)
