"""The receipt ``tabletop play`` keeps, against a real server and PostgreSQL: the
seat file holds the record digest of the latest revision the client saw, and
``tabletop audit verify --kept-receipts`` checks the operator's export against it.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tabletop.v1 import game_audit_service_pb2 as audit_api
from tabletop.v1 import game_audit_service_pb2_grpc, game_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.cli import main
from tests.e2e.client import auth, get, legal_moves, seat_of, submit
from tests.e2e.conftest import Server, start_server
from tests.e2e.terminal_screen import Screen, spawn
from tests.pg import fresh_schema

CONFIRM = "Resign? The server's bot will play your seat. y/n"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server with an operator credential for the module."""
    with fresh_schema() as url:
        running = start_server(url, dev=True, operator_token=secrets.token_hex(16))
        yield running
        assert running.stop() == 0


def _seat_file(state: Path, name: str) -> Path:
    return state / "tabletop" / "seats" / f"{name.removeprefix('games/')}.json"


def _kept(state: Path, name: str) -> tuple[int, str]:
    """Returns the receipt kept in the game's seat file."""
    data = json.loads(_seat_file(state, name).read_text())
    return data["receipt_revision"], data["receipt_digest"]


def _export(server: Server, name: str, path: Path) -> str:
    """Writes the operator's export of a game to ``path``; returns the public key."""
    audit = game_audit_service_pb2_grpc.GameAuditServiceStub(server.channel)
    assert server.operator_token is not None
    reply = audit.ExportGame(
        audit_api.ExportGameRequest(name=name),
        metadata=auth(server.operator_token),
        timeout=30,
    )
    path.write_text(reply.records, encoding="utf-8")
    key = audit.GetSigningKey(audit_api.GetSigningKeyRequest(), timeout=10)
    return key.text


def _verify(
    path: Path,
    key: str,
    state: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str]:
    """Runs ``tabletop audit verify --kept-receipts`` with the seats kept under
    ``state``; returns the exit status and the output."""
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    capsys.readouterr()
    status = main(
        ["audit", "verify", str(path), "--public-key", key, "--kept-receipts"]
    )
    return status, capsys.readouterr().out


def _tamper(state: Path, name: str) -> int:
    """Alters the kept digest's last hex digit; returns the receipt's revision."""
    path = _seat_file(state, name)
    data = json.loads(path.read_text())
    digest = data["receipt_digest"]
    data["receipt_digest"] = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    path.write_text(json.dumps(data))
    return int(data["receipt_revision"])


def _play_first_move(screen: Screen, server: Server, name: str, token: str) -> None:
    """Waits for the terminal's turn, plays move 1 and waits for the server to
    take it."""
    if not screen.last_screen().endswith("your move> "):
        screen.expect("your move> ", timeout=30)
    revision, _ = legal_moves(server.stub, name, token)
    screen.child.sendline("1")
    deadline = time.monotonic() + 30
    while get(server.stub, name).revision <= revision:
        assert time.monotonic() < deadline, "the move did not reach the server"
        time.sleep(0.05)


def _shown_now(screen: Screen, server: Server, name: str) -> game_pb2.Game:
    """Waits for the screen drawn at the game's current revision; returns the game."""
    game = get(server.stub, name)
    while f"revision {game.revision}, move " not in screen.last_screen():
        screen.expect(r"(your move|\(q quits\))> ", timeout=30)
    return game


def test_play_to_the_end_keeps_the_last_digest_and_audit_verify_checks_it(
    server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state = tmp_path / "state"
    screen = spawn(
        server,
        state,
        *("play", "qwirkle", "--bots", "1", "--bot-delay", "0", "--name", "Ana"),
    )
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    token = json.loads(_seat_file(state, name).read_text())["seat_token"]
    screen.expect("Qwirkle  games/")
    _play_first_move(screen, server, name, token)
    # Resigning hands the seat to the server's bot, which plays to the end.
    screen.child.sendline("r")
    screen.expect(re.escape(CONFIRM))
    screen.child.sendline("y")
    screen.expect("Final scores: ", timeout=120)
    assert screen.finish() == 0

    game = get(server.stub, name)
    assert game.state == game_pb2.GAME_STATE_FINISHED
    assert game.record_digest
    assert _kept(state, name) == (game.revision, game.record_digest)

    exported = tmp_path / "game.jsonl"
    key = _export(server, name, exported)
    status, out = _verify(exported, key, state, monkeypatch, capsys)
    assert status == 0, out
    assert f"1 receipt(s) kept for {name}" in out
    assert "1 of 1 matched" in out
    assert "RESULT: VERIFIED" in out

    revision = _tamper(state, name)
    status, out = _verify(exported, key, state, monkeypatch, capsys)
    assert status == 1, out
    assert f"revision {revision}: the receipt's digest" in out
    assert "0 of 1 matched" in out
    assert "NOT VERIFIED" in out


def test_a_client_that_quits_mid_game_kept_the_digest_it_was_shown_last(
    server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state = tmp_path / "state"
    screen = spawn(
        server, state, *("play", "qwirkle", "--players", "2", "--name", "Ana")
    )
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    ana = json.loads(_seat_file(state, name).read_text())["seat_token"]
    screen.expect(r"Waiting for players: 1/2 seated \(Ana\)")
    lobby = get(server.stub, name)
    assert _kept(state, name) == (lobby.revision, lobby.record_digest)
    ben = server.stub.JoinGame(
        api.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    ).seat_token
    screen.expect("Qwirkle  games/")
    for _ in range(3):
        game = get(server.stub, name, ana)
        if seat_of(game.current_player) == 0:
            _play_first_move(screen, server, name, ana)
        else:
            revision, moves = legal_moves(server.stub, name, ben)
            submit(server.stub, name, ben, moves[0], expected_revision=revision)
        _shown_now(screen, server, name)
    game = _shown_now(screen, server, name)
    screen.child.sendline("q")
    assert screen.finish() == 0
    assert _kept(state, name) == (game.revision, game.record_digest)

    exported = tmp_path / "in-progress.jsonl"
    key = _export(server, name, exported)
    status, out = _verify(exported, key, state, monkeypatch, capsys)
    assert "1 of 1 matched" in out, out
    assert "NOT VERIFIED" not in out
    assert status == 0, out


def test_a_spectator_keeps_no_receipt(server: Server, tmp_path: Path) -> None:
    created = server.stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE, max_players=2),
            display_name="Ana",
        ),
        timeout=10,
    )
    name = created.game.name
    screen = spawn(server, tmp_path, "spectate", name)
    screen.expect("spectating; q quits")
    screen.child.sendline("q")
    assert screen.finish() == 0
    assert not (tmp_path / "tabletop").exists()
