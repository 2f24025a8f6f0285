"""Per-player keys beside the events on PostgreSQL and SQLite, through real apps."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore
from psycopg import sql

from infra.databases import sqlite_path
from infra.event_store import create_app
from infra.settings import Settings
from services.games import GamesApp
from services.personal import (
    TABLE,
    PersonalKeys,
    PostgresKeys,
    Sealer,
    SQLiteKeys,
    keys_for,
)
from tests.pg import connect, fresh_schema

T = TypeVar("T")


@pytest.fixture
def another_process(database: str) -> Iterator[Callable[[], GamesApp]]:
    """Yields a maker of more applications on the store: other processes."""
    opened: list[GamesApp] = []

    def open_another() -> GamesApp:
        app = create_app(Settings(database=database, dev_mode=True))
        opened.append(app)
        return app

    yield open_another
    for app in opened:
        app.close()


def schema_of(app: GamesApp) -> str:
    datastore = getattr(app.recorder, "datastore", None)
    assert isinstance(datastore, PostgresDatastore)
    return datastore.schema


def rows_in_table(app: GamesApp, database: str) -> list[tuple[Any, ...]]:
    """Returns every row of the keys table, read by SQL outside the application."""
    if database.startswith("sqlite"):
        path = sqlite_path(database)
        assert path is not None
        with sqlite3.connect(path) as connection:
            return connection.execute(f"SELECT * FROM {TABLE}").fetchall()  # noqa: S608
    statement = sql.SQL("SELECT * FROM {}.{}").format(
        sql.Identifier(schema_of(app)), sql.Identifier(TABLE)
    )
    with connect() as connection:
        return connection.execute(statement).fetchall()


def all_at_once(count: int, work: Callable[[int], T]) -> list[T]:
    """Runs ``work(0..count-1)`` in threads released together; returns results."""
    barrier = threading.Barrier(count)
    results: dict[int, T] = {}
    errors: list[BaseException] = []

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return [results[n] for n in range(count)]


# Attacks


def test_a_sealed_value_opens_only_as_its_players_and_fields(
    open_app: GamesApp,
) -> None:
    keys = keys_for(open_app)
    ana, ben = uuid.uuid4(), uuid.uuid4()
    keys.create(ana)
    keys.create(ben)
    sealer = Sealer(keys)
    sealed = sealer.seal(ana, "Ana Lima", "display_name")
    assert sealer.open(ana, sealed, "display_name") == "Ana Lima"
    assert sealer.open(ben, sealed, "display_name") is None
    assert sealer.open(ana, sealed, "linked_identity") is None


def test_a_tampered_value_is_refused(open_app: GamesApp) -> None:
    keys = keys_for(open_app)
    ana = uuid.uuid4()
    keys.create(ana)
    sealer = Sealer(keys)
    sealed = sealer.seal(ana, "Ana Lima", "display_name")
    last = sealed[-2]
    changed = sealed[:-2] + ("B" if last == "A" else "A") + sealed[-1]
    assert sealer.open(ana, changed, "display_name") is None


def test_after_destroy_no_process_opens_and_the_table_holds_nothing_of_it(
    open_app: GamesApp, database: str, another_process: Callable[[], GamesApp]
) -> None:
    keys = keys_for(open_app)
    ana, ben = uuid.uuid4(), uuid.uuid4()
    key = keys.create(ana)
    keys.create(ben)
    sealed = Sealer(keys).seal(ana, "Ana Lima", "display_name")
    other = Sealer(keys_for(another_process()))
    assert other.open(ana, sealed, "display_name") == "Ana Lima"
    assert keys.destroy(ana) is True
    assert Sealer(keys).open(ana, sealed, "display_name") is None
    later = keys_for(another_process())
    assert later.get(ana) is None
    assert Sealer(later).open(ana, sealed, "display_name") is None
    rows = rows_in_table(open_app, database)
    assert [str(row[0]) for row in rows] == [str(ben)]
    assert all(key not in bytes(row[1]) for row in rows)


def test_concurrent_creates_in_two_processes_agree_on_each_key(
    open_app: GamesApp, another_process: Callable[[], GamesApp]
) -> None:
    processes = [keys_for(open_app), keys_for(another_process())]
    players = [uuid.uuid4() for _ in range(10)]

    def create_all(index: int) -> list[bytes]:
        keys = processes[index % 2]
        return [keys.create(player) for player in players]

    found = all_at_once(6, create_all)
    assert all(keys == found[0] for keys in found)
    assert len(set(found[0])) == len(players)
    fresh = keys_for(another_process())
    assert [fresh.get(player) for player in players] == found[0]


def test_after_destroy_and_a_checkpoint_the_sqlite_files_hold_no_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.sqlite3"
    app = create_app(Settings(database=f"sqlite:///{path}", dev_mode=True))
    try:
        keys = keys_for(app)
        ana = uuid.uuid4()
        key = keys.create(ana)
        keys.create(uuid.uuid4())
        keys.destroy(ana)
        with sqlite3.connect(path) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stored = b"".join(file.read_bytes() for file in tmp_path.iterdir())
        assert key not in stored
    finally:
        app.close()


# The other process's cache


def test_another_process_opens_with_its_cached_key_until_it_forgets(
    open_app: GamesApp, another_process: Callable[[], GamesApp]
) -> None:
    here, there = keys_for(open_app), keys_for(another_process())
    ana = uuid.uuid4()
    here.create(ana)
    sealed = Sealer(here).seal(ana, "Ana", "display_name")
    assert Sealer(there).open(ana, sealed, "display_name") == "Ana"
    here.destroy(ana)
    assert Sealer(there).open(ana, sealed, "display_name") == "Ana"
    there.forget(ana)
    assert Sealer(there).open(ana, sealed, "display_name") is None


# The table


def test_the_keys_use_the_applications_own_datastore(open_app: GamesApp) -> None:
    keys = keys_for(open_app)
    assert keys_for(open_app) is keys
    assert isinstance(keys, PostgresKeys | SQLiteKeys)
    datastore = keys._datastore
    assert datastore is getattr(open_app.recorder, "datastore", None)
    assert isinstance(datastore, PostgresDatastore | SQLiteDatastore)


def unopened_keys(app: GamesApp) -> PersonalKeys:
    """Returns keys on the app's datastore, as ``keys_for`` makes them."""
    datastore = getattr(app.recorder, "datastore", None)
    if isinstance(datastore, PostgresDatastore):
        return PostgresKeys(datastore)
    assert isinstance(datastore, SQLiteDatastore)
    return SQLiteKeys(datastore)


def test_processes_creating_the_table_at_once_all_succeed(
    another_process: Callable[[], GamesApp],
) -> None:
    # Each process has its own connections; keys_for serialises only within one.
    processes = [unopened_keys(another_process()) for _ in range(4)]
    for _ in range(3):
        all_at_once(8, lambda index: processes[index % 4].create_table())
    player = uuid.uuid4()
    key = processes[0].create(player)
    assert all(keys.get(player) == key for keys in processes)


@pytest.fixture
def pg_app() -> Iterator[GamesApp]:
    """Yields an application on a fresh PostgreSQL schema."""
    with fresh_schema() as url:
        app = create_app(Settings(database=url, dev_mode=True))
        yield app
        app.close()


def test_the_postgres_table_is_in_the_apps_schema_with_its_columns(
    pg_app: GamesApp,
) -> None:
    keys_for(pg_app)
    with connect() as connection:
        columns = connection.execute(
            "SELECT column_name, data_type, is_nullable "
            "FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
            (schema_of(pg_app), TABLE),
        ).fetchall()
        primary = connection.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a "
            "ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
            "WHERE i.indrelid = %s::regclass AND i.indisprimary",
            (f'"{schema_of(pg_app)}".{TABLE}',),
        ).fetchall()
    assert columns == [
        ("player_id", "uuid", "NO"),
        ("key", "bytea", "NO"),
        ("created_at", "timestamp with time zone", "NO"),
    ]
    assert primary == [("player_id",)]
