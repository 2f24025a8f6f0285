"""The terminal client's device id file, its session and the seats its account
holds, against an in-process gRPC server whose AuthService and GameService are
fakes on loopback."""

from __future__ import annotations

import io
import json
import socket
import stat
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NoReturn

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from rich.console import Console
from tabletop.v1 import (
    auth_service_pb2,
    auth_service_pb2_grpc,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
)

from infra.terminal.account import Account, sign_in
from infra.terminal.connection import ClientError, connect
from infra.terminal.credentials import with_session
from infra.terminal.devices import device_path, load_device_id
from infra.terminal.seats import Seat, load_kept, load_seat, save_seat, seat_path

GAME = "games/abc"
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keeps the client's files under a temporary ``$XDG_STATE_HOME``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


def _abort(context: grpc.ServicerContext, code: int, reason: str) -> NoReturn:
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="tabletop.games"))
    status = status_pb2.Status(code=code, message=reason.lower(), details=[info])
    context.abort_with_status(rpc_status.to_status(status))
    raise AssertionError  # abort_with_status raises


def _bearer(context: grpc.ServicerContext) -> str:
    for key, value in context.invocation_metadata():
        if key == "authorization":
            return str(value).removeprefix("Bearer ")
    return ""


@dataclass
class _Auth(auth_service_pb2_grpc.AuthServiceServicer):
    """Signs devices in and refreshes sessions; remembers every call."""

    signed_in: list[tuple[str, str, str]] = field(default_factory=list)
    refreshed: list[str] = field(default_factory=list)
    refuse_sign_in: str = ""  # a reason to refuse every sign-in with
    refuse_refresh: str = ""  # a reason to refuse every refresh with
    issued: int = 0

    def session(self) -> auth_service_pb2.Session:
        self.issued += 1
        session = auth_service_pb2.Session(
            access_token=f"access-{self.issued}",
            refresh_token=f"refresh-{self.issued}",
            player=auth_service_pb2.PlayerAccount(display_name="Ana"),
        )
        session.access_token_expire_time.FromDatetime(START + timedelta(hours=1))
        return session

    def SignInWithDevice(
        self,
        request: auth_service_pb2.SignInWithDeviceRequest,
        context: grpc.ServicerContext,
    ) -> auth_service_pb2.SignInWithDeviceResponse:
        if self.refuse_sign_in:
            _abort(context, code_pb2.RESOURCE_EXHAUSTED, self.refuse_sign_in)
        self.signed_in.append(
            (request.device_id, request.display_name, _bearer(context))
        )
        return auth_service_pb2.SignInWithDeviceResponse(
            session=self.session(), created=len(self.signed_in) == 1
        )

    def RefreshSession(
        self,
        request: auth_service_pb2.RefreshSessionRequest,
        context: grpc.ServicerContext,
    ) -> auth_service_pb2.RefreshSessionResponse:
        if self.refuse_refresh:
            _abort(context, code_pb2.UNAUTHENTICATED, self.refuse_refresh)
        self.refreshed.append(request.refresh_token)
        return auth_service_pb2.RefreshSessionResponse(session=self.session())


@dataclass
class _Games(game_service_pb2_grpc.GameServiceServicer):
    """Answers GetGame to the latest access token only, like a restarted server
    that no longer accepts the tokens it issued before."""

    auth: _Auth
    seen: list[str] = field(default_factory=list)

    def GetGame(
        self, request: game_service_pb2.GetGameRequest, context: grpc.ServicerContext
    ) -> game_service_pb2.GetGameResponse:
        token = _bearer(context)
        self.seen.append(token)
        if token != f"access-{self.auth.issued}":
            _abort(context, code_pb2.UNAUTHENTICATED, "INVALID_CREDENTIALS")
        caller = f"{request.name}/players/0"
        return game_service_pb2.GetGameResponse(
            game=game_pb2.Game(name=request.name, caller=caller)
        )


@dataclass
class _Server:
    address: str
    auth: _Auth
    games: _Games


@pytest.fixture
def served() -> Iterator[_Server]:
    """A loopback server with the fake AuthService and GameService."""
    # The stubs declare every RPC abstract; the generated classes answer the
    # ones not overridden UNIMPLEMENTED.
    auth = _Auth()  # type: ignore[abstract]
    games = _Games(auth)  # type: ignore[abstract]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    auth_service_pb2_grpc.add_AuthServiceServicer_to_server(auth, server)
    game_service_pb2_grpc.add_GameServiceServicer_to_server(games, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield _Server(f"127.0.0.1:{port}", auth, games)
    server.stop(None)


def _console() -> Console:
    return Console(file=io.StringIO(), width=200, record=True)


def _account(served: _Server, now: datetime) -> Account:
    channel = grpc.insecure_channel(served.address)
    stub = auth_service_pb2_grpc.AuthServiceStub(channel)
    session = served.auth.session()
    return Account(stub, "d" * 22, session, now=lambda: now)


def test_a_device_id_is_made_once_per_server_readable_by_its_owner_only(
    state: Path,
) -> None:
    first = load_device_id("127.0.0.1:50051", make=True)
    path = state / "tabletop" / "accounts" / "127.0.0.1_50051.json"
    assert device_path("127.0.0.1:50051") == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert first is not None
    assert len(first) == 22
    assert set(first) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )
    assert load_device_id("127.0.0.1:50051", make=True) == first
    assert json.loads(path.read_text()) == {
        "server": "127.0.0.1:50051",
        "device_id": first,
    }
    other = load_device_id("tables.example.org:443", make=True)
    assert other not in (None, first)
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "127.0.0.1_50051.json",
        "tables.example.org_443.json",
    ]


def test_no_device_id_is_made_unless_asked(state: Path) -> None:
    assert load_device_id("127.0.0.1:50051", make=False) is None
    assert not (state / "tabletop").exists()


def test_a_damaged_device_file_is_refused_rather_than_replaced(state: Path) -> None:
    path = device_path("127.0.0.1:50051")
    path.parent.mkdir(parents=True)
    path.write_text('{"device_id": "short"}')
    with pytest.raises(ClientError, match="holds no device id"):
        load_device_id("127.0.0.1:50051", make=True)
    assert path.read_text() == '{"device_id": "short"}'


def test_the_first_sign_in_names_the_new_player_and_shows_no_secret(
    served: _Server,
) -> None:
    console = _console()
    account = sign_in(connect(served.address).channel, served.address, console, "Ana")
    assert account is not None
    device_id = load_device_id(served.address, make=False)
    assert served.auth.signed_in == [(device_id, "Ana", "")]
    shown = console.export_text()
    assert shown == "Signed in as Ana (a new player on this server)\n"
    assert device_id is not None
    assert device_id not in shown

    again = _console()
    sign_in(connect(served.address).channel, served.address, again, "Anna")
    assert served.auth.signed_in[1][0] == device_id  # the same player
    assert "--name names a new player only" in again.export_text()


def test_a_server_without_sign_in_leaves_a_guest(state: Path) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    port = server.add_insecure_port("127.0.0.1:0")  # no AuthService at all
    server.start()
    try:
        address = f"127.0.0.1:{port}"
        console = _console()
        assert sign_in(connect(address).channel, address, console, "Ana") is None
    finally:
        server.stop(None)
    line = "Playing as a guest: this server does not sign players in.\n"
    assert console.export_text() == line


def test_a_refused_sign_in_leaves_a_guest(served: _Server) -> None:
    served.auth.refuse_sign_in = "RATE_LIMITED"
    console = _console()
    channel = connect(served.address).channel
    assert sign_in(channel, served.address, console, "Ana") is None
    assert console.export_text().startswith(
        "Playing as a guest: the server refused to sign in "
        "(RESOURCE_EXHAUSTED RATE_LIMITED:"
    )


def test_an_unreachable_server_is_an_error_not_a_guest() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: refused
        address = f"127.0.0.1:{closed.getsockname()[1]}"
        with pytest.raises(grpc.RpcError) as raised:
            sign_in(connect(address).channel, address, _console(), "Ana")
    code = raised.value.code()
    assert code == grpc.StatusCode.UNAVAILABLE


def test_the_session_is_refreshed_a_minute_before_it_expires(served: _Server) -> None:
    account = _account(served, START + timedelta(minutes=58))
    assert account.access_token() == "access-1"
    assert served.auth.refreshed == []
    account = _account(served, START + timedelta(minutes=59, seconds=30))
    assert account.access_token() == "access-3"  # refreshed, with refresh-2
    assert served.auth.refreshed == ["refresh-2"]


def test_each_refresh_presents_the_latest_refresh_token(served: _Server) -> None:
    account = _account(served, START)
    account.renew("access-1")
    account.renew("access-2")
    assert served.auth.refreshed == ["refresh-1", "refresh-2"]
    assert account.access_token() == "access-3"


def test_a_token_already_renewed_is_not_renewed_again(served: _Server) -> None:
    account = _account(served, START)
    account.renew("access-1")
    account.renew("access-1")  # another thread saw the same refusal
    assert served.auth.refreshed == ["refresh-1"]


def test_a_refused_refresh_signs_in_again_with_the_device_id(served: _Server) -> None:
    account = _account(served, START)
    served.auth.refuse_refresh = "REFRESH_TOKEN_REUSED"
    account.renew("access-1")
    assert served.auth.signed_in == [("d" * 22, "", "")]  # no session: no link
    assert account.access_token() == "access-2"


def test_a_renewal_the_server_refuses_altogether_raises(served: _Server) -> None:
    account = _account(served, START)
    served.auth.refuse_refresh = "REFRESH_TOKEN_REUSED"
    served.auth.refuse_sign_in = "RATE_LIMITED"
    with pytest.raises(grpc.RpcError):
        account.renew("access-1")
    assert account.access_token() == "access-1"  # kept: the next call tells


def test_a_call_refused_for_its_token_is_sent_again_after_renewing(
    served: _Server,
) -> None:
    account = _account(served, START)
    served.auth.session()  # the server moved on: access-1 is refused now
    connection = with_session(connect(served.address), account)
    reply = connection.stub.GetGame(
        game_service_pb2.GetGameRequest(name=GAME), timeout=5
    )
    assert reply.game.caller == f"{GAME}/players/0"
    assert served.games.seen == ["access-1", "access-3"]
    assert served.auth.refreshed == ["refresh-1"]


def test_a_seat_the_account_holds_is_kept_without_a_token(state: Path) -> None:
    seat = Seat(GAME, f"{GAME}/players/0", "", "127.0.0.1:1")
    path = seat_path(GAME)
    save_seat(seat, path)
    assert load_kept(path) == seat  # tabletop play resumes it with the session
    assert load_seat(path) is None  # tabletop bot finds no token to play it with
