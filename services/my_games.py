"""The view behind ListMyGames: each signed-in player's games, kept from the log.

A row per seat a signed-in player holds says what "my games" shows: the game's
type and state, whether the player is to act, the seats and scores, the latest
revision and when the game last changed. ``rows_for`` makes a game's rows from
its folded record; the projection (``services/projection.py``) replaces a
game's rows whenever the log says the game changed, together with its
tracking position, in one transaction, so each change is applied exactly once
whatever restarts or other processes do.

The view is stored beside the events with the library's tracking recorders:
``tabletop_my_games`` and the tracking table on PostgreSQL (its schema, its
pool) and SQLite (its file), dicts on the in-memory store. A page is read by
an index in the listing's order: to act first, then waiting tables, then the
rest, each most recently active first.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import Tracking, TrackingRecorder
from eventsourcing.popo import POPOTrackingRecorder
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL, Identifier

from domain.common.table import TableStatus, outcome
from services.records import GameRecord
from services.side_tables import SideTables

TABLE = "tabletop_my_games"
TRACKING_TABLE = "tabletop_tracking"
# The listing's groups, in its order.
MY_TURN, WAITING, OTHERS = 0, 1, 2
_CREATE_LOCK = int.from_bytes(b"tt.mygms", "big")


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """A seat as the listing shows it: its name (a guest's) or account, score."""

    display_name: str
    player_id: str
    score: int
    resigned: bool


@dataclass(frozen=True, slots=True)
class MyGameRow:
    """One signed-in player's seat in one game, as ListMyGames lists it."""

    player_id: UUID
    game_id: UUID
    seat: int
    game_type: str
    status: TableStatus
    my_turn: bool
    to_act: tuple[int, ...]
    seats: tuple[SeatEntry, ...]
    score: int
    revision: int
    updated_at: datetime

    @property
    def rank(self) -> int:
        """Returns the listing's group: to act, waiting for players, the rest."""
        if self.my_turn:
            return MY_TURN
        return WAITING if self.status is TableStatus.WAITING_FOR_PLAYERS else OTHERS

    @property
    def activity(self) -> int:
        """Returns the order within a group: the latest change first."""
        return -round(self.updated_at.timestamp() * 1_000_000)

    @property
    def key(self) -> tuple[int, int, str]:
        """Returns where the row stands in its player's listing."""
        return self.rank, self.activity, str(self.game_id)


def rows_for(record: GameRecord) -> tuple[MyGameRow, ...]:
    """Returns the rows of every seat a signed-in player holds in a game."""
    table = record.table
    finished = outcome(table, record.rules)
    scores = finished.scores if finished else ()
    playing = table.status is TableStatus.IN_PROGRESS and table.game is not None
    to_act = tuple(record.rules.to_move(table.game)) if playing else ()
    seats = tuple(
        SeatEntry(
            holder.display_name,
            holder.player_id,
            scores[seat] if seat < len(scores) else 0,
            seat in table.resigned,
        )
        for seat, holder in enumerate(table.seats)
    )
    return tuple(
        MyGameRow(
            player_id=UUID(holder.player_id),
            game_id=record.game_id,
            seat=seat,
            game_type=table.game_type,
            status=table.status,
            my_turn=seat in to_act,
            to_act=to_act,
            seats=seats,
            score=seats[seat].score,
            revision=record.revision,
            updated_at=record.updated_at,
        )
        for seat, holder in enumerate(table.seats)
        if holder.player_id
    )


class MyGamesView(ABC):
    """The stored view: replaced a game at a time, read a player's page at a time."""

    tracking: TrackingRecorder

    @abstractmethod
    def create_table(self) -> None:
        """Creates the view's tables when missing."""

    @abstractmethod
    def replace(
        self, games: Sequence[tuple[UUID, Sequence[MyGameRow]]], tracking: Tracking
    ) -> None:
        """Replaces the rows of each game and records ``tracking``, atomically.

        Raises the library's ``IntegrityError`` when ``tracking`` was recorded
        already (another process applied it): nothing is changed then.
        """

    @abstractmethod
    def page(
        self, player_id: UUID, after: tuple[int, int, str] | None, size: int
    ) -> list[MyGameRow]:
        """Returns up to ``size`` of the player's rows after ``after``, in order."""


def _detail(row: MyGameRow) -> str:
    seats = [[s.display_name, s.player_id, s.score, s.resigned] for s in row.seats]
    return json.dumps({"to_act": list(row.to_act), "seats": seats})


def _row(values: Sequence[Any]) -> MyGameRow:
    """Returns a row read back: the columns of ``_COLUMNS``, in order."""
    player, game, seat, game_type, status, my_turn, score, revision, at, detail = values
    data = json.loads(detail)
    return MyGameRow(
        player_id=player if isinstance(player, UUID) else UUID(player),
        game_id=game if isinstance(game, UUID) else UUID(game),
        seat=int(seat),
        game_type=str(game_type),
        status=TableStatus(status),
        my_turn=bool(my_turn),
        to_act=tuple(data["to_act"]),
        seats=tuple(SeatEntry(*entry) for entry in data["seats"]),
        score=int(score),
        revision=int(revision),
        updated_at=at if isinstance(at, datetime) else datetime.fromisoformat(at),
    )


_COLUMNS = (
    "player_id, game_id, seat, game_type, status, my_turn, score, revision, "
    "updated_at, detail"
)
_INSERT = (
    f"INSERT INTO {{table}} ({_COLUMNS}, rank, activity) "  # noqa: S608 (constants)
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_DELETE = "DELETE FROM {table} WHERE game_id = %s"
_PAGE = (
    f"SELECT {_COLUMNS} FROM {{table}} WHERE player_id = %s "  # noqa: S608
    "AND (rank, activity, game_id) > (%s, %s, %s) "
    "ORDER BY rank, activity, game_id LIMIT %s"
)
# Before every row: every rank is at least 0.
_START = (-1, 0, "")


def _values(row: MyGameRow) -> tuple[object, ...]:
    return (
        row.player_id,
        row.game_id,
        row.seat,
        row.game_type,
        row.status.value,
        row.my_turn,
        row.score,
        row.revision,
        row.updated_at,
        _detail(row),
        row.rank,
        row.activity,
    )


class PostgresMyGames(PostgresTrackingRecorder, MyGamesView):
    """The view in the application's PostgreSQL schema, through its pool."""

    def __init__(self, datastore: PostgresDatastore) -> None:
        super().__init__(datastore, tracking_table_name=TRACKING_TABLE)
        self.tracking = self
        table = SQL("{}.{}").format(Identifier(datastore.schema), Identifier(TABLE))
        self._insert = SQL(_INSERT.replace("{table}", "{}")).format(table)
        self._delete = SQL(_DELETE.replace("{table}", "{}")).format(table)
        self._page = SQL(_PAGE.replace("{table}", "{}")).format(table)
        index = Identifier(f"{TABLE}_order")
        by_game = Identifier(f"{TABLE}_game")
        self.sql_create_statements += [
            SQL(
                "CREATE TABLE IF NOT EXISTS {} (player_id uuid NOT NULL, "
                "game_id uuid NOT NULL, seat integer NOT NULL, "
                "game_type text NOT NULL, status text NOT NULL, "
                "my_turn boolean NOT NULL, score integer NOT NULL, "
                "revision bigint NOT NULL, updated_at timestamptz NOT NULL, "
                "detail text NOT NULL, rank smallint NOT NULL, "
                "activity bigint NOT NULL, PRIMARY KEY (player_id, game_id))"
            ).format(table),
            SQL(
                "CREATE INDEX IF NOT EXISTS {} ON {} "
                "(player_id, rank, activity, game_id)"
            ).format(index, table),
            SQL("CREATE INDEX IF NOT EXISTS {} ON {} (game_id)").format(by_game, table),
        ]

    def _create_table(self, curs: Any) -> None:
        # Server processes start together: one creates, the others wait.
        curs.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
        super()._create_table(curs)

    def replace(
        self, games: Sequence[tuple[UUID, Sequence[MyGameRow]]], tracking: Tracking
    ) -> None:
        with self.datastore.transaction(commit=True) as curs:
            self._insert_tracking(curs, tracking)  # first: fails fast if done
            for game_id, rows in games:
                curs.execute(self._delete, (game_id,))
                for row in rows:
                    curs.execute(self._insert, _values(row))

    def page(
        self, player_id: UUID, after: tuple[int, int, str] | None, size: int
    ) -> list[MyGameRow]:
        rank, activity, game = after or _START
        start = UUID(game) if game else UUID(int=0)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._page, (player_id, rank, activity, start, size))
            return [_row(list(found.values())) for found in curs.fetchall()]


class SQLiteMyGames(SQLiteTrackingRecorder, MyGamesView):
    """The view in the application's SQLite file."""

    def __init__(self, datastore: SQLiteDatastore) -> None:
        super().__init__(datastore)
        self.tracking = self
        self._insert = _sqlite(_INSERT)
        self._delete = _sqlite(_DELETE)
        self._page = _sqlite(_PAGE)

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            (
                f"CREATE TABLE IF NOT EXISTS {TABLE} (player_id TEXT NOT NULL, "
                "game_id TEXT NOT NULL, seat INTEGER NOT NULL, "
                "game_type TEXT NOT NULL, status TEXT NOT NULL, "
                "my_turn INTEGER NOT NULL, score INTEGER NOT NULL, "
                "revision INTEGER NOT NULL, updated_at TEXT NOT NULL, "
                "detail TEXT NOT NULL, rank INTEGER NOT NULL, "
                "activity INTEGER NOT NULL, PRIMARY KEY (player_id, game_id))"
            ),
            (
                f"CREATE INDEX IF NOT EXISTS {TABLE}_order ON {TABLE} "
                "(player_id, rank, activity, game_id)"
            ),
            f"CREATE INDEX IF NOT EXISTS {TABLE}_game ON {TABLE} (game_id)",
        ]

    def replace(
        self, games: Sequence[tuple[UUID, Sequence[MyGameRow]]], tracking: Tracking
    ) -> None:
        with self.datastore.transaction(commit=True) as curs:
            self._insert_tracking(curs, tracking)
            for game_id, rows in games:
                curs.execute(self._delete, (str(game_id),))
                for row in rows:
                    curs.execute(self._insert, _sqlite_values(row))

    def page(
        self, player_id: UUID, after: tuple[int, int, str] | None, size: int
    ) -> list[MyGameRow]:
        rank, activity, game = after or _START
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._page, (str(player_id), rank, activity, game, size))
            return [_row(tuple(found)) for found in curs.fetchall()]


def _sqlite(statement: str) -> str:
    return statement.replace("{table}", TABLE).replace("%s", "?")


def _sqlite_values(row: MyGameRow) -> tuple[object, ...]:
    return tuple(
        str(value)
        if isinstance(value, UUID)
        else value.isoformat()
        if isinstance(value, datetime)
        else value
        for value in _values(row)
    )


class MemoryMyGames(POPOTrackingRecorder, MyGamesView):
    """The view of an in-memory store: dicts under the recorder's lock."""

    def __init__(self) -> None:
        super().__init__()
        self.tracking = self
        self._rows: dict[UUID, tuple[MyGameRow, ...]] = {}
        self._lock = threading.Lock()

    def create_table(self) -> None:
        """Nothing to create: the dicts exist from the start."""

    def replace(
        self, games: Sequence[tuple[UUID, Sequence[MyGameRow]]], tracking: Tracking
    ) -> None:
        with self._database_lock:
            self._assert_tracking_uniqueness(tracking)
            self._insert_tracking(tracking)
            with self._lock:
                for game_id, rows in games:
                    self._rows[game_id] = tuple(rows)

    def page(
        self, player_id: UUID, after: tuple[int, int, str] | None, size: int
    ) -> list[MyGameRow]:
        with self._lock:
            mine = [
                row
                for rows in self._rows.values()
                for row in rows
                if row.player_id == player_id
            ]
        mine.sort(key=lambda row: row.key)
        start = after or _START
        return [row for row in mine if row.key > start][:size]


_VIEWS: SideTables[MyGamesView] = SideTables(
    "players' games",
    postgres=PostgresMyGames,
    sqlite=SQLiteMyGames,
    memory=MemoryMyGames,
)


def my_games_for(app: Application[Any]) -> MyGamesView:
    """Returns the view beside the application's events (tables made once)."""
    return _VIEWS.open(app)
