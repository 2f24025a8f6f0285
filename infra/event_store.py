"""The event store of a server: the games application on the configured database.

On PostgreSQL it also writes with the recorder of ``infra/pg_recorder.py``,
sets how the connection pool copes with an outage, and creates the schema and
tables under an advisory lock. On SQLite it puts a new
file in WAL mode first, waiting out another opener.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import psycopg
from eventsourcing.postgres import PostgresRecorder
from psycopg import sql

from infra import pg_recorder
from infra.databases import persistence_env
from infra.settings import Settings
from services.games import GamesApp

# Connection-pool settings for PostgreSQL (the eventsourcing library's names).
# They live here rather than in the database URL's translation because they are
# how this server copes with an outage, not what the operator chose: a call
# waits up to CONNECT_TIMEOUT for a pooled connection (the library's default is
# 30 s), in each of the library's ten attempts, so a call caught by an outage
# answers UNAVAILABLE after about 12 s, not 5 minutes. Broken connections are
# dropped by the store watch when the database returns (infra/store_probe.py), not
# by a check before every checkout, which would cost every call a round trip.
POOL_ENV = {"POSTGRES_CONNECT_TIMEOUT": "1"}
# How long the pool keeps trying to replace a connection an outage broke before
# it gives the slot up (psycopg_pool's default is 5 minutes). Its attempts back
# off exponentially, so after an outage of 20 s the next one could come 10 s
# after the database is back; a slot given up is taken again at the next call
# (or the store watch's next probe) with a fresh attempt, so the pool is back
# within about this long of the database.
RECONNECT_SECONDS = 2.0
# The recorder the games are written with on PostgreSQL: the library's, except
# that a transaction is one round trip (infra/pg_recorder.py). Emptied, the
# library's own is used (the store benchmark compares the two).
RECORDER_ENV = {"APPLICATION_RECORDER_TOPIC": pg_recorder.TOPIC}


# How long opening a SQLite file waits for another opener to put it in WAL mode.
WAL_SWITCH_SECONDS = 10.0

# The key of the advisory lock under which a server creates its tables.
_SETUP_LOCK = 0x7461626C65746F70  # "tabletop"


def create_app(settings: Settings) -> GamesApp:
    """Returns the games application on the configured event store.

    On PostgreSQL the schema and tables are created under an advisory lock:
    servers starting together would otherwise race in ``CREATE OR REPLACE
    FUNCTION`` and one of them fail ("tuple concurrently updated"). A new
    SQLite file is put in WAL mode before the library opens it, for the same
    reason.
    """
    env = persistence_env(settings.database)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        _switch_to_wal(Path(env["SQLITE_DBNAME"]))
    if env["PERSISTENCE_MODULE"] != "eventsourcing.postgres":
        return _games_app(env, settings)
    env |= POOL_ENV | RECORDER_ENV
    with _connect(env) as connection:
        connection.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK,))
        try:
            if "POSTGRES_SCHEMA" in env:
                statement = sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                    sql.Identifier(env["POSTGRES_SCHEMA"])
                )
                connection.execute(statement)
            app = _games_app(env, settings)
        finally:
            connection.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))
    recorder = app.recorder
    if isinstance(recorder, PostgresRecorder):
        recorder.datastore.pool.reconnect_timeout = RECONNECT_SECONDS
    return app


def _switch_to_wal(path: Path) -> None:
    """Puts a SQLite file in WAL mode, retrying while another opener does.

    The library switches a file to WAL when it first connects, but SQLite
    refuses that switch at once ("database is locked", without calling the
    busy handler) while another connection is switching it too: applications
    opening a new file together would fail. Once the file is in WAL mode (it
    stays so), the library's own check finds it and changes nothing.
    """
    deadline = time.monotonic() + WAL_SWITCH_SECONDS
    connection = sqlite3.connect(path, timeout=WAL_SWITCH_SECONDS)
    try:
        while True:
            try:
                connection.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
            else:
                return
    finally:
        connection.close()


def _games_app(env: dict[str, str], settings: Settings) -> GamesApp:
    return GamesApp(
        env,
        allow_client_seed=settings.dev_mode,
        table_wait=settings.table_wait,
        keep_memory=settings.keep_memory,
    )


def ensure_schema(env: dict[str, str]) -> None:
    """Creates the configured PostgreSQL schema when it does not exist yet."""
    with _connect(env) as connection:
        statement = sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
            sql.Identifier(env["POSTGRES_SCHEMA"])
        )
        connection.execute(statement)


def _connect(env: dict[str, str]) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(
        host=env["POSTGRES_HOST"],
        port=int(env["POSTGRES_PORT"]),
        user=env["POSTGRES_USER"],
        password=env["POSTGRES_PASSWORD"] or None,
        dbname=env["POSTGRES_DBNAME"],
        autocommit=True,
    )
