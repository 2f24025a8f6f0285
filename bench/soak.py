"""Soak: the fault scenarios of tests/reliability, longer and louder.

The tests in ``tests/reliability`` run each fault once, small, in a few
seconds. This script runs the crash scenario several times (each a new pair of
``tabletop serve`` processes on a new schema, server A killed with SIGKILL
mid-game, clients retrying through B) with more clients and moves, the
graceful-shutdown scenario (SIGTERM instead), a database outage on a private
cluster (stopped under load and started again), and the contention scenario
longer, then prints what was submitted, acknowledged, stored, lost and
duplicated, and how long recovery took. Last, the noisy neighbour of
``bench/noisy.py``: honest players timed alone and beside one client sending
the costliest refused calls it can, paced by its rate limit and then ignoring
it, against the server's real limits (whatever ``TABLETOP_RATE_LIMIT`` says).
Every schema is dropped at the end.

It exits with status 1 if any move was lost, stored twice or half, a game has
a gap, a feed differs, a client hung or got an answer it should not have (a
noisy call accepted or failing as INTERNAL or UNKNOWN); lost and duplicated
must be 0. The noisy neighbour's latencies are figures, never a failure.

Run it with ``python bench/soak.py`` after ``set -a; . .ci/.pg.env; set +a``
(the PostgreSQL of ``make test``).
"""

from __future__ import annotations

import argparse
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import grpc

from bench.length import default_database
from bench.moves import run_sql, schema_of
from bench.noisy import noisy_run
from tests.reliability.cluster import Cluster
from tests.reliability.contention import contention_run
from tests.reliability.crash import crash_run
from tests.reliability.outage import outage_run
from tests.reliability.shutdown import shutdown_run


def load() -> str:
    """Returns the load averages, as ``uptime`` prints them."""
    one, five, fifteen = Path("/proc/loadavg").read_text().split()[:3]
    return f"load average: {one}, {five}, {fifteen}"


def crash_rounds(rounds: int, clients: int, turns: int) -> bool:
    """Runs the crash scenario ``rounds`` times; returns whether all were clean."""
    clean = True
    totals = [0, 0, 0, 0, 0, 0, 0]
    recovery: list[float] = []
    for number in range(1, rounds + 1):
        database = default_database()
        try:
            figures = crash_run(
                database,
                clients=clients,
                turns=turns,
                kill_after=clients * turns // 3,
            )
        finally:
            run_sql(database, f"DROP SCHEMA IF EXISTS {schema_of(database)} CASCADE")
        v = figures.verdict
        print(f"crash {number}: {figures.summary()}", flush=True)
        for problem in [*figures.errors, *v.problems][:20]:
            print(f"  PROBLEM {problem}")
        clean = clean and not figures.errors and v.clean
        counts = (v.submitted, v.acknowledged, v.stored, v.lost, v.duplicated)
        more = (v.retried, figures.failed_over)
        totals = [t + n for t, n in zip(totals, (*counts, *more), strict=True)]
        recovery.extend(figures.recovery)
    worst = f"{max(recovery):.3f} s" if recovery else "-"
    print(
        f"crash total: submitted under faults {totals[0]}, acknowledged {totals[1]}, "
        f"stored {totals[2]}, lost {totals[3]}, duplicated {totals[4]}, retried "
        f"{totals[5]} (answered by the other server {totals[6]}), slowest client "
        f"recovery after a kill {worst}",
        flush=True,
    )
    return clean


def shutdown(clients: int, turns: int) -> bool:
    """Runs the graceful-shutdown scenario once; returns whether it was clean."""
    database = default_database()
    try:
        figures = shutdown_run(
            database, clients=clients, turns=turns, term_after=clients * turns // 3
        )
    finally:
        run_sql(database, f"DROP SCHEMA IF EXISTS {schema_of(database)} CASCADE")
    print(f"shutdown: {figures.summary()}", flush=True)
    v = figures.verdict
    for problem in [*figures.errors, *v.problems][:20]:
        print(f"  PROBLEM {problem}")
    code, reason, retry = figures.stream_end
    stream_ok = (code, reason, retry) == (
        grpc.StatusCode.UNAVAILABLE,
        "SERVER_SHUTTING_DOWN",
        True,
    )
    return (
        not figures.errors
        and v.clean
        and v.refused == 0
        and figures.exit_status == 0
        and stream_ok
        and figures.stream_resumed
    )


def outage(clients: int) -> bool:
    """Runs the database outage on a private cluster; returns whether it was clean."""
    cluster = Cluster()
    saved = {name: os.environ.get(name) for name in cluster.environ()}
    try:
        cluster.start()
        os.environ.update(cluster.environ())  # the ledger reads the cluster
        figures = outage_run(cluster, "soak_outage", clients=clients)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        cluster.remove()
    print(f"outage: {figures.summary()}", flush=True)
    for problem in [*figures.other_errors, *figures.verdict.problems][:20]:
        print(f"  PROBLEM {problem}")
    return (
        not figures.other_errors and figures.verdict.clean and figures.stream_complete
    )


def contention(games: int, clients: int, turns: int) -> bool:
    """Runs the contention scenario once; returns whether it was clean."""
    database = default_database()
    try:
        figures = contention_run(database, games=games, clients=clients, turns=turns)
    finally:
        run_sql(database, f"DROP SCHEMA IF EXISTS {schema_of(database)} CASCADE")
    print(f"contention: {figures.summary()}", flush=True)
    for problem in [*figures.problems, *figures.verdict.problems][:20]:
        print(f"  PROBLEM {problem}")
    return not figures.problems and figures.verdict.clean


def noisy(clients: int, seconds: float) -> bool:
    """Runs the noisy neighbour, paced and flooding; returns whether it was clean."""
    database = default_database()
    try:
        figures = noisy_run(database, clients=clients, seconds=seconds, flood=True)
    finally:
        run_sql(database, f"DROP SCHEMA IF EXISTS {schema_of(database)} CASCADE")
    print("noisy neighbour:", *figures.lines(), sep="\n  ", flush=True)
    faults = figures.faults(clients)
    for fault in faults[:20]:
        print(f"  PROBLEM {fault}")
    return not faults


def main() -> int:
    """Runs every scenario; returns 1 if any lost, repeated or tore a move."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="crash runs")
    parser.add_argument("--clients", type=int, default=16, help="per crash run")
    parser.add_argument("--turns", type=int, default=30, help="moves per client")
    parser.add_argument("--games", type=int, default=3, help="contended games")
    parser.add_argument("--racers", type=int, default=16, help="contending clients")
    parser.add_argument("--race-turns", type=int, default=40, help="per racer")
    parser.add_argument(
        "--outage-clients", type=int, default=8, help="clients through the outage"
    )
    parser.add_argument(
        "--noisy-clients", type=int, default=8, help="honest players by the noisy one"
    )
    parser.add_argument(
        "--noisy-seconds", type=float, default=20.0, help="per noisy neighbour phase"
    )
    args = parser.parse_args()
    started = time.monotonic()
    print(
        f"# soak {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"{load()}",
        flush=True,
    )
    clean = crash_rounds(args.rounds, args.clients, args.turns)
    clean = shutdown(args.clients, args.turns) and clean
    clean = outage(args.outage_clients) and clean
    clean = contention(args.games, args.racers, args.race_turns) and clean
    clean = noisy(args.noisy_clients, args.noisy_seconds) and clean
    print(
        f"# {'clean' if clean else 'FAILED'} after {time.monotonic() - started:.0f} s, "
        f"{load()}"
    )
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
