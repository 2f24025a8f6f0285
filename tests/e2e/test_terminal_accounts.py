"""The terminal client signed in with the device id it keeps per server, against a
real server and PostgreSQL: the tables it opens are bound to the account,
``tabletop games`` finds them again (ListMyGames) and ``tabletop play --join``
resumes them with the session when their seat file is gone; another device id
is another player, ``--guest`` takes a seat of nobody's account, and a session
the server no longer accepts is refreshed.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, get, legal_moves, seat_of, submit
from tests.e2e.conftest import Server, start_server
from tests.e2e.terminal_screen import Screen, spawn
from tests.pg import fresh_schema

pytestmark = pytest.mark.e2e

UNLIMITED = ("--sign-in-rate-limit", "0")
ANY_PROMPT = r"(your move|\(q quits\))> "
WAIT_SECONDS = 15


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server for the module, signing in without a limit."""
    with fresh_schema() as url:
        running = start_server(url, dev=True, options=UNLIMITED)
        yield running
        assert running.stop() == 0


def _id(name: str) -> str:
    return name.removeprefix("games/")


def _device_file(state: Path, server: Server) -> Path:
    """Returns where the client keeps its device id for the server."""
    host, port = server.address.rsplit(":", 1)
    return state / "tabletop" / "accounts" / f"{host}_{port}.json"


def _device_id(state: Path, server: Server) -> str:
    return str(json.loads(_device_file(state, server).read_text())["device_id"])


def _seat_file(state: Path, name: str) -> Path:
    return state / "tabletop" / "seats" / f"{_id(name)}.json"


def _access_token(server: Server, device_id: str) -> str:
    """Signs in from the test as the device's player; returns an access token."""
    stub = auth_service_pb2_grpc.AuthServiceStub(server.channel)
    request = auth_api.SignInWithDeviceRequest(device_id=device_id)
    reply = stub.SignInWithDevice(request, timeout=10)
    assert not reply.created, "the client created this player already"
    return reply.session.access_token


def _my_games(server: Server, token: str) -> list[str]:
    """Returns the names of the signed-in player's games, every page."""
    names: list[str] = []
    page = ""
    while True:
        reply = server.stub.ListMyGames(
            api.ListMyGamesRequest(page_token=page), metadata=auth(token), timeout=10
        )
        names += [game.game for game in reply.games]
        page = reply.next_page_token
        if not page:
            return names


def _games(server: Server, state: Path, *args: str) -> str:
    """Runs ``tabletop games`` with the client's files under ``state``; its output."""
    env = dict(os.environ, XDG_STATE_HOME=str(state), COLUMNS="250")
    done = subprocess.run(  # noqa: S603 (our own CLI)
        [sys.executable, "-m", "infra.cli", "games", "--server", server.address, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


def _row(shown: str, name: str) -> str:
    """Returns the line of ``tabletop games`` that lists a game."""
    return next((line for line in shown.splitlines() if _id(name) in line), "")


def _listed(server: Server, state: Path, name: str, wanted: str) -> str:
    """Runs ``tabletop games`` until the game's row shows ``wanted`` (ListMyGames
    reads a view that follows the log); returns the output."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        shown = _games(server, state)
        if wanted in _row(shown, name) or time.monotonic() > deadline:
            return shown
        time.sleep(0.2)


def _open(server: Server, state: Path, *args: str) -> tuple[str, Screen]:
    """Runs ``tabletop play qwirkle ARGS``; returns the game and the screen at
    the lobby."""
    screen = spawn(server, state, "play", "qwirkle", *args)
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    screen.expect(r"\(q quits\)> ")
    return name, screen


def _quit(screen: Screen) -> None:
    screen.child.sendline("q")
    assert screen.finish() == 0


def _start_at_anas_turn(server: Server, state: Path, name: str) -> str:
    """Seats Ben (stubs) beside Ana, the terminal's seat 0, starts the game with
    Ana's kept token and lets Ben open if he is first; returns Ben's token."""
    ana = json.loads(_seat_file(state, name).read_text())["seat_token"]
    ben = server.stub.JoinGame(
        api.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    ).seat_token
    server.stub.StartGame(api.StartGameRequest(name=name), metadata=auth(ana))
    if seat_of(get(server.stub, name).current_player) == 1:
        revision, moves = legal_moves(server.stub, name, ben)
        submit(server.stub, name, ben, moves[0], expected_revision=revision)
    return ben


def test_a_signed_in_table_is_listed_and_resumed_without_its_seat_file(
    server: Server, tmp_path: Path
) -> None:
    name, screen = _open(server, tmp_path, "--players", "2", "--name", "Ana")
    assert "Signed in as Ana (a new player on this server)" in screen.text
    _quit(screen)
    device = _device_file(tmp_path, server)
    assert stat.S_IMODE(device.stat().st_mode) == 0o600
    device_id = _device_id(tmp_path, server)
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", device_id)
    token = _access_token(server, device_id)
    assert get(server.stub, name, token).caller == f"{name}/players/0"  # the account's
    _start_at_anas_turn(server, tmp_path, name)
    _seat_file(tmp_path, name).unlink()

    shown = _listed(server, tmp_path, name, "your turn")
    row = _row(shown, name)
    assert "Your games" in shown
    for words in ("Qwirkle", "playing", "seat 0", "your turn", "Ana 0", "Ben"):
        assert words in row, shown

    screen = spawn(server, tmp_path, "play", "--join", _id(name))
    screen.expect(re.escape(f"Resuming the seat your account holds at {name}"))
    screen.expect("your move> ")
    screen.child.sendline("1")
    screen.expect(r"r\d+: Ana (placed|exchanged)")
    screen.expect(ANY_PROMPT)
    _quit(screen)
    kept = _seat_file(tmp_path, name)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    seat = json.loads(kept.read_text())
    assert (seat["player"], seat["seat_token"]) == (f"{name}/players/0", "")

    again = spawn(server, tmp_path, "play", "--join", _id(name))  # kept from now on
    again.expect(re.escape(f"Resuming your seat at {name}"))
    again.expect(ANY_PROMPT)
    _quit(again)
    for text in (screen.text, again.text, shown):
        assert device_id not in text
        assert "Bearer" not in text


def test_another_device_id_is_another_player(server: Server, tmp_path: Path) -> None:
    ana, ben = tmp_path / "ana", tmp_path / "ben"
    name, screen = _open(server, ana, "--players", "3", "--name", "Ana")
    _quit(screen)
    screen = spawn(server, ben, "play", "--join", _id(name), "--name", "Ben")
    screen.expect(re.escape("Signed in as Ben (a new player on this server)"))
    screen.expect(r"Waiting for players: 2/3 seated \(Ana, Ben\)")
    _quit(screen)
    ana_id, ben_id = _device_id(ana, server), _device_id(ben, server)
    assert ana_id != ben_id
    assert get(server.stub, name, _access_token(server, ana_id)).caller.endswith("/0")
    assert get(server.stub, name, _access_token(server, ben_id)).caller.endswith("/1")

    # The device's player keeps the name it was created with.
    other, screen = _open(server, ana, "--players", "2", "--name", "Anna")
    assert "Signed in as Ana" in screen.text
    assert "--name names a new player only" in screen.text
    assert "Waiting for players: 1/2 seated (Ana)" in screen.text
    _quit(screen)
    assert [p.display_name for p in get(server.stub, other).players] == ["Ana"]


def test_a_guest_takes_a_seat_of_no_account(server: Server, tmp_path: Path) -> None:
    guest, screen = _open(server, tmp_path, "--players", "2", "--guest", "--name", "Cy")
    _quit(screen)
    assert "Signed in" not in screen.text
    assert not (tmp_path / "tabletop" / "accounts").exists()
    token = json.loads(_seat_file(tmp_path, guest).read_text())["seat_token"]
    assert get(server.stub, guest, token).caller == f"{guest}/players/0"

    signed, screen = _open(server, tmp_path, "--players", "2", "--name", "Cy")
    _quit(screen)
    account = _access_token(server, _device_id(tmp_path, server))
    assert get(server.stub, guest, account).caller == ""  # not the account's seat
    assert get(server.stub, signed, account).caller == f"{signed}/players/0"
    deadline = time.monotonic() + WAIT_SECONDS
    while signed not in (mine := _my_games(server, account)):
        assert time.monotonic() < deadline, "ListMyGames never listed the table"
        time.sleep(0.1)
    assert guest not in mine

    shown = _games(server, tmp_path, "--guest")
    assert "Your games" not in shown
    assert _id(guest) in shown  # a kept seat, under "Your tables"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_session_the_restarted_server_refuses_is_refreshed(tmp_path: Path) -> None:
    listen = f"127.0.0.1:{_free_port()}"
    with fresh_schema() as url:
        first = start_server(url, dev=True, listen=listen, options=UNLIMITED)
        try:
            name, screen = _open(first, tmp_path, "--players", "2", "--name", "Ana")
            _quit(screen)
            ben = _start_at_anas_turn(first, tmp_path, name)
            _seat_file(tmp_path, name).unlink()
            screen = spawn(first, tmp_path, "play", "--join", _id(name))
            screen.expect("Resuming the seat your account holds")
            screen.expect("your move> ")
            screen.child.sendline("1")
            screen.expect(r"r\d+: Ana (placed|exchanged)")
            screen.expect("waiting for Ben")
        finally:
            assert first.stop() == 0
        # Without --session-key-file the new process signs access tokens with a
        # new key: the client's is refused (INVALID_CREDENTIALS) until renewed.
        second = start_server(url, dev=True, listen=listen, options=UNLIMITED)
        try:
            revision, moves = legal_moves(second.stub, name, ben)
            submit(second.stub, name, ben, moves[0], expected_revision=revision)
            screen.expect(r"r\d+: Ben (placed|exchanged)", timeout=30)  # the feed
            screen.expect("your move> ")
            screen.child.sendline("1")
            screen.expect(r"r\d+: Ana (placed|exchanged)")
            screen.expect("waiting for Ben")
            _quit(screen)
            assert "UNAUTHENTICATED" not in screen.text
        finally:
            assert second.stop() == 0
