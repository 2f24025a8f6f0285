"""The players' view: "my games" rows and the notification outbox, with tracking.

What the players' projection (``services/projection.py``) makes of the log is
stored here, beside the events, with the ``eventsourcing`` library's tracking
recorders: a page of the log's changes (the rows of each game it touched, the
notifications it made) and the page's position are written in one
transaction, so a change is applied once whatever restarts or other processes
do. On PostgreSQL (the application's schema and pool) and SQLite (its file)
the tables are ``tabletop_my_games``, ``tabletop_outbox`` and the tracking
table; the in-memory store keeps dicts.

The outbox is read by the push delivery (``services/delivery.py``), which
marks what a gateway acknowledged, and by StreamNotifications.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import Tracking, TrackingRecorder
from eventsourcing.popo import POPOTrackingRecorder
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL, Identifier

from domain.common.table import TableStatus
from services.my_games import COLUMNS, MyGameRow, row_of, values
from services.notifications import Kind, Notice
from services.side_tables import SideTables

GAMES, OUTBOX = "tabletop_my_games", "tabletop_outbox"
TRACKING_TABLE = "tabletop_tracking"
# Each game's new rows, by game.
Games = Sequence[tuple[UUID, Sequence[MyGameRow]]]
_CREATE_LOCK = int.from_bytes(b"tt.plyrs", "big")
_DELIVERY_LOCK = int.from_bytes(b"tt.deliv", "big")
# Before every row of a listing: every rank is at least 0.
_START = (-1, 0, "00000000-0000-0000-0000-000000000000")


@dataclass(frozen=True, slots=True)
class Stored:
    """A notification in the outbox: its id, itself, and its delivery so far."""

    id: int
    notice: Notice
    attempts: int = 0
    next_attempt: datetime | None = None


class PlayersView(ABC):
    """The stored view: rows replaced a game at a time, notifications appended."""

    tracking: TrackingRecorder

    @abstractmethod
    def create_table(self) -> None:
        """Creates the view's tables when missing."""

    @abstractmethod
    def apply(
        self,
        games: Games,
        notices: Sequence[Notice],
        tracking: Tracking,
        erased: Sequence[UUID] = (),
    ) -> None:
        """Replaces each game's rows, appends the notices, removes every row
        and notification of the ``erased`` (deleted) players and records
        ``tracking``, atomically; raises the library's ``IntegrityError``,
        changing nothing, when ``tracking`` was recorded already."""

    @abstractmethod
    def page(
        self, player_id: UUID, after: tuple[int, int, str] | None, size: int
    ) -> list[MyGameRow]:
        """Returns up to ``size`` of the player's rows after ``after``, in order."""

    @abstractmethod
    def unfinished(self, player_id: UUID) -> list[UUID]:
        """Returns the games the player sits at that are not over, in one read
        (where a game stands in the listing moves as it is played)."""

    @abstractmethod
    def undelivered(self, limit: int, after: int = 0) -> list[Stored]:
        """Returns the oldest notifications after id ``after`` that no gateway
        has acknowledged yet."""

    @abstractmethod
    def delivered(self, ids: Sequence[int], at: datetime) -> None:
        """Marks notifications acknowledged."""

    @abstractmethod
    def retry_later(self, stored: Stored, at: datetime) -> None:
        """Counts a failed delivery and sets when to try again."""

    @abstractmethod
    def since(
        self, after: int, limit: int, player_id: UUID | None = None
    ) -> list[Stored]:
        """Returns the notifications after id ``after``, oldest first: the
        oldest ``limit`` of them, or with a player the newest ``limit`` of the
        player's."""

    @abstractmethod
    def newest(self) -> int:
        """Returns the newest notification's id (0: none)."""

    @abstractmethod
    def delivering(self) -> contextlib.AbstractContextManager[bool]:
        """Holds the right to deliver, if no other process holds it: yields
        whether this one does."""


def _notice(values: Sequence[Any]) -> Stored:
    """Returns an outbox row read back: ``_OUTBOX_COLUMNS``, in order."""
    ident, player, game, game_type, kind, revision, at, attempts, next_at = values
    notice = Notice(
        _uuid(player),
        _uuid(game),
        str(game_type),
        Kind(kind),
        int(revision),
        _time(at),
    )
    return Stored(
        int(ident), notice, int(attempts), _time(next_at) if next_at else None
    )


def _uuid(value: object) -> UUID:
    return value if isinstance(value, UUID) else UUID(str(value))


def _time(value: object) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


_OUTBOX_COLUMNS = (
    "id, player_id, game_id, game_type, kind, revision, created_at, attempts, "
    "next_attempt_at"
)
# Statements written once, in PostgreSQL's style; SQLite's differ by "?".
_SQL = {
    "insert_row": f"INSERT INTO {{games}} ({COLUMNS}, rank, activity) "  # noqa: S608
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
    "delete_rows": "DELETE FROM {games} WHERE game_id = %s",
    "erase_rows": "DELETE FROM {games} WHERE player_id = %s",
    "erase_notices": "DELETE FROM {outbox} WHERE player_id = %s",
    "page": f"SELECT {COLUMNS} FROM {{games}} WHERE player_id = %s "  # noqa: S608
    "AND (rank, activity, game_id) > (%s, %s, %s) "
    "ORDER BY rank, activity, game_id LIMIT %s",
    "unfinished": "SELECT game_id FROM {games} WHERE player_id = %s "
    "AND status NOT IN ('FINISHED', 'CLOSED')",
    "insert_notice": "INSERT INTO {outbox} (key, player_id, game_id, game_type, "
    "kind, revision, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (key) DO NOTHING",
    "undelivered": f"SELECT {_OUTBOX_COLUMNS} FROM {{outbox}} "  # noqa: S608
    "WHERE delivered_at IS NULL AND id > %s ORDER BY id LIMIT %s",
    "delivered": "UPDATE {outbox} SET delivered_at = %s WHERE id = %s",
    "retry_later": "UPDATE {outbox} SET attempts = attempts + 1, "
    "next_attempt_at = %s WHERE id = %s",
    "since": f"SELECT {_OUTBOX_COLUMNS} FROM {{outbox}} "  # noqa: S608
    "WHERE id > %s ORDER BY id LIMIT %s",
    "since_of": f"SELECT * FROM (SELECT {_OUTBOX_COLUMNS} FROM {{outbox}} "  # noqa: S608
    "WHERE player_id = %s AND id > %s ORDER BY id DESC LIMIT %s) AS newest "
    "ORDER BY id",
    "newest": "SELECT COALESCE(MAX(id), 0) FROM {outbox}",
}


class _SQLView(PlayersView):
    """The view on a SQL database: what PostgreSQL and SQLite share."""

    @abstractmethod
    def _insert_tracking(self, curs: Any, tracking: Tracking) -> None:
        """Records ``tracking`` in the transaction of ``curs`` (the library's
        recorder does), failing if it was recorded already."""

    @abstractmethod
    def _statement(self, name: str) -> Any:
        """Returns a statement of ``_SQL``, for this database."""

    @abstractmethod
    def _cursor(self, *, commit: bool) -> contextlib.AbstractContextManager[Any]:
        """Returns a cursor in a transaction (committed at the end if ``commit``)."""

    def _param(self, value: object) -> object:
        return value

    def _rows(self, curs: Any) -> list[Sequence[Any]]:
        return [tuple(row) for row in curs.fetchall()]

    def _run(self, curs: Any, name: str, *params: object) -> None:
        curs.execute(self._statement(name), tuple(self._param(p) for p in params))

    def apply(
        self,
        games: Games,
        notices: Sequence[Notice],
        tracking: Tracking,
        erased: Sequence[UUID] = (),
    ) -> None:
        with self._cursor(commit=True) as curs:
            self._insert_tracking(curs, tracking)
            for game_id, rows in games:
                self._run(curs, "delete_rows", game_id)
                for row in rows:
                    self._run(curs, "insert_row", *values(row))
            for notice in notices:
                self._run(
                    curs,
                    "insert_notice",
                    notice.key,
                    notice.player_id,
                    notice.game_id,
                    notice.game_type,
                    notice.kind.value,
                    notice.revision,
                    notice.at,
                )
            for player in erased:
                self._run(curs, "erase_rows", player)
                self._run(curs, "erase_notices", player)

    def page(
        self, player_id: UUID, after: tuple[int, int, str] | None, size: int
    ) -> list[MyGameRow]:
        rank, activity, game = after or _START
        with self._cursor(commit=False) as curs:
            self._run(curs, "page", player_id, rank, activity, UUID(game), size)
            return [row_of(found) for found in self._rows(curs)]

    def unfinished(self, player_id: UUID) -> list[UUID]:
        with self._cursor(commit=False) as curs:
            self._run(curs, "unfinished", player_id)
            return [_uuid(found[0]) for found in self._rows(curs)]

    def undelivered(self, limit: int, after: int = 0) -> list[Stored]:
        with self._cursor(commit=False) as curs:
            self._run(curs, "undelivered", after, limit)
            return [_notice(found) for found in self._rows(curs)]

    def delivered(self, ids: Sequence[int], at: datetime) -> None:
        with self._cursor(commit=True) as curs:
            for ident in ids:
                self._run(curs, "delivered", at, ident)

    def retry_later(self, stored: Stored, at: datetime) -> None:
        with self._cursor(commit=True) as curs:
            self._run(curs, "retry_later", at, stored.id)

    def since(
        self, after: int, limit: int, player_id: UUID | None = None
    ) -> list[Stored]:
        with self._cursor(commit=False) as curs:
            if player_id is None:
                self._run(curs, "since", after, limit)
            else:
                self._run(curs, "since_of", player_id, after, limit)
            return [_notice(found) for found in self._rows(curs)]

    def newest(self) -> int:
        with self._cursor(commit=False) as curs:
            self._run(curs, "newest")
            return int(self._rows(curs)[0][0])


class PostgresPlayersView(PostgresTrackingRecorder, _SQLView):
    """The view in the application's PostgreSQL schema, through its pool."""

    def __init__(self, datastore: PostgresDatastore) -> None:
        super().__init__(datastore, tracking_table_name=TRACKING_TABLE)
        self.tracking = self
        schema = Identifier(datastore.schema)
        names = {
            "games": SQL("{}.{}").format(schema, Identifier(GAMES)),
            "outbox": SQL("{}.{}").format(schema, Identifier(OUTBOX)),
        }
        self._statements = {
            name: SQL(text).format(**names) for name, text in _SQL.items()
        }
        self.sql_create_statements += [
            SQL(text).format(**names, index=Identifier(index))
            for index, text in _POSTGRES_CREATE
        ]

    def create_table(self) -> None:
        """Creates the tables, one process at a time: server processes start
        together, and the library's check and first row of its tracking table
        must not interleave with another process's."""
        with self.datastore.get_connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_CREATE_LOCK,))
            try:
                super().create_table()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_CREATE_LOCK,))

    def _statement(self, name: str) -> Any:
        return self._statements[name]

    def _cursor(self, *, commit: bool) -> contextlib.AbstractContextManager[Any]:
        return self.datastore.transaction(commit=commit)

    def _rows(self, curs: Any) -> list[Sequence[Any]]:
        return [tuple(row.values()) for row in curs.fetchall()]

    @contextlib.contextmanager
    def delivering(self) -> Iterator[bool]:
        # A session lock on a connection held for the round: a process that
        # dies lets it go with its connection.
        with self.datastore.get_connection() as conn:
            held = conn.execute(
                "SELECT pg_try_advisory_lock(%s)", (_DELIVERY_LOCK,)
            ).fetchone()
            mine = bool(held and next(iter(held.values())))
            try:
                yield mine
            finally:
                if mine:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (_DELIVERY_LOCK,))


_POSTGRES_CREATE = (
    (
        "",
        (
            "CREATE TABLE IF NOT EXISTS {games} (player_id uuid NOT NULL, "
            "game_id uuid NOT NULL, seat integer NOT NULL, game_type text NOT NULL, "
            "status text NOT NULL, my_turn boolean NOT NULL, score integer NOT NULL, "
            "revision bigint NOT NULL, updated_at timestamptz NOT NULL, "
            "detail text NOT NULL, rank smallint NOT NULL, activity bigint NOT NULL, "
            "PRIMARY KEY (player_id, game_id))"
        ),
    ),
    (
        f"{GAMES}_order",
        (
            "CREATE INDEX IF NOT EXISTS {index} ON {games} "
            "(player_id, rank, activity, game_id)"
        ),
    ),
    (f"{GAMES}_game", "CREATE INDEX IF NOT EXISTS {index} ON {games} (game_id)"),
    (
        "",
        (
            "CREATE TABLE IF NOT EXISTS {outbox} (id bigserial PRIMARY KEY, "
            "key text NOT NULL UNIQUE, player_id uuid NOT NULL, game_id uuid NOT NULL, "
            "game_type text NOT NULL, kind text NOT NULL, revision bigint NOT NULL, "
            "created_at timestamptz NOT NULL, delivered_at timestamptz, "
            "attempts integer NOT NULL DEFAULT 0, next_attempt_at timestamptz)"
        ),
    ),
    (
        f"{OUTBOX}_player",
        "CREATE INDEX IF NOT EXISTS {index} ON {outbox} (player_id, id)",
    ),
    (
        f"{OUTBOX}_undelivered",
        (
            "CREATE INDEX IF NOT EXISTS {index} ON {outbox} (id) "
            "WHERE delivered_at IS NULL"
        ),
    ),
)


class SQLitePlayersView(SQLiteTrackingRecorder, _SQLView):
    """The view in the application's SQLite file (one process writes it)."""

    def __init__(self, datastore: SQLiteDatastore) -> None:
        super().__init__(datastore)
        self.tracking = self
        self._statements = {
            name: text.format(games=GAMES, outbox=OUTBOX).replace("%s", "?")
            for name, text in _SQL.items()
        }
        self._delivery = threading.Lock()

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(), *_SQLITE_CREATE]

    def _statement(self, name: str) -> Any:
        return self._statements[name]

    def _cursor(self, *, commit: bool) -> contextlib.AbstractContextManager[Any]:
        return self.datastore.transaction(commit=commit)

    def _param(self, value: object) -> object:
        if isinstance(value, UUID):
            return str(value)
        return value.isoformat() if isinstance(value, datetime) else value

    @contextlib.contextmanager
    def delivering(self) -> Iterator[bool]:
        with self._delivery:  # a SQLite file has one server process
            yield True


_SQLITE_CREATE = (
    (
        f"CREATE TABLE IF NOT EXISTS {GAMES} (player_id TEXT NOT NULL, "
        "game_id TEXT NOT NULL, seat INTEGER NOT NULL, game_type TEXT NOT NULL, "
        "status TEXT NOT NULL, my_turn INTEGER NOT NULL, score INTEGER NOT NULL, "
        "revision INTEGER NOT NULL, updated_at TEXT NOT NULL, detail TEXT NOT NULL, "
        "rank INTEGER NOT NULL, activity INTEGER NOT NULL, "
        "PRIMARY KEY (player_id, game_id))"
    ),
    (
        f"CREATE INDEX IF NOT EXISTS {GAMES}_order ON {GAMES} "
        "(player_id, rank, activity, game_id)"
    ),
    f"CREATE INDEX IF NOT EXISTS {GAMES}_game ON {GAMES} (game_id)",
    (
        f"CREATE TABLE IF NOT EXISTS {OUTBOX} (id INTEGER PRIMARY KEY AUTOINCREMENT, "
        "key TEXT NOT NULL UNIQUE, player_id TEXT NOT NULL, game_id TEXT NOT NULL, "
        "game_type TEXT NOT NULL, kind TEXT NOT NULL, revision INTEGER NOT NULL, "
        "created_at TEXT NOT NULL, delivered_at TEXT, "
        "attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at TEXT)"
    ),
    f"CREATE INDEX IF NOT EXISTS {OUTBOX}_player ON {OUTBOX} (player_id, id)",
)


class MemoryPlayersView(POPOTrackingRecorder, PlayersView):
    """The view of an in-memory store: dicts under one lock."""

    def __init__(self) -> None:
        super().__init__()
        self.tracking = self
        self._rows: dict[UUID, tuple[MyGameRow, ...]] = {}
        self._outbox: list[Stored] = []
        self._keys: set[str] = set()
        self._delivered: set[int] = set()
        self._lock = threading.Lock()
        self._delivery = threading.Lock()

    def create_table(self) -> None:
        """Nothing to create: the dicts exist from the start."""

    def apply(
        self,
        games: Games,
        notices: Sequence[Notice],
        tracking: Tracking,
        erased: Sequence[UUID] = (),
    ) -> None:
        with self._database_lock:
            self._assert_tracking_uniqueness(tracking)
            self._insert_tracking(tracking)
            with self._lock:
                for game_id, rows in games:
                    self._rows[game_id] = tuple(rows)
                for notice in notices:
                    if notice.key not in self._keys:
                        self._keys.add(notice.key)
                        self._outbox.append(Stored(len(self._outbox) + 1, notice))
                self._erase(set(erased))

    def _erase(self, players: set[UUID]) -> None:
        """Forgets the players' rows, and marks their notifications delivered
        (the list's positions are the notifications' ids)."""
        for game_id, rows in self._rows.items():
            self._rows[game_id] = tuple(r for r in rows if r.player_id not in players)
        for stored in self._outbox:
            if stored.notice.player_id in players:
                self._delivered.add(stored.id)

    def page(
        self, player_id: UUID, after: tuple[int, int, str] | None, size: int
    ) -> list[MyGameRow]:
        with self._lock:
            mine = [
                r
                for rows in self._rows.values()
                for r in rows
                if r.player_id == player_id
            ]
        mine.sort(key=lambda row: row.key)
        start = after or _START
        return [row for row in mine if row.key > start][:size]

    def unfinished(self, player_id: UUID) -> list[UUID]:
        over = (TableStatus.FINISHED, TableStatus.CLOSED)
        with self._lock:
            return [
                row.game_id
                for rows in self._rows.values()
                for row in rows
                if row.player_id == player_id and row.status not in over
            ]

    def undelivered(self, limit: int, after: int = 0) -> list[Stored]:
        with self._lock:
            left = (s for s in self._outbox[after:] if s.id not in self._delivered)
            return list(itertools.islice(left, limit))

    def delivered(self, ids: Sequence[int], at: datetime) -> None:
        del at
        with self._lock:
            self._delivered.update(ids)

    def retry_later(self, stored: Stored, at: datetime) -> None:
        with self._lock:
            current = self._outbox[stored.id - 1]
            again = replace(current, attempts=current.attempts + 1, next_attempt=at)
            self._outbox[stored.id - 1] = again

    def since(
        self, after: int, limit: int, player_id: UUID | None = None
    ) -> list[Stored]:
        with self._lock:
            found = [
                s
                for s in self._outbox[after:]
                if player_id is None or s.notice.player_id == player_id
            ]
        return found[:limit] if player_id is None else found[-limit:]

    def newest(self) -> int:
        with self._lock:
            return len(self._outbox)

    @contextlib.contextmanager
    def delivering(self) -> Iterator[bool]:
        with self._delivery:
            yield True


_VIEWS: SideTables[PlayersView] = SideTables(
    "players' view",
    postgres=PostgresPlayersView,
    sqlite=SQLitePlayersView,
    memory=MemoryPlayersView,
)


def players_view_for(app: Application[Any]) -> PlayersView:
    """Returns the view beside the application's events (tables made once)."""
    return _VIEWS.open(app)
