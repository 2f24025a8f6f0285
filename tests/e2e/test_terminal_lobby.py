"""``tabletop games``, the terminal's lobby, against a real server and PostgreSQL:
it shows the open public tables and the caller's own tables, and never a
private table the caller does not sit at, nor a closed one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.terminal.seats import Seat, save_seat
from tests.e2e.client import auth
from tests.e2e.conftest import Server

QWIRKLE = game_pb2.GAME_TYPE_QWIRKLE


def _create(server: Server, name: str, *, private: bool) -> api.CreateGameResponse:
    visibility = game_pb2.VISIBILITY_PRIVATE if private else game_pb2.VISIBILITY_PUBLIC
    return server.stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=QWIRKLE, max_players=3, visibility=visibility),
            display_name=name,
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )


def _lobby(server: Server, state: Path) -> str:
    """Runs ``tabletop games`` with the seats kept under ``state``; its output."""
    env = dict(os.environ, XDG_STATE_HOME=str(state), COLUMNS="200")
    done = subprocess.run(  # noqa: S603 (our own CLI)
        [sys.executable, "-m", "infra.cli", "games", "--server", server.address],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


def _id(name: str) -> str:
    return name.removeprefix("games/")


def test_the_lobby_shows_only_what_the_caller_may_see(
    server: Server, tmp_path: Path
) -> None:
    public = _create(server, "Ana", private=False)
    theirs = _create(server, "Ben", private=True)  # a table of somebody else's
    mine = _create(server, "Cy", private=True)
    closed = _create(server, "Dee", private=False)
    server.stub.LeaveGame(
        api.LeaveGameRequest(name=closed.game.name),
        metadata=auth(closed.seat_token),
        timeout=10,
    )
    me = tmp_path / "me"
    kept = Seat(mine.game.name, mine.player, mine.seat_token, server.address, name="Cy")
    save_seat(kept, me / "tabletop" / "seats" / f"{_id(mine.game.name)}.json")

    shown = _lobby(server, me)
    assert _id(public.game.name) in shown
    assert _id(mine.game.name) in shown  # under the caller's own tables
    assert "(ask the host)" in shown  # its code was not kept: only the host has it
    assert "seat 0 (Cy, host)" in shown  # the name the seat is kept under
    assert _id(theirs.game.name) not in shown
    assert _id(closed.game.name) not in shown

    stranger = _lobby(server, tmp_path / "stranger")  # keeps no seat
    assert _id(public.game.name) in stranger
    assert _id(mine.game.name) not in stranger
    assert _id(theirs.game.name) not in stranger
    assert "Your tables" not in stranger
