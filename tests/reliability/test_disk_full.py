"""A full disk: health goes NOT_SERVING while writes fail, SERVING once they work.

The server runs in this process, on a thread of its own, so that the test can
reach the SQLite connections of its store: ``PRAGMA max_page_count`` set to
the database's size on every connection the store hands out makes each write
that must grow the file fail with SQLITE_FULL ("database or disk is full"),
as a full disk does, while reads go on working.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import grpc
import pytest
from grpc_health.v1 import health_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1 import game_service_pb2_grpc

from infra import store_watch
from infra.event_store import create_app
from infra.server import SERVICES, Running, create_server, stop_server
from infra.settings import Settings
from infra.store_watch import StoreWatch
from services.feed import Feed
from services.games import GamesApp
from tests.e2e.client import auth, health_status, seat_of, start_two_seats

T = TypeVar("T")
DEADLINE_SECONDS = 20.0  # for health to change
CALL_SECONDS = 10.0


class DiskFull:
    """Caps the size of a SQLite store on every connection it hands out."""

    def __init__(self, app: GamesApp, database: Path) -> None:
        self.database = database
        self.limit: int | None = None  # pages; None: the SQLite default
        self.handed_out = 0  # connections, each for one probe or call
        pool = cast("Any", app.recorder).datastore.pool
        with sqlite3.connect(database) as probe:
            self.default = probe.execute("PRAGMA max_page_count").fetchone()[0]
        handed_out = pool.get_connection

        def get_connection(*args: Any, **kwargs: Any) -> Any:
            connection = handed_out(*args, **kwargs)
            self.handed_out += 1
            pages = self.default if self.limit is None else self.limit
            connection._sqlite_conn.execute(f"PRAGMA max_page_count = {pages}")
            return connection

        pool.get_connection = get_connection

    def fill(self) -> None:
        """From now on the database cannot grow by a page."""
        with sqlite3.connect(self.database) as connection:
            self.limit = connection.execute("PRAGMA page_count").fetchone()[0]

    def free(self) -> None:
        """Makes room again."""
        self.limit = None


class InProcessServer:
    """A server and its store watch on an event loop of their own thread."""

    def __init__(self, database: Path) -> None:
        self.settings = Settings(listen="127.0.0.1:0", database=f"sqlite:///{database}")
        self.app = create_app(self.settings)
        self.disk = DiskFull(self.app, database)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: Running = self.run(self._start())
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.running.port}")
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Runs a coroutine on the server's loop; returns its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(60)

    async def _start(self) -> Running:
        running = await create_server(self.settings, self.app, Feed(self.app))
        watch = StoreWatch(self.app, running.health, running.gate, SERVICES)
        self.watching = asyncio.create_task(watch.run())
        return running

    def health(self) -> int:
        """Returns the server's overall health status."""
        return health_status(self.channel)

    def stop(self) -> None:
        """Stops the server gracefully, then its loop and its store."""
        self.channel.close()
        self.run(stop_server(self.running, 5.0, (self.watching,)))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.app.close()


@pytest.fixture
def server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[InProcessServer]:
    """Yields a server on a fresh SQLite file whose watch probes every 50 ms."""
    monkeypatch.setattr(store_watch, "PROBE_SECONDS", 0.05)
    running = InProcessServer(tmp_path / "games.sqlite3")
    try:
        yield running
    finally:
        running.stop()


def move(server: InProcessServer, name: str, tokens: list[str]) -> tuple[int, int]:
    """Plays the first legal move of the seat to move; returns its revisions."""
    stub = server.stub
    game = stub.GetGame(api.GetGameRequest(name=name), timeout=CALL_SECONDS).game
    token = tokens[seat_of(game.current_player)]
    listed = stub.ListLegalMoves(
        api.ListLegalMovesRequest(name=name, page_size=1),
        metadata=auth(token),
        timeout=CALL_SECONDS,
    )
    reply = stub.SubmitMove(
        api.SubmitMoveRequest(name=name, move=listed.moves[0]),
        metadata=auth(token),
        timeout=CALL_SECONDS,
    )
    return reply.events[0].revision, reply.events[-1].revision


def code_of(call: Callable[[], object]) -> grpc.StatusCode:
    """Returns the status code a call ends with (OK when it succeeds)."""
    try:
        call()
    except grpc.RpcError as error:
        return cast("grpc.Call", error).code()
    return grpc.StatusCode.OK


def wait_for(what: str, condition: Callable[[], bool]) -> None:
    """Polls ``condition`` until it holds, within DEADLINE_SECONDS."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {DEADLINE_SECONDS} s"
        time.sleep(0.02)


def not_serving(server: InProcessServer) -> bool:
    """Returns whether the server's health is NOT_SERVING."""
    return server.health() == health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.mark.e2e
def test_health_follows_a_full_disk_and_the_room_made_again(
    server: InProcessServer,
) -> None:
    name, tokens = start_two_seats(server.stub)
    _, acknowledged = move(server, name, tokens)
    server.disk.fill()
    # Moves that fit in the pages the file has go on; then every move fails
    # (UNAVAILABLE: retry), and after a few of them health says so.
    failures = 0
    played: list[tuple[int, int]] = []
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not not_serving(server):
        assert time.monotonic() < deadline, f"still SERVING after {failures} failures"
        code = code_of(lambda: played.append(move(server, name, tokens)))
        if code == grpc.StatusCode.OK:
            acknowledged = played[-1][1]
        else:
            assert code == grpc.StatusCode.UNAVAILABLE
            failures += 1
    assert failures > 0
    # The gate answers at once, reads included, while the disk stays full.
    get = server.stub.GetGame
    assert code_of(lambda: get(api.GetGameRequest(name=name))) == (
        grpc.StatusCode.UNAVAILABLE
    )
    # The watch's own writes keep failing: it stays NOT_SERVING.
    probes = server.disk.handed_out + 3
    wait_for("three probes", lambda: server.disk.handed_out >= probes)
    assert not_serving(server)
    server.disk.free()
    wait_for("health SERVING", lambda: not not_serving(server))
    # Nothing of the failed moves was stored: the next one follows the last
    # acknowledged one.
    assert move(server, name, tokens)[0] == acknowledged + 1
