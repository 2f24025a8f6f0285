"""Graceful shutdown: SIGTERM to a server while clients play and a spectator follows.

Two ``tabletop serve`` processes share one PostgreSQL schema. Each client thread
plays its own game through server A, every move under a new request id; once
enough moves are acknowledged A gets SIGTERM. From then on A's health must say
``NOT_SERVING``, the moves A was deciding must be answered (by A), every new
call must be answered ``UNAVAILABLE`` with retry advice (never ``CANCELLED``,
which a client cannot tell from its own cancellation), and A's open stream
must end ``UNAVAILABLE`` (``SERVER_SHUTTING_DOWN``). Clients go on through B,
the spectator resumes there from its last revision, and the database is then
compared with what every client heard (``tests.reliability.ledger``).
"""

from __future__ import annotations

import contextlib
import functools
import signal
import threading
import time
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from tests.e2e.client import error_of, health_status, start_two_seats
from tests.e2e.conftest import start_server
from tests.reliability.crash import run_threads
from tests.reliability.ledger import Ledger, Verdict, stored_rows, verify
from tests.reliability.players import GIVE_UP_SECONDS, Player, play_turns

STREAM_SECONDS = 120.0


@dataclass
class Follower:
    """A spectator's stream in a background thread: its revisions and its end."""

    stub: GameServiceStub
    name: str
    after: int = 0
    revisions: list[int] = field(default_factory=list)
    code: grpc.StatusCode | None = None
    reason: str = ""
    retry_advice: bool = False

    def __post_init__(self) -> None:
        request = api.StreamGameRequest(
            name=self.name, after_revision=self.after, batch_events=True
        )
        self.call = self.stub.StreamGame(request, timeout=STREAM_SECONDS)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for item in self.call:
                if item.HasField("events"):
                    self.revisions += [e.revision for e in item.events.events]
        except grpc.RpcError as error:
            self.code = error.code()
            if self.code != grpc.StatusCode.CANCELLED:
                _, self.reason, _ = error_of(error)
            status = rpc_status.from_call(self.call)
            self.retry_advice = status is not None and any(
                detail.type_url.endswith("google.rpc.RetryInfo")
                for detail in status.details
            )

    def wait_for(self, revision: int, seconds: float) -> bool:
        """Returns whether ``revision`` arrived within ``seconds``."""
        give_up = time.monotonic() + seconds
        while revision not in self.revisions and time.monotonic() < give_up:
            time.sleep(0.01)
        return revision in self.revisions

    def close(self) -> None:
        """Cancels the stream and waits for its thread."""
        self.call.cancel()
        self.thread.join(STREAM_SECONDS)


@dataclass
class ShutdownFigures:
    """What one shutdown run did and what the database says about it."""

    verdict: Verdict
    clients: int
    acknowledged_before_term: int = 0
    # Moves sent to A before SIGTERM and answered by A after it.
    finished_in_flight: int = 0
    # Moves answered by B after A refused them or had gone.
    failed_over: int = 0
    not_serving_after: float | None = None  # seconds from SIGTERM
    exit_after: float = 0.0  # seconds from SIGTERM to A's exit
    exit_status: int | None = None
    stream_end: tuple[grpc.StatusCode | None, str, bool] = (None, "", False)
    stream_resumed: bool = False
    stream_revisions: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """Returns the run's figures on one line."""
        v = self.verdict
        health = (
            f"{self.not_serving_after:.3f} s"
            if self.not_serving_after is not None
            else "never seen"
        )
        code, reason, _ = self.stream_end
        return (
            f"{self.clients} clients: submitted {v.submitted}, acknowledged "
            f"{v.acknowledged} ({self.acknowledged_before_term} before SIGTERM), "
            f"stored {v.stored}, lost {v.lost}, duplicated {v.duplicated}, refused "
            f"{v.refused}; finished by A after SIGTERM {self.finished_in_flight}, "
            f"answered by B {self.failed_over}; NOT_SERVING after {health}, exit "
            f"{self.exit_status} after {self.exit_after:.2f} s; stream ended "
            f"{code.name if code else None} {reason}, resumed on B: "
            f"{self.stream_resumed}"
        )


def shutdown_run(
    database: str, *, clients: int, turns: int, term_after: int
) -> ShutdownFigures:
    """Plays ``clients`` games; sends A SIGTERM after ``term_after`` acknowledged."""
    a = start_server(database, dev=False)
    b = start_server(database, dev=False)
    ledger = Ledger()
    figures = ShutdownFigures(Verdict(), clients)
    try:
        tables = [start_two_seats(a.stub) for _ in range(clients)]
        watched = tables[0][0]
        follower = Follower(a.stub, watched)
        players = [Player([a.stub, b.stub], seed=i) for i in range(clients)]
        plays = [
            functools.partial(
                play_turns,
                players[i],
                ledger,
                tables[i][0],
                tables[i][1],
                turns,
                pin=False,
                seed=i,
            )
            for i in range(clients)
        ]
        threads = run_threads(plays, figures.errors)
        while ledger.acknowledged() < term_after and any(t.is_alive() for t in threads):
            time.sleep(0.002)
        figures.acknowledged_before_term = ledger.acknowledged()
        termed = time.monotonic()
        a.process.send_signal(signal.SIGTERM)
        figures.not_serving_after = _not_serving_after(a.channel, termed)
        figures.exit_status = a.process.wait(timeout=60)
        figures.exit_after = time.monotonic() - termed
        for thread in threads:
            thread.join(GIVE_UP_SECONDS + 30)
            if thread.is_alive():
                figures.errors.append("a client thread hangs")
        follower.thread.join(STREAM_SECONDS)
        figures.stream_end = (follower.code, follower.reason, follower.retry_advice)
        figures.stream_resumed, figures.stream_revisions = _resume(
            b.stub, watched, follower.revisions, ledger
        )
    finally:
        a.channel.close()
        if a.process.poll() is None:
            a.process.kill()
            a.process.wait(timeout=30)
        stopped = b.stop()
    if stopped != 0:
        figures.errors.append(f"server B exited with status {stopped}")
    figures.verdict = verify(ledger.submissions, stored_rows(database))
    figures.finished_in_flight = sum(
        s.sent_at < termed < s.answered_at and s.answered_by == 0
        for s in ledger.submissions
    )
    figures.failed_over = sum(s.answered_by == 1 for s in ledger.submissions)
    return figures


def _not_serving_after(channel: grpc.Channel, since: float) -> float | None:
    """Polls A's health until it says NOT_SERVING or A is gone."""
    while time.monotonic() - since < 30:
        try:
            status = health_status(channel)
        except grpc.RpcError:
            return None  # gone before it was seen NOT_SERVING
        if status == health_pb2.HealthCheckResponse.NOT_SERVING:
            return time.monotonic() - since
        time.sleep(0.005)
    return None


def _resume(
    stub: GameServiceStub, name: str, seen: list[int], ledger: Ledger
) -> tuple[bool, list[int]]:
    """Follows ``name`` on B from its last revision seen, to its last move stored.

    Returns whether the last acknowledged revision arrived, and every revision
    received across both streams.
    """
    replied = [s.replied for s in ledger.submissions if s.game == name and s.replied]
    last = max((revisions[-1] for revisions in replied), default=0)
    follower = Follower(stub, name, after=seen[-1] if seen else 0)
    try:
        arrived = follower.wait_for(last, 30) if last > (seen or [0])[-1] else True
    finally:
        with contextlib.suppress(grpc.RpcError):
            follower.close()
    return arrived, seen + follower.revisions
