"""Tables kept beside the event store, for what must be deletable for good.

The event log is immutable, so what ties a person to a player is kept beside
it: each player's personal key (``services/personal.py``) and which account a
credential signs in to (``services/credentials.py``). Each such side table has
three backends: PostgreSQL, in the application's schema through its own pool;
SQLite, in the application's file through its own connections; and a dict for
the in-memory store. This module holds what they share: choosing the backend
from the application's recorder, one object per recorder, creating the table
once (under an advisory lock on PostgreSQL), retrying while the database cannot
be reached, and running statements on each database.

Statements are written once for both databases, in PostgreSQL's parameter
style (``%s``) and naming their table ``{table}``; only ``CREATE TABLE``, whose
column types differ, is written per database.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, cast
from uuid import UUID
from weakref import WeakKeyDictionary

from eventsourcing.application import Application
from eventsourcing.persistence import InterfaceError, OperationalError
from eventsourcing.popo import POPORecorder
from eventsourcing.postgres import PostgresDatastore, PostgresRecorder
from eventsourcing.sqlite import SQLiteCursor, SQLiteDatastore, SQLiteRecorder
from eventsourcing.utils import retry, strtobool
from psycopg.sql import SQL, Composed, Identifier

P = ParamSpec("P")
R = TypeVar("R")
Params = Sequence[object]

# The library's recorders retry so while the database cannot be reached.
_retry = retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)


def retrying(func: Callable[P, R]) -> Callable[P, R]:
    """Calls ``func`` again while the database cannot be reached (ten times)."""
    return cast("Callable[P, R]", _retry(func))


class SideTable(Protocol):
    """What ``SideTables`` needs of the object it opens on a store."""

    def create_table(self) -> None:
        """Creates the table in the store when it does not exist yet."""


T = TypeVar("T", bound=SideTable)


class SideTables(Generic[T]):
    """Opens one kind of side table: one object per application recorder.

    The object is made by the factory for the recorder's database and kept
    while the recorder lives, so a process has one per store (and one cache,
    where the object keeps one).
    """

    def __init__(
        self,
        kind: str,
        *,
        postgres: Callable[[PostgresDatastore], T],
        sqlite: Callable[[SQLiteDatastore], T],
        memory: Callable[[], T],
    ) -> None:
        self._kind = kind
        self._postgres = postgres
        self._sqlite = sqlite
        self._memory = memory
        self._opened: WeakKeyDictionary[object, T] = WeakKeyDictionary()
        self._opening = threading.Lock()

    def open(self, app: Application[Any]) -> T:
        """Returns the side table beside the application's events.

        The first call for an application creates the table when missing,
        unless the application's ``CREATE_TABLE`` setting is off; later calls
        return the same object.
        """
        recorder = app.recorder
        with self._opening:
            table = self._opened.get(recorder)
            if table is None:
                table = self._make(recorder)
                if strtobool(app.factory.env.get("CREATE_TABLE") or "yes"):
                    table.create_table()
                self._opened[recorder] = table
            return table

    def _make(self, recorder: object) -> T:
        if isinstance(recorder, PostgresRecorder):
            return self._postgres(recorder.datastore)
        if isinstance(recorder, SQLiteRecorder):
            return self._sqlite(recorder.datastore)
        if isinstance(recorder, POPORecorder):
            return self._memory()
        msg = f"no store of {self._kind} beside a {type(recorder).__name__}"
        raise TypeError(msg)


class SQLTable(ABC):
    """A side table in the application's database, used through its connections.

    Reads return the first column of the first row found, or None.
    """

    @abstractmethod
    def create_table(self) -> None:
        """Creates the table and its indexes when they do not exist yet."""

    @abstractmethod
    def write_then_read(
        self, write: str, write_params: Params, read: str, read_params: Params
    ) -> Any:
        """Runs ``write`` then ``read`` in one transaction; returns what was read."""

    @abstractmethod
    def read(self, statement: str, params: Params) -> Any:
        """Runs one reading statement; returns what it read."""

    @abstractmethod
    def delete(self, statement: str, params: Params) -> int:
        """Runs one deleting statement; returns how many rows it deleted."""


class PostgresTable(SQLTable):
    """A side table in the application's PostgreSQL schema, through its pool.

    ``lock_tag`` (up to eight bytes) names the advisory lock under which
    processes create the table: concurrent ``CREATE TABLE IF NOT EXISTS`` can
    still fail on PostgreSQL's catalog index.
    """

    def __init__(
        self,
        datastore: PostgresDatastore,
        name: str,
        lock_tag: bytes,
        create: Sequence[str],
    ) -> None:
        if not 0 < len(lock_tag) <= 8:  # noqa: PLR2004 - a bigint's bytes
            msg = "an advisory lock's tag is one to eight bytes"
            raise ValueError(msg)
        self.datastore = datastore
        self._table = SQL("{}.{}").format(
            Identifier(datastore.schema), Identifier(name)
        )
        self._lock = int.from_bytes(lock_tag, "big", signed=True)
        self._create = tuple(create)
        self._prepared: dict[str, Composed] = {}

    def _sql(self, template: str) -> Composed:
        prepared = self._prepared.get(template)
        if prepared is None:
            prepared = SQL(template).format(table=self._table)
            self._prepared[template] = prepared
        return prepared

    def create_table(self) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock,))
            for statement in self._create:
                cursor.execute(self._sql(statement))

    @retrying
    def write_then_read(
        self, write: str, write_params: Params, read: str, read_params: Params
    ) -> Any:
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(self._sql(write), write_params)
            # A new statement sees what a racing writer committed meanwhile.
            cursor.execute(self._sql(read), read_params)
            row = cursor.fetchone()
        return None if row is None else next(iter(row.values()))

    # One statement each, so the pool's autocommit connection suffices.
    @retrying
    def read(self, statement: str, params: Params) -> Any:
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self._sql(statement), params)
            row = cursor.fetchone()
        return None if row is None else next(iter(row.values()))

    @retrying
    def delete(self, statement: str, params: Params) -> int:
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self._sql(statement), params)
            return cursor.rowcount


class SQLiteTable(SQLTable):
    """A side table in the application's SQLite file, through its connections.

    UUID parameters are stored as their text, and read back as text.
    """

    def __init__(
        self, datastore: SQLiteDatastore, name: str, create: Sequence[str]
    ) -> None:
        self.datastore = datastore
        self._name = name
        self._create = tuple(create)

    def _sql(self, template: str) -> str:
        return template.format(table=self._name).replace("%s", "?")

    def create_table(self) -> None:
        # SQLite runs one writer at a time: concurrent creators are safe.
        with self.datastore.transaction(commit=True) as cursor:
            for statement in self._create:
                cursor.execute(self._sql(statement))

    def write_then_read(
        self, write: str, write_params: Params, read: str, read_params: Params
    ) -> Any:
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(self._sql(write), _sqlite_params(write_params))
            return self._first(cursor, read, read_params)

    def read(self, statement: str, params: Params) -> Any:
        with self.datastore.transaction(commit=False) as cursor:
            return self._first(cursor, statement, params)

    def delete(self, statement: str, params: Params) -> int:
        """Deletes, zeroing the deleted rows' bytes in the file (not in older
        WAL frames); returns how many rows it deleted."""
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute("PRAGMA secure_delete")
            before = int(cursor.fetchone()[0])
            cursor.execute("PRAGMA secure_delete = ON")
            cursor.execute(self._sql(statement), _sqlite_params(params))
            cursor.execute("SELECT changes()")
            deleted = int(cursor.fetchone()[0])
            # Leaves the library's connection as it was.
            cursor.execute("PRAGMA secure_delete = " + ("ON" if before else "OFF"))
            return deleted

    def _first(self, cursor: SQLiteCursor, statement: str, params: Params) -> Any:
        cursor.execute(self._sql(statement), _sqlite_params(params))
        row = cursor.fetchone()
        return None if row is None else row[0]


def _sqlite_params(params: Params) -> tuple[object, ...]:
    return tuple(str(value) if isinstance(value, UUID) else value for value in params)
