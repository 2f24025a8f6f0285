"""The PostgreSQL recorder of the games: a transaction is one round trip.

The library's recorder writes a transaction in pipeline mode, but still waits
on the connection about 14 times for it (BEGIN, the lock timeout, the table
lock, NOTIFY, the insert, a sync to see a collision before COMMIT, COMMIT, and
the polls in between), and pays Python for each. This one sends the whole
transaction as one query string of several statements (PostgreSQL's simple
query protocol), with the values bound on the client:

    SET LOCAL lock_timeout = ...; LOCK TABLE ... IN EXCLUSIVE MODE;
    NOTIFY ...; INSERT ... SELECT * FROM unnest(...) RETURNING notification_id

PostgreSQL runs the statements of one query string in one implicit
transaction, committed after the last of them and rolled back at the first
error, so the connection is idle again either way: one round trip for a
batch of any size, and nothing more when it is refused.

Everything else is the library's: the same table, type and index, the same
``EXCLUSIVE`` table lock held until the commit (so notification ids are issued
in commit order and a reader never passes over a gap filled in later), the same
NOTIFY for the library's subscriptions, ``IntegrityError`` when an event takes a
(game, revision) that is already stored (and then nothing of the batch is
stored), the library's retries when the database is unreachable, and its
reading side unchanged. Servers running this recorder and servers running the
library's can share one database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import psycopg
from eventsourcing.persistence import (
    InterfaceError,
    OperationalError,
    ProgrammingError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Composable, Identifier, Literal

if TYPE_CHECKING:
    from collections.abc import Sequence
    from uuid import UUID

# What the application's environment names to use this recorder.
TOPIC = "infra.pg_recorder:OneTripRecorder"


class OneTripRecorder(PostgresApplicationRecorder):
    """The library's application recorder, writing a batch in one round trip."""

    def __init__(
        self,
        datastore: PostgresDatastore,
        *,
        events_table_name: str = "stored_events",
    ) -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        table = SQL("{}.{}").format(
            Identifier(self.datastore.schema), Identifier(self.events_table_name)
        )
        id_type = SQL(self.datastore.originator_id_type)
        self.one_trip_statement = SQL(
            "SET LOCAL lock_timeout = {timeout}; "
            "LOCK TABLE {table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "INSERT INTO {table} "
            "(originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest("
            "%s::{id_type}[], %s::bigint[], %s::text[], %s::bytea[]) "
            "RETURNING notification_id"
        ).format(
            timeout=Literal(f"{self.datastore.lock_timeout}s"),
            table=table,
            channel=Identifier(self.channel_name),
            id_type=id_type,
        )
        # The statements as the server reads them, composed once (psycopg
        # composes an ``SQL`` object again on every execute, and caches the
        # parsing of a query it is given as bytes).
        self._one_trip_query: bytes | None = None
        self._select_queries: dict[tuple[bool, bool, bool, bool], bytes] = {}

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """Stores the events in one transaction; returns their notification ids.

        Raises the library's ``IntegrityError`` (and stores none of them) when
        one of them is at a version its aggregate already has; retries, as the
        library does, while the database cannot be reached.
        """
        if not stored_events:
            return []
        params = (
            [event.originator_id for event in stored_events],
            [event.originator_version for event in stored_events],
            [event.topic for event in stored_events],
            [event.state for event in stored_events],
        )
        with (
            self.datastore.get_connection() as conn,
            psycopg.ClientCursor(conn) as cursor,
        ):
            if self._one_trip_query is None:
                self._one_trip_query = self.one_trip_statement.as_bytes(conn)
            cursor.execute(self._one_trip_query, params)
            while cursor.nextset():  # to the insert's result, the last
                pass
            rows = cursor.fetchall()
        ids = [row["notification_id"] for row in rows]
        if len(ids) != len(stored_events):
            msg = "Couldn't get all notification IDs "
            msg += f"(got {len(ids)}, expected {len(stored_events)})"
            raise ProgrammingError(msg)
        return ids

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        """The library's query, composed once for each combination of its options."""
        params: list[Any] = [originator_id]
        params += [value for value in (gt, lte, limit) if value is not None]
        shape = (gt is not None, lte is not None, desc, limit is not None)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            query = self._select_queries.get(shape)
            if query is None:
                query = self._select_query(shape).as_bytes(conn)
                self._select_queries[shape] = query
            curs.execute(query, params, prepare=True)
            return [
                StoredEvent(
                    originator_id=row["originator_id"],
                    originator_version=row["originator_version"],
                    topic=row["topic"],
                    state=bytes(row["state"]),
                )
                for row in curs.fetchall()
            ]

    def _select_query(self, shape: tuple[bool, bool, bool, bool]) -> Composable:
        """Returns the library's ``select_events`` statement for these options."""
        gt, lte, desc, limit = shape
        statement: Composable = self.select_events_statement
        if gt:
            statement += SQL(" AND originator_version > %s")
        if lte:
            statement += SQL(" AND originator_version <= %s")
        statement += SQL(" ORDER BY originator_version")
        statement += SQL(" DESC" if desc else " ASC")
        if limit:
            statement += SQL(" LIMIT %s")
        return statement
