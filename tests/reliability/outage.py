"""Database outage: PostgreSQL stopped under load, then started again.

The server runs on a private cluster (``tests.reliability.cluster``) that the
scenario stops while clients keep playing, and starts again. Each client plays
its own game and retries an unanswered move, same request id, as a mobile app
does; every answer while the database is down must be ``UNAVAILABLE`` with
retry advice, never a bug. A spectator's stream, opened before the outage, must
carry every revision once, in order, after it.
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import Spectator, auth, health_status, seat_of, start_two_seats
from tests.e2e.conftest import Server, start_server
from tests.reliability.cluster import Cluster
from tests.reliability.ledger import Ledger, Submission, Verdict, stored_rows, verify

T = TypeVar("T")
DEADLINE_SECONDS = 20.0  # for each phase: health to change, the server to recover
# A call caught by the stop waits in each of the library's ten attempts (12 s).
CALL_SECONDS = 20.0


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
        try:
            while not self.stop.is_set():
                self.move()
        except grpc.RpcError:
            return  # recorded in other_errors


@dataclass
class OutageFigures:
    """What one outage did and what the database says about it."""

    verdict: Verdict
    clients: int
    not_serving_after: float = 0.0  # seconds from the stop to health NOT_SERVING
    unavailable: int = 0  # calls answered UNAVAILABLE with retry advice
    # Per client: seconds from the database accepting connections to its next move.
    recovered_after: list[float] = field(default_factory=list)
    serving_after: float = 0.0  # seconds from the start to health SERVING
    other_errors: list[str] = field(default_factory=list)
    stream_revisions: list[int] = field(default_factory=list)
    last_revision: int = 0  # of the watched game, as its client heard

    def summary(self) -> str:
        """Returns the run's figures on one line."""
        v = self.verdict
        recovered = (
            f"median {statistics.median(self.recovered_after):.2f} s, slowest "
            f"{max(self.recovered_after):.2f} s"
        )
        return (
            f"{self.clients} clients: submitted {v.submitted}, acknowledged "
            f"{v.acknowledged}, stored {v.stored}, lost {v.lost}, duplicated "
            f"{v.duplicated}; {self.unavailable} calls UNAVAILABLE with retry "
            f"advice, {len(self.other_errors)} other errors; NOT_SERVING "
            f"{self.not_serving_after:.2f} s after the stop; after the database "
            f"accepted connections: first move per client {recovered}, SERVING "
            f"{self.serving_after:.2f} s; stream complete: {self.stream_complete}"
        )

    @property
    def stream_complete(self) -> bool:
        """Returns whether the spectator saw revisions 1..last once, in order."""
        return self.stream_revisions == list(range(1, self.last_revision + 1))


def outage_run(cluster: Cluster, schema: str, *, clients: int) -> OutageFigures:
    """Stops the cluster while ``clients`` play, starts it again, checks everything.

    ``tests.pg`` must point at the cluster (``Cluster.environ``): the ledger
    reads what it stored.
    """
    url = cluster.url(schema)
    server = start_server(url, dev=False)
    players: list[Client] = []
    try:
        for _ in range(clients):
            name, tokens = start_two_seats(server.stub)
            players.append(Client(server, name, tokens))
        spectator = Spectator(server.stub, players[0].name)
        for player in players:
            player.move()
        figures = _through_the_outage(cluster, server, players)
        last = players[0].ledger.submissions[-1].replied
        assert last is not None
        figures.last_revision = last[-1]
        _wait_for(
            "the last move on the stream",
            lambda: last[-1] in _revisions(spectator),
        )
    finally:
        assert server.stop() == 0
    spectator.finish()
    figures.stream_revisions = _revisions(spectator)
    submissions = [s for player in players for s in player.ledger.submissions]
    figures.verdict = verify(submissions, stored_rows(url))
    return figures


def _through_the_outage(
    cluster: Cluster, server: Server, players: list[Client]
) -> OutageFigures:
    threads = [threading.Thread(target=p.play, daemon=True) for p in players]
    for thread in threads:
        thread.start()
    stopped = time.monotonic()
    cluster.stop()
    down = _wait_for(
        "health NOT_SERVING",
        lambda: _health(server) == health_pb2.HealthCheckResponse.NOT_SERVING,
    )
    _wait_for(
        "calls answered UNAVAILABLE",
        lambda: all(p.unavailable >= 3 for p in players),
    )
    acknowledged = [len(p.successes) for p in players]
    cluster.start()
    up = time.monotonic()
    _wait_for(
        "a move of every client after the outage",
        lambda: all(len(p.successes) > n for p, n in zip(players, acknowledged)),  # noqa: B905
    )
    serving = _wait_for(
        "health SERVING",
        lambda: _health(server) == health_pb2.HealthCheckResponse.SERVING,
    )
    _wait_for(
        "three moves after it",
        lambda: all(len(p.successes) >= n + 3 for p, n in zip(players, acknowledged)),  # noqa: B905
    )
    for player in players:
        player.stop.set()
    for thread in threads:
        thread.join(60)
        assert not thread.is_alive(), "a client hangs"
    return OutageFigures(
        Verdict(),
        len(players),
        not_serving_after=down - stopped,
        unavailable=sum(p.unavailable for p in players),
        recovered_after=[min(t for t in p.successes if t >= up) - up for p in players],
        serving_after=serving - up,
        other_errors=[e for p in players for e in p.other_errors],
    )


def _wait_for(what: str, condition: Callable[[], bool]) -> float:
    """Polls ``condition`` until it holds; returns when it did (time.monotonic())."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {DEADLINE_SECONDS} s"
        time.sleep(0.02)
    return time.monotonic()


def _health(server: Server) -> int:
    try:
        return health_status(server.channel)
    except grpc.RpcError:
        return -1


def _revisions(spectator: Spectator) -> list[int]:
    revisions = []
    for item in spectator.items:
        if item.HasField("event"):
            revisions.append(item.event.revision)
        elif item.HasField("events"):
            revisions += [event.revision for event in item.events.events]
    return revisions
