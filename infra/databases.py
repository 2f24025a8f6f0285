"""The event store a database URL selects, and how logs name it.

The database is a URL: ``postgresql://user:password@host:port/dbname`` for
PostgreSQL (through psycopg 3; add ``?schema=name`` to use a schema other than
``public``, created when missing), ``sqlite:///path/to/file.sqlite3`` for the
embedded store (relative to the working directory; ``sqlite:////abs/path`` for
an absolute path), or ``memory:`` for a store that forgets everything on exit.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from infra.settings import AUTO_PROCESSES, Settings, SettingsError


def persistence_env(database: str) -> dict[str, str]:
    """Returns the eventsourcing environment that selects the event store."""
    parts = urlsplit(database)
    if parts.scheme in ("postgresql", "postgres"):
        try:
            port = parts.port or 5432
        except ValueError:
            msg = f"cannot use database {describe(database)!r}: the port is not valid"
            raise SettingsError(msg) from None
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_HOST": parts.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(port),
            "POSTGRES_USER": unquote(parts.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parts.password or ""),
            "POSTGRES_DBNAME": unquote(parts.path.lstrip("/")) or "postgres",
        }
        schema = parse_qs(parts.query).get("schema", [""])[0]
        if schema:
            env["POSTGRES_SCHEMA"] = schema
        return env
    path = sqlite_path(database)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            msg = f"cannot use database {path}: cannot make its directory: {error}"
            raise SettingsError(msg) from None
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(path),
        }
    if database == "memory:":
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    msg = (
        f"cannot use database {database!r}: expected postgresql://..., "
        "sqlite:///path or memory:"
    )
    raise SettingsError(msg)


def sqlite_path(database: str) -> Path | None:
    """Returns the absolute path of a ``sqlite:`` database, None for other stores.

    ``sqlite:///var/x.sqlite3`` is relative to the working directory,
    ``sqlite:////srv/x.sqlite3`` absolute. With two slashes the URL has a host
    (``sqlite://var/x.sqlite3``: host ``var``), which would put the file
    somewhere else than the operator meant: refused, with the right spellings.
    """
    parts = urlsplit(database)
    if parts.scheme != "sqlite":
        return None
    if parts.netloc:
        msg = (
            f"cannot use database {database!r}: a sqlite: URL has no host "
            f"({parts.netloc!r} here). Write sqlite:///var/x.sqlite3 (three "
            "slashes) for a file relative to the working directory, or "
            "sqlite:////abs/path/x.sqlite3 (four) for an absolute path"
        )
        raise SettingsError(msg)
    name = unquote(parts.path.removeprefix("/"))
    if not name.strip("/") or name.endswith("/"):
        msg = (
            f"cannot use database {database!r}: it names no file; write "
            "sqlite:///var/x.sqlite3 or sqlite:////abs/path/x.sqlite3"
        )
        raise SettingsError(msg)
    return Path(name).resolve()


def where(database: str) -> str:
    """Returns where the store is, for logs: a SQLite file's absolute path."""
    path = sqlite_path(database)
    return describe(database) if path is None else f"SQLite file {path}"


def resolve_processes(settings: Settings) -> Settings:
    """Returns the settings with ``--processes auto`` made a number.

    One process per core this process may use on PostgreSQL (a Python process
    uses about one core, and the processes share the database); one on the
    other stores, which cannot be shared.
    """
    if settings.processes != AUTO_PROCESSES:
        return settings
    store = persistence_env(settings.database)["PERSISTENCE_MODULE"]
    shared = store == "eventsourcing.postgres"
    return replace(settings, processes=usable_cores() if shared else 1)


def usable_cores() -> int:
    """Returns the cores this process may run on (its affinity, as taskset or a
    container's cpuset sets it), at most 1,000 (the cap of ``--processes``)."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else os.cpu_count()
    return max(1, min(cores or 1, 1_000))


def check_processes(settings: Settings) -> None:
    """Refuses several server processes on a store they cannot share."""
    store = persistence_env(settings.database)["PERSISTENCE_MODULE"]
    if settings.processes > 1 and store != "eventsourcing.postgres":
        msg = (
            "--processes above 1 needs a postgresql:// database: a memory: store "
            "is private to each process, and SQLite has no live feed between them"
        )
        raise SettingsError(msg)


def describe(database: str) -> str:
    """Returns the database URL without its password, for logs."""
    parts = urlsplit(database)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return parts._replace(netloc=netloc).geturl()
    return database
