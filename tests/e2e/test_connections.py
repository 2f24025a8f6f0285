"""Connections and streams a client holds open, against a real server process.

A flood of idle connections must not lock new clients out: the server raises
its open-file limit at start, so 1,100 idle connections fit where the usual
soft limit of 1,024 descriptors would not, and it closes idle connections.
One address cannot hold more than its share of connections with calls, nor
of open ``StreamGame`` calls.
"""

from __future__ import annotations

import os
import resource
import selectors
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1 import game_service_pb2_grpc

from tests.e2e.client import auth, create_qwirkle, error_of, expect_error
from tests.e2e.conftest import Server, start_server

IDLE_CONNECTIONS = 1_100
DEFAULT_SOFT_LIMIT = 1_024  # the usual soft RLIMIT_NOFILE of a login session
# HTTP/2's client connection preface, then an empty SETTINGS frame: what a
# client sends first, after which the server counts the connection as open.
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes.fromhex("000000040000000000")
DEADLINE = 30.0  # seconds any wait in these tests may take at most
# A new TCP connection per channel: channels would otherwise share one.
OWN_CONNECTION = (("grpc.use_local_subchannel_pool", 1),)
HEARTBEAT = 0.25


@contextmanager
def soft_open_file_limit(limit: int) -> Iterator[None]:
    """Lowers this process's soft open-file limit while in the block.

    A process started meanwhile keeps the lowered limit, as a server started
    from a login shell would; this process gets its own limit back after.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(limit, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.fixture
def default_limit_server(postgres_url: str) -> Iterator[Server]:
    """Yields a server started with the usual soft open-file limit of 1,024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = IDLE_CONNECTIONS + 200  # the sockets, and this process's own files
    if hard < needed:
        try:  # root (as in CI) may raise its hard limit
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, needed))
        except (ValueError, OSError):
            message = f"the hard open-file limit ({hard}) is below {needed}"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
        hard = needed
    with soft_open_file_limit(DEFAULT_SOFT_LIMIT):
        running = start_server(postgres_url, dev=True)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    yield running
    assert running.stop() == 0
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def idle_connections(address: str, count: int, stack: ExitStack) -> list[socket.socket]:
    """Opens ``count`` connections that send the HTTP/2 preface, then nothing."""
    host, port = address.rsplit(":", 1)
    opened = []
    for _ in range(count):
        connection = stack.enter_context(socket.create_connection((host, int(port))))
        connection.sendall(PREFACE)
        opened.append(connection)
    return opened


def answered(connections: list[socket.socket], within: float) -> int:
    """Returns how many connections the server answered (its SETTINGS frame)."""
    waiting = selectors.DefaultSelector()
    for connection in connections:
        connection.setblocking(False)
        waiting.register(connection, selectors.EVENT_READ, connection)
    count = 0
    deadline = time.monotonic() + within
    while waiting.get_map() and time.monotonic() < deadline:
        for key, _ in waiting.select(timeout=0.5):
            connection = key.data
            if connection.recv(4096):
                count += 1
            waiting.unregister(connection)
    waiting.close()
    return count


def test_eleven_hundred_idle_connections_do_not_lock_out_a_new_client(
    default_limit_server: Server,
) -> None:
    with ExitStack() as stack:
        idle = idle_connections(default_limit_server.address, IDLE_CONNECTIONS, stack)
        with grpc.insecure_channel(default_limit_server.address) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            created = create_qwirkle(stub, "Newcomer")
        assert created.seat_token
        # Every idle connection was accepted and is still open.
        assert answered(idle, DEADLINE) == IDLE_CONNECTIONS


@pytest.fixture
def capped(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """Yields a server allowing 3 connections and 3 open streams per address."""
    monkeypatch.setenv("TABLETOP_MAX_CONNECTIONS_PER_ADDRESS", "3")
    monkeypatch.setenv("TABLETOP_MAX_STREAMS_PER_ADDRESS", "3")
    monkeypatch.setenv("TABLETOP_MAX_STREAMS_PER_TOKEN", "2")
    running = start_server(postgres_url, dev=True, heartbeat_seconds=HEARTBEAT)
    yield running
    assert running.stop() == 0


def list_types(channel: grpc.Channel) -> None:
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    stub.ListGameTypes(api.ListGameTypesRequest(), timeout=10)


def test_calls_on_connections_beyond_the_address_cap_are_refused(
    capped: Server,
) -> None:
    # The fixture's own channel is the first connection of 127.0.0.1.
    create_qwirkle(capped.stub)
    with ExitStack() as stack:
        channels = [
            stack.enter_context(grpc.insecure_channel(capped.address, OWN_CONNECTION))
            for _ in range(3)
        ]
        list_types(channels[0])
        list_types(channels[1])
        stub = game_service_pb2_grpc.GameServiceStub(channels[2])
        code, reason, metadata = expect_error(
            stub.ListGameTypes, api.ListGameTypesRequest(), timeout=10
        )
        assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason == "TOO_MANY_CONNECTIONS"
        assert metadata["maxConnections"] == "3"
        # The connections under the cap keep working.
        list_types(channels[0])
        create_qwirkle(capped.stub)


def open_stream(server: Server, name: str, token: str | None = None) -> grpc.Call:
    """Opens a StreamGame call and reads its first item, so it is surely open."""
    call = server.stub.StreamGame(
        api.StreamGameRequest(name=name, snapshot_first=True),
        metadata=auth(token) if token else None,
        timeout=DEADLINE,
    )
    next(call)
    return call


def refusal_of_stream(
    server: Server, name: str, token: str | None = None
) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    """Opens a StreamGame call that must be refused; returns the refusal."""
    call = server.stub.StreamGame(
        api.StreamGameRequest(name=name, snapshot_first=True),
        metadata=auth(token) if token else None,
        timeout=DEADLINE,
    )
    try:
        next(call)
    except grpc.RpcError as error:
        return error_of(error)
    call.cancel()
    msg = "the stream was opened but should have been refused"
    raise AssertionError(msg)


def test_open_streams_beyond_a_token_or_address_cap_are_refused(
    capped: Server,
) -> None:
    created = create_qwirkle(capped.stub)
    name, token = created.game.name, created.seat_token
    seat = [open_stream(capped, name, token) for _ in range(2)]
    code, reason, metadata = refusal_of_stream(capped, name, token)
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS")
    assert metadata == {"limitedBy": "credential", "maxStreams": "2"}
    spectator = open_stream(capped, name)  # the address's third stream
    code, reason, metadata = refusal_of_stream(capped, name)
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS")
    assert metadata == {"limitedBy": "client address", "maxStreams": "3"}
    # A stream that ends gives its place back.
    spectator.cancel()
    again = open_stream(capped, name)
    for call in (*seat, again):
        call.cancel()


@pytest.fixture
def quickly_idle(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Server]:
    """Yields a server that closes connections idle for a second."""
    monkeypatch.setenv("TABLETOP_IDLE_SECONDS", "1")
    running = start_server(postgres_url, dev=True, heartbeat_seconds=HEARTBEAT)
    yield running
    assert running.stop() == 0


def closed_by_server(connection: socket.socket, within: float) -> bool:
    """Returns whether the server closed the connection within ``within`` s."""
    connection.settimeout(within)
    try:
        while connection.recv(4096):
            pass
    except TimeoutError:
        return False
    return True


def test_an_idle_connection_is_closed_but_one_with_an_open_stream_is_not(
    quickly_idle: Server,
) -> None:
    created = create_qwirkle(quickly_idle.stub)
    with ExitStack() as stack:
        channel = stack.enter_context(
            grpc.insecure_channel(quickly_idle.address, OWN_CONNECTION)
        )
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        stream = stub.StreamGame(
            api.StreamGameRequest(name=created.game.name), timeout=DEADLINE
        )
        (idle,) = idle_connections(quickly_idle.address, 1, stack)
        assert closed_by_server(idle, DEADLINE)
        # The stream lives on across several idle times: heartbeats come
        # every quarter second, and twelve of them span three seconds.
        heartbeats = 0
        for item in stream:
            heartbeats += item.HasField("heartbeat")
            if heartbeats == 12:
                break
        assert heartbeats == 12
        stream.cancel()
