"""Probes of the event store for its watch: a read, or a small real write.

A read tells whether the store answers; it cannot tell a full disk, which
fails writes and serves reads. So once writes keep failing, the watch
(infra/store_watch.py) probes with a write that fails the way a move would,
in a table of its own, ``tabletop_store_probe``, which it leaves empty.
"""

from __future__ import annotations

import os
from typing import Any, Protocol

from eventsourcing.persistence import Recorder
from eventsourcing.postgres import PostgresRecorder
from eventsourcing.sqlite import SQLiteRecorder
from psycopg import sql

# How long a probe may wait for a connection of the store's pool.
PROBE_TIMEOUT_SECONDS = 2.0
PROBE_TABLE = "tabletop_store_probe"
# A PostgreSQL probe writes about as much as a move: one row, one WAL flush.
PROBE_BYTES = 4_096
# A SQLite probe writes more pages than the file has free (so the file must
# grow, as appends do), at most this many.
MAX_PROBE_PAGES = 256
# Serialises the probe table's creation between server processes: a
# concurrent CREATE TABLE IF NOT EXISTS can fail on PostgreSQL.
_PROBE_LOCK = 0x70726F6265  # "probe"


class StoreProbe(Protocol):
    """Raises unless the store answers (``write``: and takes a small write)."""

    def __call__(self, *, write: bool) -> None: ...


def probe_for(recorder: Recorder) -> StoreProbe:
    """Returns the probe that fits the application's recorder."""
    if isinstance(recorder, PostgresRecorder):
        return _PostgresProbe(recorder)
    if isinstance(recorder, SQLiteRecorder):
        return _SQLiteProbe(recorder)
    return _ReadProbe(recorder)


class _PostgresProbe:
    """Probes through the application's own pool: what a call will find."""

    def __init__(self, recorder: PostgresRecorder) -> None:
        self.pool = recorder.datastore.pool
        self.table = sql.Identifier(recorder.datastore.schema, PROBE_TABLE)

    def __call__(self, *, write: bool) -> None:
        if write:
            # After an outage every pooled connection is broken: drop them
            # before calls are let through again.
            self.pool.check()
        with self.pool.connection(timeout=PROBE_TIMEOUT_SECONDS) as connection:
            if not write:
                connection.execute("SELECT 1")
                return
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_PROBE_LOCK,))
                create = "CREATE TABLE IF NOT EXISTS {} (filler bytea NOT NULL)"
                connection.execute(sql.SQL(create).format(self.table))
                insert = sql.SQL("INSERT INTO {} VALUES (%s)").format(self.table)
                connection.execute(insert, (os.urandom(PROBE_BYTES),))
                connection.execute(sql.SQL("DELETE FROM {}").format(self.table))


class _SQLiteProbe:
    """Probes through the application's own pool of SQLite connections."""

    def __init__(self, recorder: SQLiteRecorder) -> None:
        self.datastore = recorder.datastore
        self.read = _ReadProbe(recorder)

    def __call__(self, *, write: bool) -> None:
        if not write:
            self.read(write=False)
            return
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(f"CREATE TABLE IF NOT EXISTS {PROBE_TABLE} (filler BLOB)")
            pages = _value(cursor, "PRAGMA freelist_count") + 2
            size = min(pages, MAX_PROBE_PAGES) * _value(cursor, "PRAGMA page_size")
            cursor.execute(f"INSERT INTO {PROBE_TABLE} VALUES (zeroblob(?))", (size,))  # noqa: S608 (a constant)
        # Apart: committed, the pages reached the write-ahead log on disk.
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(f"DELETE FROM {PROBE_TABLE}")  # noqa: S608 (a constant)


class _ReadProbe:
    """Any other store (memory:) can only fail to answer."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def __call__(self, *, write: bool) -> None:
        del write
        max_notification_id = getattr(self.recorder, "max_notification_id", None)
        if max_notification_id is not None:
            max_notification_id()


def _value(cursor: Any, pragma: str) -> int:
    cursor.execute(pragma)
    return int(cursor.fetchone()[0])
