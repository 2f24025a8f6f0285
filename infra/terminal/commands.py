"""The ``play``, ``spectate``, ``replay`` and ``games`` subcommands of ``tabletop``.

Adding them imports only ``argparse`` and the generated game types (for the
help's list of games); running one imports the client, so ``tabletop serve``
does not load it.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from infra.terminal.games import NAMES, spelled

if TYPE_CHECKING:
    from rich.console import Console

    from infra.terminal.lobby import SeatRequest

COMMANDS = ("play", "spectate", "replay", "games")
# What `tabletop serve` listens on by default (infra/settings.py, DEFAULT_LISTEN).
DEFAULT_SERVER = "127.0.0.1:50051"
INTERRUPTED = 130


def default_server() -> str:
    """Returns the server address: ``TABLETOP_SERVER`` or the serve default."""
    return os.environ.get("TABLETOP_SERVER", "").strip() or DEFAULT_SERVER


def server_option(parser: argparse.ArgumentParser) -> None:
    """Adds ``--server`` to a client subcommand's parser."""
    parser.add_argument(
        "--server",
        default=default_server(),
        metavar="HOST:PORT",
        help="the server (env TABLETOP_SERVER, default %(default)s)",
    )


def guest_option(parser: argparse.ArgumentParser) -> None:
    """Adds ``--guest`` to a subcommand that signs in."""
    parser.add_argument(
        "--guest",
        action="store_true",
        help="do not sign in with this machine's device id: a seat taken is "
        "held by its seat token alone",
    )


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Adds the terminal client's subcommands to the ``tabletop`` parser."""
    play_parser = subparsers.add_parser(
        "play",
        help="play a game in the terminal",
        description="Create a game (or join one with --join), wait for the "
        "players, and play it in the terminal.",
    )
    known = ", ".join(spelled(name) for name in NAMES.values())
    play_parser.add_argument(
        "game_type",
        nargs="?",
        metavar="GAME_TYPE",
        help=f"the game to open: {known} (tabletop games lists the server's)",
    )
    server_option(play_parser)
    play_parser.add_argument(
        "--name",
        help="your display name: a guest's, or a new player's on its first "
        "sign-in; with --join, a name other than the kept seat's takes a new seat",
    )
    guest_option(play_parser)
    play_parser.add_argument(
        "--players",
        type=int,
        default=0,
        metavar="N",
        help="seats at a new table; it starts when N players sit "
        "(default: the game's most seats, started at its fewest players)",
    )
    play_parser.add_argument(
        "--bots",
        type=int,
        default=0,
        metavar="N",
        help="seat N bots at the new table, which then starts with you and them "
        "(unless --players asks for more); --join runs them again",
    )
    play_parser.add_argument(
        "--bot-delay",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long a bot thinks before each move (default %(default)s)",
    )
    play_parser.add_argument(
        "--private",
        action="store_true",
        help="create a private table: unlisted, joined only with the invite "
        "code it prints",
    )
    play_parser.add_argument(
        "--join", metavar="GAME_ID", help="join, or resume a kept seat at, a game"
    )
    play_parser.add_argument(
        "--resume",
        action="store_true",
        help="with --join: resume the seat kept for the game whatever --name says",
    )
    play_parser.add_argument(
        "--code",
        default="",
        metavar="CODE",
        help="with --join: the invite code of a private table, as its host shared it",
    )
    play_parser.add_argument(
        "--seat-token-file",
        metavar="PATH",
        help="where the seat token is kept (default "
        "$XDG_STATE_HOME/tabletop/seats/<game>.json, mode 0600)",
    )
    games_parser = subparsers.add_parser(
        "games",
        help="list your games and tables, and the open tables you may join",
        description="List the signed-in player's games (ListMyGames; your turn "
        "first), the tables whose seats this client kept (private ones included) "
        "and the public tables waiting for players.",
    )
    server_option(games_parser)
    guest_option(games_parser)
    for name, text in (
        ("spectate", "follow a game live until it finishes"),
        ("replay", "step through a game's revisions (n, p, g N, q)"),
    ):
        sub = subparsers.add_parser(name, help=text, description=text.capitalize())
        sub.add_argument("game_id", metavar="GAME_ID", help="games/<id> or <id>")
        server_option(sub)


def run(args: argparse.Namespace) -> int:
    """Runs one of the subcommands; errors become one line, never a traceback."""
    import grpc  # noqa: PLC0415 (see the module docstring)
    from rich.text import Text  # noqa: PLC0415

    from infra.terminal.connection import (  # noqa: PLC0415
        ClientError,
        describe_error,
        error_hint,
    )
    from infra.terminal.screen import make_console  # noqa: PLC0415

    console = make_console()
    try:
        return _dispatch(args, console)
    except ClientError as error:
        console.print(Text(f"tabletop: {error}", style="bold red"))
        return 2
    except grpc.RpcError as error:
        console.print(Text(f"\ntabletop: {describe_error(error)}", style="bold red"))
        if hint := error_hint(error):
            console.print(Text(hint))
        return 1
    except KeyboardInterrupt:
        console.print()
        return INTERRUPTED


def _dispatch(args: argparse.Namespace, console: Console) -> int:
    from infra.terminal.lines import LineReader  # noqa: PLC0415
    from infra.terminal.play import play  # noqa: PLC0415
    from infra.terminal.replay import replay  # noqa: PLC0415
    from infra.terminal.spectate import spectate  # noqa: PLC0415

    if args.command == "games":
        from infra.terminal.connection import connect  # noqa: PLC0415
        from infra.terminal.tables import list_tables  # noqa: PLC0415

        return list_tables(connect(args.server), args.server, console, args.guest)
    reader = LineReader(0)  # standard input
    if args.command == "spectate":
        return spectate(args.server, args.game_id, console, reader)
    if args.command == "replay":
        return replay(args.server, args.game_id, console, reader)
    return play(_seat_request(args), console, reader)


def _seat_request(args: argparse.Namespace) -> SeatRequest:
    from infra.terminal.connection import ClientError  # noqa: PLC0415
    from infra.terminal.lobby import SeatRequest  # noqa: PLC0415

    if not args.game_type and not args.join:
        raise ClientError(
            "name a game to create (tabletop games lists them) or --join GAME_ID"
        )
    if args.players < 0 or args.bots < 0 or args.bot_delay < 0:
        raise ClientError("--players, --bots and --bot-delay must not be negative")
    if args.bots and args.join:
        raise ClientError(
            "--bots seats bots at a new table; --join runs the bots kept with "
            "your seat again by itself"
        )
    if args.private and args.join:
        raise ClientError(
            "--private opens a new table; a table to --join is private or not already"
        )
    if args.code and not args.join:
        raise ClientError("--code goes with --join GAME_ID")
    if args.resume and not args.join:
        raise ClientError("--resume goes with --join GAME_ID")
    return SeatRequest(
        server=args.server,
        game_type=args.game_type,
        name=args.name,
        players=args.players or (args.bots + 1 if args.bots else 0),
        join=args.join,
        seat_token_file=args.seat_token_file,
        bots=args.bots,
        bot_delay=args.bot_delay,
        private=args.private,
        invite_code=args.code.strip(),
        guest=args.guest,
        resume=args.resume,
    )
