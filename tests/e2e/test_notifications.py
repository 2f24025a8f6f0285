"""Notifications through a real server: to a push gateway, and streamed.

A local HTTP server plays the deployment's push gateway: it checks each
request's signature, records it, and acknowledges it (or, for a while, does
not). Two signed-in players play whole games by the server's bot's moves
(SuggestMove); what the gateway must have received follows from the game as
the players saw it: one "your turn" each time the turn passed to a player,
one "player joined" for the host, one "game finished" each.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc, game_pb2
from tabletop.v1 import game_service_pb2 as api

from services.sessions import SessionKey
from tests.e2e.client import auth, expect_error
from tests.e2e.conftest import Server, start_server
from tests.pg import connect

pytestmark = pytest.mark.e2e

SECRET = secrets.token_hex(32)
WAIT_SECONDS = 60


@dataclass
class Gateway:
    """A push gateway on loopback that records what it is sent."""

    received: list[dict[str, Any]] = field(default_factory=list)
    attempts: int = 0
    failing: bool = False
    delay: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def keys(self) -> list[str]:
        with self.lock:
            return [item["idempotency_key"] for item in self.received]


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    state = Gateway()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            expected = (
                "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
            )
            assert hmac.compare_digest(self.headers["X-Tabletop-Signature"], expected)
            document = json.loads(body)
            assert self.headers["Idempotency-Key"] == document["idempotency_key"]
            with state.lock:
                state.attempts += 1
                failing, delay = state.failing, state.delay
            time.sleep(delay)
            if failing:
                self.send_response(503)
            else:
                with state.lock:
                    state.received.append(document)
                self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/push"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "push-secret"
    path.write_text(SECRET)
    return path


def _serve(
    url: str, gateway: Gateway, secret_file: Path, extra: Sequence[str] = ()
) -> Server:
    options = ["--notify-webhook", gateway.url]
    options += ["--notify-secret-file", str(secret_file)]
    options += ["--sign-in-rate-limit", "0", *extra]
    return start_server(url, dev=True, options=options)


def _sign_in(server: Server, name: str) -> Any:
    stub = auth_service_pb2_grpc.AuthServiceStub(server.channel)
    device = base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")
    request = auth_api.SignInWithDeviceRequest(device_id=device, display_name=name)
    return stub.SignInWithDevice(request, timeout=10).session


@dataclass
class Played:
    """A game two signed-in players played, and what they saw of its turns."""

    game: str
    players: list[str]  # players/{id} by seat
    turns: list[int]  # the seat to move, each time it changed


def _play(
    servers: list[Server], tokens: list[str], players: list[str], moves: int | None
) -> Played:
    """Opens a Qwirkle table, seats both, and plays bot moves (all, or ``moves``)."""
    stub = servers[0].stub
    created = stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE), display_name="x"
        ),
        metadata=auth(tokens[0]),
        timeout=10,
    )
    game = created.game.name
    stub.JoinGame(
        api.JoinGameRequest(name=game, display_name="x"),
        metadata=auth(tokens[1]),
        timeout=10,
    )
    current = stub.StartGame(
        api.StartGameRequest(name=game), metadata=auth(tokens[0]), timeout=10
    ).game
    turns: list[int] = []
    played = 0
    while current.state == game_pb2.GAME_STATE_IN_PROGRESS and (
        moves is None or played < moves
    ):
        seat = int(current.current_player.rsplit("/", 1)[1])
        if not turns or turns[-1] != seat:
            turns.append(seat)
        through = servers[played % len(servers)].stub
        move = through.SuggestMove(
            api.SuggestMoveRequest(name=game), metadata=auth(tokens[seat]), timeout=10
        ).move
        current = through.SubmitMove(
            api.SubmitMoveRequest(name=game, move=move, view=api.GAME_VIEW_BASIC),
            metadata=auth(tokens[seat]),
            timeout=10,
        ).game
        played += 1
    if current.state == game_pb2.GAME_STATE_IN_PROGRESS:  # whose turn it is now
        seat = int(current.current_player.rsplit("/", 1)[1])
        if turns[-1] != seat:
            turns.append(seat)
    return Played(game, players, turns)


def _expected(played: Played, *, finished: bool) -> Counter[tuple[str, str]]:
    """Returns what the gateway must receive: (player, kind) counted."""
    expected: Counter[tuple[str, str]] = Counter()
    for seat in played.turns:
        expected[played.players[seat], "YOUR_TURN"] += 1
    expected[played.players[0], "PLAYER_JOINED"] += 1
    if finished:
        for player in played.players:
            expected[player, "GAME_FINISHED"] += 1
    return expected


def _received(gateway: Gateway, game: str) -> Counter[tuple[str, str]]:
    with gateway.lock:
        unique = {item["idempotency_key"]: item for item in gateway.received}
    return Counter(
        (item["player"], item["kind"])
        for item in unique.values()
        if item["game"] == game
    )


def _eventually(
    check: Callable[[], bool],
    seconds: float = WAIT_SECONDS,
    shown: Callable[[], object] = lambda: "",
) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not delivered in time: {shown()}"
        time.sleep(0.05)


def _two_players(server: Server) -> tuple[list[str], list[str]]:
    sessions = [_sign_in(server, "Ana"), _sign_in(server, "Ben")]
    return [s.access_token for s in sessions], [s.player.name for s in sessions]


def test_the_gateway_gets_exactly_the_notifications_of_a_whole_bots_game(
    postgres_url: str, gateway: Gateway, secret_file: Path
) -> None:
    server = _serve(postgres_url, gateway, secret_file)
    try:
        tokens, players = _two_players(server)
        played = _play([server], tokens, players, None)
        expected = _expected(played, finished=True)
        _eventually(
            lambda: _received(gateway, played.game) == expected,
            shown=lambda: (expected, _received(gateway, played.game), played.turns),
        )
        time.sleep(0.5)  # nothing more comes
        assert _received(gateway, played.game) == expected
        keys = gateway.keys()
        assert len(keys) == len(set(keys))  # the gateway acknowledged each once
        # In order per player: each player's ids increase.
        for player in players:
            ids = [item["id"] for item in gateway.received if item["player"] == player]
            assert ids == sorted(ids)
        assert all("Ana" not in json.dumps(item) for item in gateway.received)
    finally:
        assert server.stop() == 0


def test_a_gateway_down_for_a_while_loses_nothing(
    postgres_url: str, gateway: Gateway, secret_file: Path
) -> None:
    gateway.failing = True
    server = _serve(postgres_url, gateway, secret_file)
    try:
        tokens, players = _two_players(server)
        played = _play([server], tokens, players, 12)
        _eventually(lambda: gateway.attempts >= 3)  # it was tried, and refused
        assert _received(gateway, played.game) == Counter()
        gateway.failing = False
        expected = _expected(played, finished=False)
        _eventually(
            lambda: _received(gateway, played.game) == expected,
            shown=lambda: (expected, _received(gateway, played.game), played.turns),
        )
        for player in players:
            ids = [item["id"] for item in gateway.received if item["player"] == player]
            assert ids == sorted(ids)
    finally:
        assert server.stop() == 0


def test_a_server_killed_while_delivering_loses_nothing(
    postgres_url: str, gateway: Gateway, secret_file: Path
) -> None:
    gateway.delay = 0.2  # deliveries are under way when the server dies
    server = _serve(postgres_url, gateway, secret_file)
    tokens, players = _two_players(server)
    played = _play([server], tokens, players, 20)
    _eventually(lambda: len(gateway.keys()) >= 2)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=30)
    server.channel.close()
    delivered_before = set(gateway.keys())
    gateway.delay = 0.0
    again = _serve(postgres_url, gateway, secret_file)
    try:
        expected = _expected(played, finished=False)
        _eventually(
            lambda: _received(gateway, played.game) == expected,
            shown=lambda: (expected, _received(gateway, played.game), played.turns),
        )
        assert delivered_before <= set(gateway.keys())
        # A notification sent twice was sent under the same key: the received
        # ones, by key, are exactly the expected ones.
        assert sum(_received(gateway, played.game).values()) == sum(expected.values())
        with connect() as db:
            schema = postgres_url.rsplit("schema=", 1)[1]
            left = db.execute(
                f'SELECT count(*) FROM "{schema}".tabletop_outbox '  # noqa: S608
                "WHERE delivered_at IS NULL"
            ).fetchone()
        assert left is not None
        assert left[0] == 0
    finally:
        assert again.stop() == 0


def test_two_server_processes_never_both_deliver_one(
    postgres_url: str, gateway: Gateway, secret_file: Path, tmp_path: Path
) -> None:
    key_file = tmp_path / "session.pem"  # both sign the same access tokens
    key_file.write_bytes(SessionKey.generate(ephemeral=False).private_bytes())
    options = ["--session-key-file", str(key_file)]
    servers = [
        _serve(postgres_url, gateway, secret_file, extra=options) for _ in range(2)
    ]
    try:
        tokens, players = _two_players(servers[0])
        played = _play(servers, tokens, players, 30)
        expected = _expected(played, finished=False)
        _eventually(
            lambda: _received(gateway, played.game) == expected,
            shown=lambda: (expected, _received(gateway, played.game), played.turns),
        )
        time.sleep(1.5)  # both processes have had their ticks
        keys = gateway.keys()
        assert len(keys) == len(set(keys)) == sum(expected.values())
    finally:
        for server in servers:
            assert server.stop() == 0


def test_a_signed_in_client_streams_its_notifications_and_resumes(
    postgres_url: str, gateway: Gateway, secret_file: Path
) -> None:
    server = _serve(postgres_url, gateway, secret_file)
    try:
        tokens, players = _two_players(server)
        stream = server.stub.StreamNotifications(
            api.StreamNotificationsRequest(),
            metadata=auth(tokens[0]),
            timeout=WAIT_SECONDS,
        )
        seen: list[api.Notification] = []
        ready = threading.Event()

        def follow() -> None:
            try:
                for item in stream:
                    ready.set()
                    if item.HasField("notification"):
                        seen.append(item.notification)
            except grpc.RpcError:
                pass

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        time.sleep(0.3)  # the stream is registered before anything happens
        played = _play([server], tokens, players, 6)
        expected = _expected(played, finished=False)
        mine = Counter(
            {key: count for key, count in expected.items() if key[0] == players[0]}
        )

        def streamed() -> Counter[tuple[str, str]]:
            return Counter(
                (
                    n.player,
                    api.NotificationKind.Name(n.kind).removeprefix(
                        "NOTIFICATION_KIND_"
                    ),
                )
                for n in seen
            )

        _eventually(lambda: streamed() == mine)
        stream.cancel()
        assert [n.id for n in seen] == sorted(n.id for n in seen)
        assert {n.idempotency_key for n in seen} <= set(gateway.keys()) | {
            n.idempotency_key for n in seen
        }
        # Resumed after the first: the rest again, nothing before it.
        resumed = server.stub.StreamNotifications(
            api.StreamNotificationsRequest(after_notification_id=seen[0].id),
            metadata=auth(tokens[0]),
            timeout=3,
        )
        again: list[int] = []
        try:
            for item in resumed:
                if item.HasField("notification"):
                    again.append(item.notification.id)
                if len(again) == len(seen) - 1:
                    break
        except grpc.RpcError:
            pass
        resumed.cancel()
        assert again == [n.id for n in seen[1:]]
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize("token", [None, "a-seat-token-is-no-player"])
def test_streaming_notifications_needs_a_signed_in_player(
    server: Server, token: str | None
) -> None:
    def first() -> None:
        stream = server.stub.StreamNotifications(
            api.StreamNotificationsRequest(),
            metadata=auth(token) if token else None,
            timeout=10,
        )
        next(iter(stream))

    code, reason, _ = expect_error(first)
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_CREDENTIALS")


def test_a_half_configured_gateway_stops_the_server_at_start(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_text("too short")
    for options in (
        ["--notify-webhook", "http://127.0.0.1:9/push"],
        ["--notify-webhook", "ftp://example.test/", "--notify-secret-file", str(short)],
        [
            "--notify-webhook",
            "http://127.0.0.1:9/push",
            "--notify-secret-file",
            str(short),
        ],
    ):
        done = subprocess.run(  # noqa: S603 (our own CLI)
            [
                sys.executable,
                "-m",
                "infra.cli",
                "serve",
                "--database",
                "memory:",
                *options,
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ},
        )
        assert done.returncode == 2
        assert "notify" in done.stderr
