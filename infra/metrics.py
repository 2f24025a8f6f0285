"""Prometheus metrics of a server process (imported only when metrics are on).

Every label has a bounded set of values: services, methods and status codes
of the API, ``ErrorInfo`` reasons (stable strings of this code), game types.
Never a game id, token or address.

The call metrics come from ``observe``, an observer of every call
(services/api/observe.py). The event store's figures (the PostgreSQL pool,
group commits) are read when Prometheus scrapes (``StoreCollector``); under
``--processes N`` each server writes its metrics to files that the supervisor
aggregates (decision S7 in docs/decisions.md), so there a thread samples the
store's figures every second instead (``sample_store``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
from eventsourcing.postgres import PostgresRecorder
from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from services.api.observe import Call
from services.games import GamesApp

log = logging.getLogger(__name__)

# From a move answered from memory to a call that waited out a store hiccup.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
_CALL = ("service", "method", "code")

RPC_DURATION = Histogram(
    "tabletop_rpc_duration_seconds",
    "Time from receiving a unary call to its answer, by service, method and "
    "status code.",
    _CALL,
    buckets=BUCKETS,
)
RPC_HANDLED = Counter(
    "tabletop_rpc_handled",
    "Calls that ended (unary calls and StreamGame), by service, method and "
    "status code.",
    _CALL,
)
REFUSALS = Counter(
    "tabletop_refusals",
    "Calls answered with an error, by service, method, status code and the "
    "google.rpc.ErrorInfo reason of the error.",
    (*_CALL, "reason"),
)
MOVES = Counter(
    "tabletop_moves_accepted",
    "Moves accepted (SubmitMove calls answered OK), by game type.",
    ("game_type",),
)
OPEN_STREAMS = Gauge(
    "tabletop_open_streams",
    "StreamGame calls open now.",
    multiprocess_mode="livesum",
)
# name, psycopg_pool get_stats() key, help
POOL = (
    ("tabletop_db_pool_size", "pool_size", "Connections the database pool holds."),
    (
        "tabletop_db_pool_available",
        "pool_available",
        "Connections idle in the database pool.",
    ),
    (
        "tabletop_db_pool_waiting",
        "requests_waiting",
        "Calls waiting for a connection of the database pool.",
    ),
    ("tabletop_db_pool_max", "pool_max", "The database pool's maximum size."),
)
COMMITS = (
    (
        "tabletop_commit_transactions",
        "transactions",
        (
            "Transactions written by group commit; appends / transactions is "
            "the mean batch."
        ),
    ),
    (
        "tabletop_commit_appends",
        "appends",
        "Commands' appends written by group commit.",
    ),
)


@contextmanager
def observe(call: Call) -> Iterator[None]:
    """Counts and times a call; counts an open stream while it is open."""
    started = time.perf_counter()
    if call.streaming:
        OPEN_STREAMS.inc()
    try:
        yield
    finally:
        if call.streaming:
            OPEN_STREAMS.dec()
        record(call, time.perf_counter() - started)


def record(call: Call, seconds: float) -> None:
    """Records how a call ended."""
    code = call.code.name
    RPC_HANDLED.labels(call.service, call.method, code).inc()
    if not call.streaming:
        RPC_DURATION.labels(call.service, call.method, code).observe(seconds)
    if call.code is not grpc.StatusCode.OK:
        if call.reason:
            REFUSALS.labels(call.service, call.method, code, call.reason).inc()
    elif call.method == "SubmitMove":
        MOVES.labels(game_type(call.request)).inc()


def game_type(request: Any) -> str:
    """Returns the game member of a SubmitMove request's move (``qwirkle``, ...)."""
    move = getattr(request, "move", None)
    which = move.WhichOneof("game") if move is not None else None
    return str(which) if which else "unknown"


def pool_stats(app: GamesApp) -> dict[str, int] | None:
    """Returns the PostgreSQL pool's figures now, or None on another store."""
    recorder = app.recorder
    if not isinstance(recorder, PostgresRecorder):
        return None
    stats: dict[str, int] = recorder.datastore.pool.get_stats()
    return stats


def commit_counts(app: GamesApp) -> dict[str, int]:
    """Returns the group commit's transactions and appends so far."""
    commits = app.commits
    return {"transactions": commits.transactions, "appends": commits.appends}


class StoreCollector(Collector):
    """The event store's figures, read at every scrape."""

    def __init__(self, app: GamesApp) -> None:
        self._app = app

    def collect(self) -> Iterable[Metric]:
        """Yields the pool's gauges (on PostgreSQL) and the commit counters."""
        stats = pool_stats(self._app)
        if stats is not None:
            for name, key, text in POOL:
                yield GaugeMetricFamily(name, text, value=stats.get(key, 0))
        counts = commit_counts(self._app)
        for name, key, text in COMMITS:
            yield CounterMetricFamily(name, text, value=counts[key])


def sample_store(app: GamesApp, every: float = 1.0) -> Callable[[], None]:
    """Copies the store's figures into metrics every ``every`` seconds.

    For multiprocess mode, where only metrics written to files are served.
    Returns a function that stops the sampling.
    """
    pool = {
        key: Gauge(name, text, multiprocess_mode="livesum") for name, key, text in POOL
    }
    commits = {key: Counter(name, text) for name, key, text in COMMITS}
    stopped = threading.Event()

    def run() -> None:
        seen = dict.fromkeys(commits, 0)
        while True:
            try:
                for key, value in (pool_stats(app) or {}).items():
                    if key in pool:
                        pool[key].set(value)
                for key, value in commit_counts(app).items():
                    commits[key].inc(value - seen[key])
                    seen[key] = value
            except Exception:  # a closing pool: the next sample will tell
                log.debug("sampling the store's figures failed", exc_info=True)
            if stopped.wait(every):
                return

    thread = threading.Thread(target=run, name="tabletop-metrics", daemon=True)
    thread.start()

    def stop() -> None:
        stopped.set()
        thread.join()

    return stop
