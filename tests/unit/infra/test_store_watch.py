"""The store watch's decisions, on a fake store, and its write probes on real ones.

The fake store fails commits and probes on demand, which stands for what no
test here can do to PostgreSQL: fill its disk. The decision is the same for
every store; the probes are then run against a real PostgreSQL and SQLite.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast
from uuid import uuid4

import pytest
from eventsourcing.persistence import OperationalError
from eventsourcing.sqlite import SQLiteConnection, SQLiteRecorder
from grpc_health.v1 import health, health_pb2

from infra.event_store import create_app
from infra.settings import Settings
from infra.store_probe import PROBE_TABLE, probe_for
from infra.store_watch import WRITE_FAILURES, StoreWatch
from services.api.gate import Gate
from services.commits import GroupCommit
from services.games import GamesApp
from tests.pg import connect, fresh_schema

SERVICES = ("", "tabletop.v1.GameService")
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class FakeStore:
    """Commits and probes that fail while ``full`` is set, as on a full disk."""

    def __init__(self) -> None:
        self.full = False
        self.down = False  # reads fail too
        self.probes: list[bool] = []  # each probe: whether it wrote

    def write(self, events: Sequence[object]) -> None:
        del events
        if self.full or self.down:
            msg = "database or disk is full"
            raise OperationalError(msg)

    def probe(self, *, write: bool) -> None:
        self.probes.append(write)
        if self.down or (write and self.full):
            msg = "database or disk is full"
            raise OperationalError(msg)


class Watched:
    """A watch over the fake store, its gate and its health service."""

    def __init__(self) -> None:
        self.store = FakeStore()
        self.app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
        self.app.commits = GroupCommit(self.store.write)
        self.gate = Gate()
        self.health = health.aio.HealthServicer()
        self.watch = StoreWatch(
            self.app, self.health, self.gate, SERVICES, probe=self.store.probe
        )

    def commit(self) -> bool:
        """Commits one append through the group commit; returns whether it did."""
        try:
            self.app.commits.commit(uuid4(), [object()])
        except OperationalError:
            return False
        return True

    async def status(self) -> list[int]:
        """Returns the health status of every service."""
        checks = [
            await self.health.Check(
                health_pb2.HealthCheckRequest(service=name), cast("Any", None)
            )
            for name in SERVICES
        ]
        return [check.status for check in checks]


@pytest.fixture
async def watched() -> Watched:
    made = Watched()
    for name in SERVICES:  # as create_server does
        await made.health.set(name, SERVING)
    return made


async def test_commits_failing_in_a_row_turn_health_not_serving(
    watched: Watched,
) -> None:
    watched.store.full = True
    for _ in range(WRITE_FAILURES - 1):
        assert not watched.commit()
        await watched.watch.check()
    assert await watched.status() == [SERVING, SERVING]  # reads still work
    assert not watched.commit()
    await watched.watch.check()
    assert await watched.status() == [NOT_SERVING, NOT_SERVING]
    assert not watched.gate.store_reachable


async def test_a_commit_between_failures_starts_the_count_again(
    watched: Watched,
) -> None:
    for full in [True] * (WRITE_FAILURES - 1) + [False] + [True] * (WRITE_FAILURES - 1):
        watched.store.full = full
        assert watched.commit() is not full
        await watched.watch.check()
    assert await watched.status() == [SERVING, SERVING]
    assert watched.gate.store_reachable


async def test_only_a_probe_that_writes_serves_again(watched: Watched) -> None:
    watched.store.full = True
    for _ in range(WRITE_FAILURES):
        watched.commit()
    await watched.watch.check()
    watched.store.probes.clear()
    for _ in range(3):  # reads would work: the probe must write
        await watched.watch.check()
    assert watched.store.probes == [True, True, True]
    assert await watched.status() == [NOT_SERVING, NOT_SERVING]
    watched.store.full = False
    await watched.watch.check()
    assert await watched.status() == [SERVING, SERVING]
    assert watched.gate.store_reachable
    # The failures before the outage's end count no more; reads probe again.
    assert watched.app.commits.failing_writes == 0
    await watched.watch.check()
    assert watched.store.probes[-1] is False
    assert await watched.status() == [SERVING, SERVING]


async def test_a_store_that_does_not_answer_turns_health_not_serving(
    watched: Watched,
) -> None:
    watched.store.down = True
    await watched.watch.check()
    assert await watched.status() == [NOT_SERVING, NOT_SERVING]
    watched.store.down = False
    await watched.watch.check()
    assert await watched.status() == [SERVING, SERVING]


# --- the probes on real stores ---


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """Yields the URL of an empty PostgreSQL schema."""
    with fresh_schema() as url:
        yield url


@pytest.mark.integration
def test_the_postgres_probe_writes_a_row_and_leaves_none(postgres_url: str) -> None:
    app = create_app(Settings(database=postgres_url))
    try:
        probe = probe_for(app.recorder)
        probe(write=False)
        probe(write=True)
        probe(write=True)  # its table exists now
    finally:
        app.close()
    schema = postgres_url.rsplit("schema=", 1)[1]
    with connect() as connection:
        rows = connection.execute(
            f'SELECT count(*) FROM "{schema}".{PROBE_TABLE}'  # noqa: S608 (test names)
        ).fetchone()
    assert rows == (0,)


def test_the_sqlite_probe_fails_on_a_full_file_and_leaves_no_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "games.sqlite3"
    app = create_app(Settings(database=f"sqlite:///{database}"))
    try:
        probe = probe_for(app.recorder)
        probe(write=True)  # creates its table; freed pages stay in the file
        with sqlite3.connect(database) as connection:
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
        recorder = app.recorder
        assert isinstance(recorder, SQLiteRecorder)
        pool = recorder.datastore.pool
        handed_out = pool.get_connection

        def capped(
            timeout: float | None = None, *, is_writer: bool | None = None
        ) -> SQLiteConnection:
            connection = handed_out(timeout, is_writer=is_writer)
            connection._sqlite_conn.execute(f"PRAGMA max_page_count = {pages}")
            return connection

        monkeypatch.setattr(pool, "get_connection", capped)
        with pytest.raises(OperationalError, match="full"):
            probe(write=True)
        probe(write=False)  # a full file still reads
    finally:
        app.close()
    count = f"SELECT count(*) FROM {PROBE_TABLE}"  # noqa: S608 (a constant)
    with sqlite3.connect(database) as connection:
        assert connection.execute(count).fetchone() == (0,)
