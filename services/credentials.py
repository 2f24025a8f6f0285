"""The credential index: which player account a device or an identity signs in to.

A credential is the SHA-256, in lowercase hex, of a device id or of an OpenID
identity, computed by the caller (``services/players.py``). The index links each
credential to one player, in the table ``tabletop_credentials`` beside the
events (in the application's PostgreSQL schema or SQLite file; dicts on the
in-memory store). It is kept outside the immutable event log so that deleting
a player (``release``) removes the link between a person's credentials and the
player for good.

There is no cache: every lookup asks the store, so it sees at once what other
processes claimed and released.
"""

from __future__ import annotations

import re
import threading
from abc import ABC, abstractmethod
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore

from services.side_tables import PostgresTable, SideTables, SQLiteTable, SQLTable

TABLE = "tabletop_credentials"
# The advisory lock under which processes create the table.
_LOCK_TAG = b"tt.creds"
_CREDENTIAL = re.compile(r"[0-9a-f]{64}")
_ATTEMPTS = 3


class CredentialIndex(ABC):
    """Which account each credential signs in to, stored beside the events."""

    def lookup(self, credential: str) -> UUID | None:
        """Returns the account the credential signs in to; None if it is unlinked."""
        return self._select(_checked(credential))

    def claim(self, credential: str, player_id: UUID) -> UUID:
        """Links the credential to ``player_id`` unless it is linked already, and
        returns the account it is linked to now.

        Processes claiming one credential at once for different players all get
        the one stored first.
        """
        checked = _checked(credential)
        for _ in range(_ATTEMPTS):
            linked = self._insert_or_select(checked, player_id)
            if linked is not None:
                return linked
        # Only a release between the insert and the read, three times, gets here.
        msg = "the credential was released again and again while being claimed"
        raise RuntimeError(msg)

    def release(self, player_id: UUID) -> int:
        """Deletes every link to the player for good; returns how many there were."""
        return self._delete(player_id)

    @abstractmethod
    def create_table(self) -> None:
        """Creates the store's table of credentials when it does not exist yet."""

    @abstractmethod
    def _insert_or_select(self, credential: str, player_id: UUID) -> UUID | None:
        """Links the credential unless it is linked; returns the stored link."""

    @abstractmethod
    def _select(self, credential: str) -> UUID | None:
        """Returns the account the credential is linked to."""

    @abstractmethod
    def _delete(self, player_id: UUID) -> int:
        """Deletes the player's links; returns how many there were."""


def _checked(credential: str) -> str:
    if not isinstance(credential, str) or not _CREDENTIAL.fullmatch(credential):
        msg = "a credential is a SHA-256 in 64 lowercase hex digits"
        raise ValueError(msg)
    return credential


class _TableIndex(CredentialIndex):
    """The index in a table beside the events, in the application's database."""

    def __init__(self, table: SQLTable) -> None:
        self._table = table

    def create_table(self) -> None:
        self._table.create_table()

    def _insert_or_select(self, credential: str, player_id: UUID) -> UUID | None:
        return _player(
            self._table.write_then_read(
                _INSERT, (credential, player_id), _SELECT, (credential,)
            )
        )

    def _select(self, credential: str) -> UUID | None:
        return _player(self._table.read(_SELECT, (credential,)))

    def _delete(self, player_id: UUID) -> int:
        return self._table.delete(_DELETE, (player_id,))


def _player(stored: Any) -> UUID | None:
    # PostgreSQL gives a UUID, SQLite its text.
    return None if stored is None else UUID(str(stored))


class PostgresCredentials(_TableIndex):
    """The index in the application's PostgreSQL schema, through its pool."""

    def __init__(self, datastore: PostgresDatastore) -> None:
        create = (_POSTGRES_CREATE, _CREATE_INDEX)
        super().__init__(PostgresTable(datastore, TABLE, _LOCK_TAG, create))


class SQLiteCredentials(_TableIndex):
    """The index in the application's SQLite file, through its connections."""

    def __init__(self, datastore: SQLiteDatastore) -> None:
        # Releasing zeroes the deleted rows' bytes in the file (not in older
        # WAL frames).
        create = (_SQLITE_CREATE, _CREATE_INDEX)
        super().__init__(SQLiteTable(datastore, TABLE, create))


_POSTGRES_CREATE = (
    "CREATE TABLE IF NOT EXISTS {table} (credential text PRIMARY KEY, "
    "player_id uuid NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"
)
_SQLITE_CREATE = (
    # NOT NULL: SQLite lets a primary key other than an integer hold NULL.
    "CREATE TABLE IF NOT EXISTS {table} (credential TEXT NOT NULL PRIMARY KEY, "
    "player_id TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
)
# The index goes into the table's schema.
_CREATE_INDEX = (
    "CREATE INDEX IF NOT EXISTS tabletop_credentials_player_id ON {table} (player_id)"
)
_INSERT = (
    "INSERT INTO {table} (credential, player_id) VALUES (%s, %s) "
    "ON CONFLICT (credential) DO NOTHING"
)
_SELECT = "SELECT player_id FROM {table} WHERE credential = %s"
_DELETE = "DELETE FROM {table} WHERE player_id = %s"


class MemoryCredentials(CredentialIndex):
    """The index of an in-memory store: dicts, forgotten with the process."""

    def __init__(self) -> None:
        self._players: dict[str, UUID] = {}
        self._credentials: dict[UUID, set[str]] = {}
        self._lock = threading.Lock()

    def create_table(self) -> None:
        pass  # the dicts exist from the start

    def _insert_or_select(self, credential: str, player_id: UUID) -> UUID | None:
        with self._lock:
            linked = self._players.setdefault(credential, player_id)
            if linked == player_id:
                self._credentials.setdefault(player_id, set()).add(credential)
            return linked

    def _select(self, credential: str) -> UUID | None:
        with self._lock:
            return self._players.get(credential)

    def _delete(self, player_id: UUID) -> int:
        with self._lock:
            credentials = self._credentials.pop(player_id, set())
            for credential in credentials:
                del self._players[credential]
            return len(credentials)


# One CredentialIndex per application recorder, dropped with the recorder.
_INDEXES: SideTables[CredentialIndex] = SideTables(
    "credentials",
    postgres=PostgresCredentials,
    sqlite=SQLiteCredentials,
    memory=MemoryCredentials,
)


def credentials_for(app: Application[Any]) -> CredentialIndex:
    """Returns the credential index stored beside the application's events.

    The index uses the application's own connections (no pool of their own)
    and, on PostgreSQL, its schema. The first call for an application creates
    the table when missing, unless the application's ``CREATE_TABLE`` setting
    is off; later calls return the same object.
    """
    return _INDEXES.open(app)
