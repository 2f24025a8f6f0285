"""The store: what one transaction of moves costs the process, per recorder.

Appends transactions of 1 and of 16 moves (one event each, of 16 different
games, as a group commit writes them: ``services/commits.py``) through the
application's recorder on PostgreSQL, first with the library's recorder
(``eventsourcing.postgres.PostgresApplicationRecorder``), then with the one
the server uses (``infra/pg_recorder.py``), each on a new schema, and prints
per transaction and per move:

* ``trips``: round trips to the server, the times the client sent what it had
  and then could only wait for an answer;
* ``waits``: the times psycopg waited on the connection (each a generator run
  by its wait function, a poll of the socket at least);
* ``polls``: the socket polls of those waits;
* ``cpu``: CPU time of this process (every thread) per appended move, in
  microseconds, measured in a separate run without the counting;
* ``wall``: elapsed time per transaction, in milliseconds.

The counting replaces psycopg's wait function with a Python one that counts
while it waits. Run it with ``.venv/bin/python -m bench.store`` (the database of
``make test``, ``.ci/.pg.env``; ``--database postgresql://...`` for another).
"""

from __future__ import annotations

import argparse
import os
import select
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg.waiting
from eventsourcing.persistence import StoredEvent
from psycopg.waiting import Ready, Wait

from bench.fanout import drop_schema
from bench.length import default_database
from infra import event_store
from infra.event_store import create_app
from infra.settings import Settings

TOPIC = "qwirkle.TilesPlaced"  # a move's topic, as the games store it
STATE_BYTES = 600  # about what a move's state takes


@dataclass
class Counts:
    """What the counting wait function saw."""

    trips: int = 0
    waits: int = 0
    polls: int = 0


@contextmanager
def counting() -> Iterator[Counts]:
    """Counts psycopg's waits on its connections while in the block."""
    counts = Counts()
    original = psycopg.waiting.wait

    def wait(
        gen: Any,
        fileno: int,
        interval: float | None = None,
        timeout: float | None = None,
    ) -> Any:
        del interval, timeout  # it waits as long as it takes
        counts.waits += 1
        sent = True  # a wait begins once the caller has queued what it sends
        try:
            state = next(gen)
            while True:
                if state == Wait.R:
                    if sent:
                        counts.trips += 1
                    sent = False
                else:
                    sent = True
                counts.polls += 1
                readers = [fileno] if state & Wait.R else []
                writers = [fileno] if state & Wait.W else []
                readable, writable, _ = select.select(readers, writers, [])
                ready = (Ready.R if readable else 0) | (Ready.W if writable else 0)
                state = gen.send(Ready(ready))
        except StopIteration as stop:
            return stop.value

    psycopg.waiting.wait = wait
    try:
        yield counts
    finally:
        psycopg.waiting.wait = original


class Moves:
    """Stored moves of ``games`` games, each next one at the game's next revision."""

    def __init__(self, games: int) -> None:
        self.games = [uuid.uuid4() for _ in range(games)]
        self.revision = 0

    def batch(self) -> list[StoredEvent]:
        self.revision += 1
        return [
            StoredEvent(game, self.revision, TOPIC, os.urandom(STATE_BYTES))
            for game in self.games
        ]


def measure(
    insert: Callable[[list[StoredEvent]], object], size: int, transactions: int
) -> dict[str, float]:
    """Appends ``transactions`` batches of ``size`` moves, counted, then timed."""
    moves = Moves(size)
    for _ in range(5):  # prepared statements, type adapters, a warm pool
        insert(moves.batch())
    batches = [moves.batch() for _ in range(transactions)]
    with counting() as counts:
        for batch in batches:
            insert(batch)
    batches = [moves.batch() for _ in range(transactions)]
    cpu, wall = time.process_time(), time.perf_counter()
    for batch in batches:
        insert(batch)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {
        "trips": counts.trips / transactions,
        "waits": counts.waits / transactions,
        "polls": counts.polls / transactions,
        "cpu": cpu / (transactions * size) * 1e6,
        "wall": wall / transactions * 1e3,
    }


def with_schema(database: str, schema: str) -> str:
    return urlunsplit(urlsplit(database)._replace(query=f"schema={schema}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default=None, help="default: make test's")
    parser.add_argument("--transactions", type=int, default=400)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1, 16])
    args = parser.parse_args()
    database = args.database or default_database()
    recorders = {
        "library": {},
        "one trip": dict(event_store.RECORDER_ENV),
    }
    print(f"# {args.transactions} transactions of each size, one recorder at a time")
    print("# per transaction: trips, waits, polls; cpu in us per move; wall in ms")
    header = f"{'recorder':<10} {'moves':>5} {'trips':>6} {'trips/move':>10}"
    header += f" {'waits':>6} {'polls':>6} {'cpu/move':>9} {'wall':>6}"
    print(header)
    for name, env in recorders.items():
        event_store.RECORDER_ENV = env
        url = with_schema(database, f"bench_{uuid.uuid4().hex[:8]}")
        app = create_app(Settings(database=url))
        try:
            recorder = type(app.recorder).__name__
            for size in args.sizes:
                row = measure(app.recorder.insert_events, size, args.transactions)
                print(
                    f"{name:<10} {size:>5} {row['trips']:>6.2f}"
                    f" {row['trips'] / size:>10.3f} {row['waits']:>6.2f}"
                    f" {row['polls']:>6.2f} {row['cpu']:>9.1f} {row['wall']:>6.3f}"
                    f"  ({recorder})"
                )
        finally:
            app.close()
            drop_schema(url)


if __name__ == "__main__":
    main()
