"""A database outage: calls answer UNAVAILABLE, then everything resumes by itself.

The server runs on a private cluster (``tests.reliability.cluster``) that the
test stops while a client keeps playing, and starts again. The client retries
an unanswered move, same request id, as a mobile app does; every answer while
the database is down must be ``UNAVAILABLE`` with retry advice, never a bug.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import TypeVar, cast

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import Spectator, auth, health_status, seat_of, start_two_seats
from tests.e2e.conftest import Server, start_server
from tests.reliability.cluster import Cluster
from tests.reliability.ledger import Ledger, Submission, stored_rows, verify

pytestmark = pytest.mark.e2e

T = TypeVar("T")
DEADLINE_SECONDS = 20.0  # for each phase: health to change, the server to recover
# A call caught by the stop waits in each of the library's ten attempts (12 s).
CALL_SECONDS = 20.0


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    """Yields a started private cluster; the ledger's SQL reads go to it too."""
    made = Cluster()
    try:
        made.start()
        for name, value in {
            "POSTGRES_HOST": "127.0.0.1",
            "POSTGRES_PORT": str(made.port),
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": "postgres",
            "POSTGRES_DBNAME": "postgres",
        }.items():
            monkeypatch.setenv(name, value)
        yield made
    finally:
        made.remove()


class Client:
    """Plays one game, retrying each call that is answered UNAVAILABLE."""

    def __init__(self, server: Server, name: str, tokens: list[str]) -> None:
        self.stub = server.stub
        self.name = name
        self.tokens = tokens
        self.ledger = Ledger()
        self.unavailable = 0
        self.other_errors: list[str] = []  # anything but UNAVAILABLE + RetryInfo
        self.successes: list[float] = []  # time.monotonic() of each acknowledged move
        self.stop = threading.Event()

    def call(self, send: Callable[[], T]) -> T:
        """Returns the answer; an UNAVAILABLE answer must advise a retry."""
        while True:
            try:
                return send()
            except grpc.RpcError as error:
                call = cast("grpc.Call", error)
                status = rpc_status.from_call(call)
                retry = status is not None and any(
                    d.Is(error_details_pb2.RetryInfo.DESCRIPTOR) for d in status.details
                )
                if call.code() != grpc.StatusCode.UNAVAILABLE or not retry:
                    self.other_errors.append(f"{call.code()}: {call.details()}")
                    raise
                self.unavailable += 1
                time.sleep(0.05)

    def move(self) -> None:
        """Plays one legal move of the seat to move, under one request id."""
        game = self.call(
            lambda: self.stub.GetGame(
                api.GetGameRequest(name=self.name), timeout=CALL_SECONDS
            )
        ).game
        assert game.state == game_pb2.GAME_STATE_IN_PROGRESS
        token = self.tokens[seat_of(game.current_player)]
        listed = self.call(
            lambda: self.stub.ListLegalMoves(
                api.ListLegalMovesRequest(name=self.name, page_size=1),
                metadata=auth(token),
                timeout=CALL_SECONDS,
            )
        )
        request = api.SubmitMoveRequest(
            name=self.name, move=listed.moves[0], request_id=str(uuid.uuid4())
        )
        submission = Submission(request.request_id, self.name, 0)
        self.ledger.add(submission)
        reply = self.call(
            lambda: self.stub.SubmitMove(
                request, metadata=auth(token), timeout=CALL_SECONDS
            )
        )
        submission.replied = tuple(event.revision for event in reply.events)
        self.successes.append(time.monotonic())

    def play(self) -> None:
        """Moves until told to stop (the thread's body)."""
        while not self.stop.is_set():
            self.move()


def wait_for(what: str, condition: Callable[[], bool]) -> float:
    """Polls ``condition`` until it holds; returns when it did (time.monotonic())."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {DEADLINE_SECONDS} s"
        time.sleep(0.02)
    return time.monotonic()


def health(server: Server) -> int:
    try:
        return health_status(server.channel)
    except grpc.RpcError:
        return -1


def streamed_revisions(spectator: Spectator) -> list[int]:
    revisions = []
    for item in spectator.items:
        if item.HasField("event"):
            revisions.append(item.event.revision)
        elif item.HasField("events"):
            revisions += [event.revision for event in item.events.events]
    return revisions


def test_the_server_rides_out_a_database_outage(cluster: Cluster) -> None:
    url = cluster.url("outage")
    server = start_server(url, dev=False)
    try:
        name, tokens = start_two_seats(server.stub)
        spectator = Spectator(server.stub, name)
        client = Client(server, name, tokens)
        for _ in range(3):
            client.move()
        player = threading.Thread(target=client.play, daemon=True)
        player.start()

        stopped = time.monotonic()
        cluster.stop()
        down = wait_for(
            "health NOT_SERVING",
            lambda: health(server) == health_pb2.HealthCheckResponse.NOT_SERVING,
        )
        wait_for("calls answered UNAVAILABLE", lambda: client.unavailable >= 3)
        acknowledged = len(client.successes)

        cluster.start()
        up = time.monotonic()
        wait_for(
            "a move after the outage", lambda: len(client.successes) > acknowledged
        )
        recovered = min(t for t in client.successes if t >= up)
        serving = wait_for(
            "health SERVING",
            lambda: health(server) == health_pb2.HealthCheckResponse.SERVING,
        )
        wait_for(
            "three moves after it", lambda: len(client.successes) >= acknowledged + 3
        )
        client.stop.set()
        player.join(30)
        assert not player.is_alive()
        last = client.ledger.submissions[-1].replied
        assert last is not None
        wait_for(
            "the last move on the stream",
            lambda: last[-1] in streamed_revisions(spectator),
        )
    finally:
        assert server.stop() == 0
    spectator.finish()
    print(  # noqa: T201 (the figure the docs quote)
        f"\noutage: NOT_SERVING {down - stopped:.2f} s after the stop; "
        f"{client.unavailable} calls UNAVAILABLE; first move {recovered - up:.2f} s "
        f"and SERVING {serving - up:.2f} s after the database accepted connections"
    )
    assert client.other_errors == []
    verdict = verify(client.ledger.submissions, stored_rows(url))
    assert verdict.problems == []
    assert verdict.acknowledged == verdict.stored == len(client.ledger.submissions)
    # The stream opened before the outage saw every revision once, in order.
    revisions = streamed_revisions(spectator)
    assert revisions == list(range(1, last[-1] + 1))
    assert recovered - up < 10
