"""The credential index beside the events on PostgreSQL and SQLite, in real apps."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore
from psycopg import sql

from infra.databases import sqlite_path
from infra.event_store import create_app
from infra.settings import Settings
from services.credentials import (
    TABLE,
    CredentialIndex,
    PostgresCredentials,
    SQLiteCredentials,
    credentials_for,
)
from services.games import GamesApp
from services.side_tables import PostgresTable, SQLiteTable
from tests.pg import connect

T = TypeVar("T")


def credential(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def datastore_of(app: GamesApp) -> PostgresDatastore | SQLiteDatastore:
    datastore = getattr(app.recorder, "datastore", None)
    assert isinstance(datastore, PostgresDatastore | SQLiteDatastore)
    return datastore


def stored_rows(app: GamesApp, database: str) -> set[tuple[str, str]]:
    """Returns (credential, player) of every row, read by SQL beside the app."""
    datastore = datastore_of(app)
    if isinstance(datastore, SQLiteDatastore):
        path = sqlite_path(database)
        assert path is not None
        with sqlite3.connect(path) as connection:
            query = f"SELECT credential, player_id FROM {TABLE}"  # noqa: S608
            rows: list[tuple[Any, ...]] = connection.execute(query).fetchall()
    else:
        statement = sql.SQL("SELECT credential, player_id FROM {}.{}").format(
            sql.Identifier(datastore.schema), sql.Identifier(TABLE)
        )
        with connect() as connection:
            rows = connection.execute(statement).fetchall()
    return {(str(row[0]), str(row[1])) for row in rows}


def together(count: int, work: Callable[[int], T]) -> list[T]:
    """Returns ``work(0..count-1)``, each started in a thread at the same moment."""
    start = threading.Barrier(count)

    def run(index: int) -> T:
        start.wait()
        return work(index)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


# Claims, lookups and releases


def test_a_claim_is_seen_by_every_process_at_once(
    open_app: GamesApp, process: Callable[[], GamesApp]
) -> None:
    here, there = credentials_for(open_app), credentials_for(process())
    phone, ana, ben = credential("phone"), uuid.uuid4(), uuid.uuid4()
    assert there.lookup(phone) is None
    assert here.claim(phone, ana) == ana
    assert there.lookup(phone) == ana
    assert there.claim(phone, ben) == ana
    assert here.lookup(phone) == ana


def test_processes_racing_to_claim_credentials_agree_on_each(
    open_app: GamesApp, process: Callable[[], GamesApp]
) -> None:
    indexes = [credentials_for(open_app), credentials_for(process())]
    credentials = [credential(f"device {n}") for n in range(10)]
    racers = [uuid.uuid4() for _ in range(6)]

    def claim_all(index: int) -> list[uuid.UUID]:
        claims = indexes[index % 2]
        return [claims.claim(each, racers[index]) for each in credentials]

    found = together(len(racers), claim_all)
    assert all(claimed == found[0] for claimed in found)
    assert set(found[0]) <= set(racers)
    later = credentials_for(process())
    assert [later.lookup(each) for each in credentials] == found[0]


def test_a_release_removes_only_the_players_rows_for_every_process(
    open_app: GamesApp, database: str, process: Callable[[], GamesApp]
) -> None:
    here, there = credentials_for(open_app), credentials_for(process())
    ana, ben = uuid.uuid4(), uuid.uuid4()
    phone, laptop, google = credential("phone"), credential("laptop"), credential("g")
    here.claim(phone, ana)
    here.claim(laptop, ana)
    here.claim(google, ben)
    assert there.lookup(phone) == ana
    assert here.release(ana) == 2
    assert there.lookup(phone) is None
    assert there.lookup(laptop) is None
    assert there.lookup(google) == ben
    assert stored_rows(open_app, database) == {(google, str(ben))}
    assert here.release(ana) == 0


def test_a_released_credential_is_claimed_by_another_player(
    open_app: GamesApp, process: Callable[[], GamesApp]
) -> None:
    here, there = credentials_for(open_app), credentials_for(process())
    phone, ana, ben = credential("phone"), uuid.uuid4(), uuid.uuid4()
    here.claim(phone, ana)
    here.release(ana)
    assert there.claim(phone, ben) == ben
    assert here.lookup(phone) == ben
    assert here.release(ana) == 0
    assert here.release(ben) == 1


@pytest.mark.parametrize("malformed", ["", "0" * 63, "A" * 64, "0" * 63 + "z"])
def test_a_malformed_credential_is_refused_before_the_store(
    open_app: GamesApp, database: str, malformed: str
) -> None:
    index = credentials_for(open_app)
    with pytest.raises(ValueError, match="64 lowercase hex"):
        index.claim(malformed, uuid.uuid4())
    with pytest.raises(ValueError, match="64 lowercase hex"):
        index.lookup(malformed)
    assert stored_rows(open_app, database) == set()


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Iterator[GamesApp]:
    """Yields an application on an SQLite file alone in its folder."""
    app = create_app(Settings(database=f"sqlite:///{tmp_path}/games.db", dev_mode=True))
    yield app
    app.close()


def secure_delete(datastore: SQLiteDatastore, turn: str = "") -> set[int]:
    """Returns ``PRAGMA secure_delete`` of every pooled connection, turned first."""
    pool = datastore.pool
    held = [pool.get_connection(is_writer=False) for _ in range(pool.pool_size)]
    try:
        found = set()
        for connection in held:
            with connection.cursor() as cursor:
                if turn:
                    cursor.execute(f"PRAGMA secure_delete = {turn}")
                found.add(int(cursor.execute("PRAGMA secure_delete").fetchone()[0]))
    finally:
        for connection in held:
            pool.put_connection(connection)
    return found


def test_after_release_and_a_checkpoint_the_sqlite_files_hold_no_credential(
    sqlite_app: GamesApp, tmp_path: Path
) -> None:
    datastore = datastore_of(sqlite_app)
    assert isinstance(datastore, SQLiteDatastore)
    index = credentials_for(sqlite_app)
    ana, phone = uuid.uuid4(), credential("phone")
    index.claim(phone, ana)
    index.claim(credential("laptop"), uuid.uuid4())
    # Off, SQLite would leave the deleted row's bytes in the file.
    assert secure_delete(datastore, "OFF") == {0}
    assert index.release(ana) == 1
    assert secure_delete(datastore) == {0}  # left as it was
    with sqlite3.connect(tmp_path / "games.db") as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    stored = b"".join(file.read_bytes() for file in tmp_path.iterdir())
    assert phone.encode() not in stored
    assert str(ana).encode() not in stored


# The table


def test_the_index_uses_the_applications_own_datastore(open_app: GamesApp) -> None:
    index = credentials_for(open_app)
    assert credentials_for(open_app) is index
    assert isinstance(index, PostgresCredentials | SQLiteCredentials)
    assert isinstance(index._table, PostgresTable | SQLiteTable)
    assert index._table.datastore is datastore_of(open_app)


def unopened_index(app: GamesApp) -> CredentialIndex:
    """Returns an index on the app's datastore whose table is not yet created."""
    datastore = datastore_of(app)
    if isinstance(datastore, PostgresDatastore):
        return PostgresCredentials(datastore)
    return SQLiteCredentials(datastore)


def test_processes_creating_the_table_at_once_all_succeed(
    process: Callable[[], GamesApp],
) -> None:
    indexes = [unopened_index(process()) for _ in range(4)]
    for _ in range(3):
        together(8, lambda index: indexes[index % 4].create_table())
    phone, ana = credential("phone"), uuid.uuid4()
    assert indexes[0].claim(phone, ana) == ana
    assert all(index.lookup(phone) == ana for index in indexes)


def postgres_table(datastore: PostgresDatastore) -> tuple[list[Any], list[str]]:
    """Returns the columns of the table in the app's schema, and what it indexes."""
    table = f'"{datastore.schema}".{TABLE}'
    with connect() as connection:
        columns = connection.execute(
            "SELECT attname, format_type(atttypid, atttypmod), attnotnull "
            "FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            (table,),
        ).fetchall()
        indexed = connection.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a "
            "ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
            "WHERE i.indrelid = to_regclass(%s) ORDER BY a.attname",
            (table,),
        ).fetchall()
    return [tuple(row) for row in columns], [str(row[0]) for row in indexed]


def sqlite_table(path: Path) -> tuple[list[Any], list[str]]:
    """Returns the columns of the table in the app's file, and what it indexes."""
    with sqlite3.connect(path) as connection:
        info = connection.execute(f"PRAGMA table_info({TABLE})").fetchall()
        indexes = connection.execute(f"PRAGMA index_list({TABLE})").fetchall()
        indexed = [
            str(column[2])
            for index in indexes
            for column in connection.execute(f"PRAGMA index_info({index[1]})")
        ]
    columns = [(row[1], row[2].lower(), bool(row[3])) for row in info]
    return columns, sorted(indexed)


def test_the_table_and_its_index_are_in_the_apps_schema_or_file(
    open_app: GamesApp, database: str
) -> None:
    credentials_for(open_app)
    datastore = datastore_of(open_app)
    if isinstance(datastore, PostgresDatastore):
        columns, indexed = postgres_table(datastore)
        types = ["text", "uuid", "timestamp with time zone"]
    else:
        path = sqlite_path(database)
        assert path is not None
        columns, indexed = sqlite_table(path)
        types = ["text", "text", "text"]
    names = ["credential", "player_id", "created_at"]
    assert columns == [
        (name, kind, True) for name, kind in zip(names, types, strict=True)
    ]
    assert indexed == ["credential", "player_id"]
