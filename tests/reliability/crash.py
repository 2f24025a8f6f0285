"""Crash: a server process killed with SIGKILL while clients play through it.

Two ``tabletop serve`` processes share one PostgreSQL schema. Each client thread
plays its own game through server A, every move under a new request id (half
of the clients pin ``expected_revision``); once enough moves are acknowledged
A is killed with no chance to finish anything. A client whose call then got no
answer sends the same call to server B, the same request id for a move, until
it answers, and plays on there. Before the kill some replies are lost on the
way (``lose_replies``, see ``tests.reliability.players``): A stores the move,
the client retries it through B. The database is then compared with what every
client heard (``tests.reliability.ledger``).
"""

from __future__ import annotations

import functools
import os
import signal
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tests.e2e.client import start_two_seats
from tests.e2e.conftest import start_server
from tests.reliability.ledger import Ledger, Verdict, stored_rows, verify
from tests.reliability.players import GIVE_UP_SECONDS, Player, play_turns


@dataclass
class CrashFigures:
    """What one crash run did and what the database says about it."""

    verdict: Verdict
    clients: int
    # Moves acknowledged before the kill, and requests answered by B after A failed.
    acknowledged_before_kill: int = 0
    failed_over: int = 0
    # Per client whose calls went unanswered: seconds from the kill to an answer.
    recovery: list[float] = field(default_factory=list)
    # Exceptions that ended a client thread (a hang, an unexpected error).
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """Returns the run's figures on one line."""
        v = self.verdict
        recovery = (
            f"median {statistics.median(self.recovery):.3f} s, "
            f"max {max(self.recovery):.3f} s"
            if self.recovery
            else "no client had to"
        )
        return (
            f"{self.clients} clients: submitted {v.submitted}, acknowledged "
            f"{v.acknowledged} ({self.acknowledged_before_kill} before the kill), "
            f"stored {v.stored}, lost {v.lost}, duplicated {v.duplicated}, "
            f"half-stored {v.half_stored}, revision gaps {v.gaps}, refused "
            f"{v.refused}; retried {v.retried}, answered by the other server "
            f"{self.failed_over}; recovery after the kill: {recovery}"
        )


def run_threads(
    targets: Sequence[Callable[[], None]], errors: list[str]
) -> list[threading.Thread]:
    """Starts one daemon thread per target; what a thread raises goes in ``errors``."""

    def guarded(target: Callable[[], None]) -> None:
        try:
            target()
        except Exception as error:  # noqa: BLE001 (reported by the scenario)
            errors.append(f"{type(error).__name__}: {error}")

    threads = [
        threading.Thread(target=guarded, args=(target,), daemon=True)
        for target in targets
    ]
    for thread in threads:
        thread.start()
    return threads


def crash_run(
    database: str,
    *,
    clients: int,
    turns: int,
    kill_after: int,
    lose_replies: float = 0.1,
) -> CrashFigures:
    """Plays ``clients`` games of ``turns`` moves; kills A after ``kill_after`` acks."""
    a = start_server(database, dev=False)
    b = start_server(database, dev=False)
    ledger = Ledger()
    errors: list[str] = []
    killed_at = 0.0
    before_kill = 0
    try:
        tables = [start_two_seats(a.stub) for _ in range(clients)]
        players = [
            Player([a.stub, b.stub], lose_replies, seed=i) for i in range(clients)
        ]
        threads = run_threads(
            [
                functools.partial(
                    play_turns,
                    players[i],
                    ledger,
                    tables[i][0],
                    tables[i][1],
                    turns,
                    pin=i % 2 == 1,
                    seed=i,
                )
                for i in range(clients)
            ],
            errors,
        )
        while ledger.acknowledged() < kill_after and any(t.is_alive() for t in threads):
            time.sleep(0.002)
        before_kill = ledger.acknowledged()
        killed_at = time.monotonic()
        os.kill(a.process.pid, signal.SIGKILL)
        a.process.wait(timeout=30)
        for thread in threads:
            thread.join(GIVE_UP_SECONDS + 30)
            if thread.is_alive():
                errors.append("a client thread hangs")
    finally:
        a.channel.close()
        if a.process.poll() is None:
            a.process.kill()
            a.process.wait(timeout=30)
        stopped = b.stop()
    if stopped != 0:
        errors.append(f"server B exited with status {stopped}")
    verdict = verify(ledger.submissions, stored_rows(database))
    recovery = [
        min(t for t in player.recovered_at if t >= killed_at) - killed_at
        for player in players
        if any(t >= killed_at for t in player.recovered_at)
    ]
    return CrashFigures(
        verdict,
        clients,
        acknowledged_before_kill=before_kill,
        failed_over=sum(s.failed_over for s in ledger.submissions),
        recovery=recovery,
        errors=errors,
    )
