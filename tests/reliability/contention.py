"""Contention: clients of two server processes racing for the same few games.

Every client holds every seat's token of its game and keeps submitting a legal
move of whichever seat is to move, through its own server; half of them pin
``expected_revision``. Most submissions lose a race. A loser that pinned the
revision must get ``ABORTED`` with the current revision; one that did not is
decided again on the latest game, and is applied or refused by the rules. A
spectator on each process, opened before the race, must see the same events.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import grpc
from tabletop.v1 import event_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from tests.e2e.client import start_two_seats
from tests.e2e.conftest import start_server
from tests.reliability.crash import run_threads
from tests.reliability.ledger import Ledger, Submission, Verdict, stored_rows, verify
from tests.reliability.players import Player, play_turns

FEED_SECONDS = 30.0  # for both feeds to reach the last stored revision
STALE = {"REVISION_MISMATCH", "CONCURRENT_UPDATE"}


class Follower:
    """A spectator's StreamGame, read in a thread until it is cancelled."""

    def __init__(self, stub: GameServiceStub, name: str) -> None:
        self.events: list[event_pb2.GameEvent] = []
        self.code: grpc.StatusCode | None = None
        self.call = stub.StreamGame(api.StreamGameRequest(name=name, batch_events=True))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for item in self.call:
                if item.HasField("event"):
                    self.events.append(item.event)
                elif item.HasField("events"):
                    self.events.extend(item.events.events)
        except grpc.RpcError as error:
            self.code = error.code()
        else:
            self.code = grpc.StatusCode.OK

    def stop_at(self, revision: int) -> None:
        """Waits until the feed has carried ``revision`` (or ended), then ends it."""
        until = time.monotonic() + FEED_SECONDS
        while time.monotonic() < until and self.thread.is_alive():
            if self.events and self.events[-1].revision >= revision:
                break
            time.sleep(0.01)
        self.call.cancel()
        self.thread.join(FEED_SECONDS)


@dataclass
class ContentionFigures:
    """What one race did and what the stores and feeds say about it."""

    verdict: Verdict
    games: int
    clients: int
    # Refusals by reason; a stale pinned move must be ABORTED.
    reasons: Counter[str] = field(default_factory=Counter)
    feeds_compared: int = 0
    events_compared: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """Returns the run's figures on one line."""
        v = self.verdict
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(self.reasons.items()))
        return (
            f"{self.clients} clients on {self.games} games: races {v.submitted}, "
            f"applied {v.acknowledged}, refused {v.refused} ({reasons}); "
            f"lost {v.lost}, duplicated {v.duplicated}, half-stored "
            f"{v.half_stored}, revision gaps {v.gaps}; feeds compared "
            f"{self.feeds_compared} pairs, {self.events_compared} events each side"
        )


def contention_run(
    database: str, *, games: int, clients: int, turns: int
) -> ContentionFigures:
    """Races ``clients`` clients (``turns`` moves each) for ``games`` games."""
    servers = [start_server(database, dev=False) for _ in range(2)]
    ledger = Ledger()
    errors: list[str] = []
    try:
        tables = [start_two_seats(servers[0].stub) for _ in range(games)]
        followers = [
            [Follower(server.stub, name) for server in servers] for name, _ in tables
        ]
        threads = run_threads(
            [
                functools.partial(
                    play_turns,
                    Player([servers[i % 2].stub]),
                    ledger,
                    tables[i % games][0],
                    tables[i % games][1],
                    turns,
                    pin=i // 2 % 2 == 0,
                    seed=i,
                )
                for i in range(clients)
            ],
            errors,
        )
        for thread in threads:
            thread.join()
        rows = stored_rows(database)
        last = {row.game: row.revision for row in rows}
        for (name, _), pair in zip(tables, followers, strict=True):
            for follower in pair:
                follower.stop_at(last[name])
    finally:
        stopped = [server.stop() for server in servers]
    figures = ContentionFigures(verify(ledger.submissions, rows), games, clients)
    figures.problems = errors + [f"server exited {s}" for s in stopped if s != 0]
    for submission in ledger.submissions:
        _check_refusal(submission, figures)
    for (name, _), (first, second) in zip(tables, followers, strict=True):
        _compare_feeds(name, last[name], first, second, figures)
    return figures


def _check_refusal(submission: Submission, figures: ContentionFigures) -> None:
    """Checks a refused race gave a clear reason, and the current revision if stale."""
    if submission.refused is None:
        return
    code, reason = submission.refused
    figures.reasons[reason] += 1
    where = f"{submission.game} request {submission.request_id}"
    if code == grpc.StatusCode.ABORTED:
        current = int(submission.refusal_metadata.get("currentRevision", "0"))
        if reason not in STALE or current <= submission.expected_revision:
            figures.problems.append(f"{where}: ABORTED {reason} at {current}")
    elif submission.expected_revision or code != grpc.StatusCode.FAILED_PRECONDITION:
        # A pinned move was legal at its revision: only staleness refuses it.
        figures.problems.append(f"{where}: refused with {code} {reason}")


def _compare_feeds(
    name: str,
    last: int,
    first: Follower,
    second: Follower,
    figures: ContentionFigures,
) -> None:
    """Checks both processes' feeds carried revisions 1..last, the same, once."""
    feeds = [[e.SerializeToString() for e in f.events] for f in (first, second)]
    revisions = [e.revision for e in first.events]
    if feeds[0] != feeds[1]:
        figures.problems.append(f"{name}: the two processes' feeds differ")
    if revisions != list(range(1, last + 1)):
        figures.problems.append(f"{name}: feed revisions are not 1..{last}")
    figures.feeds_compared += 1
    figures.events_compared += len(feeds[0])
