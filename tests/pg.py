"""The PostgreSQL the integration and end-to-end tests run against.

``make test`` makes sure one answers and exports ``POSTGRES_HOST``, ``POSTGRES_PORT``,
``POSTGRES_USER``, ``POSTGRES_PASSWORD`` and ``POSTGRES_DBNAME``. Each test gets a
schema of its own, so tests never see each other's games.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import psycopg
import pytest
from psycopg import sql


def _conninfo() -> dict[str, str]:
    return {
        "host": os.environ.get("POSTGRES_HOST", "127.0.0.1"),
        "port": os.environ.get("POSTGRES_PORT", "5432"),
        "user": os.environ.get("POSTGRES_USER", "postgres"),
        "password": os.environ.get("POSTGRES_PASSWORD", ""),
        "dbname": os.environ.get("POSTGRES_DBNAME", "postgres"),
    }


def connect() -> psycopg.Connection[tuple[object, ...]]:
    """Returns an autocommit connection to the test database."""
    info = _conninfo()
    try:
        return psycopg.connect(
            host=info["host"],
            port=int(info["port"]),
            user=info["user"],
            password=info["password"] or None,
            dbname=info["dbname"],
            autocommit=True,
            connect_timeout=5,
        )
    except psycopg.OperationalError as error:
        pytest.fail(
            f"PostgreSQL at {info['host']}:{info['port']} does not answer ({error}); "
            "run the tests with `make test`, which starts one."
        )


@contextmanager
def fresh_schema() -> Iterator[str]:
    """Yields the URL of a new, empty schema; drops it afterwards."""
    schema = f"test_{uuid.uuid4().hex[:12]}"
    with connect() as connection:
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    info = _conninfo()
    auth = quote(info["user"]) + (
        f":{quote(info['password'])}" if info["password"] else ""
    )
    url = (
        f"postgresql://{auth}@{info['host']}:{info['port']}/{info['dbname']}"
        f"?schema={schema}"
    )
    try:
        yield url
    finally:
        with connect() as connection:
            connection.execute(
                sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema))
            )
