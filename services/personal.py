"""Players' personal data in the event log, sealed under a key of each player's own.

Display names and linked identities enter events only sealed (AES-256-GCM) under
a 256-bit key per player, kept outside the events in the table
``tabletop_player_keys`` beside them (a dict on the in-memory store); destroying
a player's key leaves their events in place but makes what was sealed under it
unreadable for good (crypto-shredding).

Threat model: whoever reads the database, a dump or an export after a player's
key was destroyed learns nothing of what was sealed under it but its length.
A sealed value is bound to its player and field, so it neither opens as another
player's or another field's, nor opens at all once changed. It does not protect
against anyone who read the key before it was destroyed: a process still holding
it in its cache, a backup or WAL segment from before, or the dead row that
PostgreSQL (or the WAL of SQLite) keeps on disk until the space is reused.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from typing import Any
from uuid import UUID

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from eventsourcing.application import Application
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore

from services.side_tables import PostgresTable, SideTables, SQLiteTable, SQLTable

TABLE = "tabletop_player_keys"
KEY_BYTES = 32  # AES-256
NONCE_BYTES = 12  # 96 bits, random per seal: a player seals far fewer than 2**32
PREFIX = "sealed:v1:"
CACHE_SIZE = 4096  # keys kept in memory per store and process
_TAG_BYTES = 16
# Prefixes the associated data, so no other use of these keys could collide.
_CONTEXT = b"tabletop.personal.v1\x00"
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
# The advisory lock under which processes create the table.
_LOCK_TAG = b"tt.pkeys"
_ATTEMPTS = 3


class NoPersonalKeyError(LookupError):
    """A player has no key: none was created, or it was destroyed."""


class _KeyCache:
    """Recently used keys, least recently used dropped first; thread-safe.

    Every eviction starts a new generation, and a key read from the store is
    kept only if no eviction happened since the read began, so a read racing
    a ``destroy`` in this process never puts the destroyed key back.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._keys: OrderedDict[UUID, bytes] = OrderedDict()
        self._generation = 0
        self._lock = threading.Lock()

    def get(self, player_id: UUID) -> bytes | None:
        with self._lock:
            key = self._keys.get(player_id)
            if key is not None:
                self._keys.move_to_end(player_id)
            return key

    def generation(self) -> int:
        with self._lock:
            return self._generation

    def put(self, player_id: UUID, key: bytes, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._size <= 0:
                return
            self._keys[player_id] = key
            self._keys.move_to_end(player_id)
            while len(self._keys) > self._size:
                self._keys.popitem(last=False)

    def evict(self, player_id: UUID) -> None:
        with self._lock:
            self._keys.pop(player_id, None)
            self._generation += 1


class PersonalKeys(ABC):
    """Each player's key, stored beside the events, with an in-process cache.

    A key this process has cached stays usable here after another process
    destroyed it, until this process calls ``forget`` (when it reads the
    player's deletion from the log) or the key falls out of the cache.
    """

    def __init__(self, cache_size: int = CACHE_SIZE) -> None:
        self._cache = _KeyCache(cache_size)

    def create(self, player_id: UUID) -> bytes:
        """Returns the player's key, storing a fresh random one if there is none.

        Processes creating one player's key at once all get the one stored
        first. After ``destroy`` a new, different key is created.
        """
        for _ in range(_ATTEMPTS):
            generation = self._cache.generation()
            key = self._insert_or_select(player_id, secrets.token_bytes(KEY_BYTES))
            if key is not None:
                self._cache.put(player_id, key, generation)
                return key
        # Only a destroy between the insert and the read, three times, gets here.
        msg = f"the key of player {player_id} was destroyed while being created"
        raise RuntimeError(msg)

    def get(self, player_id: UUID) -> bytes | None:
        """Returns the player's key; None if it was never created or destroyed."""
        key = self._cache.get(player_id)
        if key is not None:
            return key
        generation = self._cache.generation()
        key = self._select(player_id)
        if key is not None:
            self._cache.put(player_id, key, generation)
        return key

    def destroy(self, player_id: UUID) -> bool:
        """Deletes the player's key for good; returns whether there was one."""
        try:
            return self._delete(player_id)
        finally:
            self._cache.evict(player_id)

    def forget(self, player_id: UUID) -> None:
        """Drops the player's key from this process's cache (not from the store)."""
        self._cache.evict(player_id)

    @abstractmethod
    def create_table(self) -> None:
        """Creates the store's table of keys when it does not exist yet."""

    @abstractmethod
    def _insert_or_select(self, player_id: UUID, fresh: bytes) -> bytes | None:
        """Stores ``fresh`` unless the player has a key; returns the stored key."""

    @abstractmethod
    def _select(self, player_id: UUID) -> bytes | None:
        """Returns the stored key of the player."""

    @abstractmethod
    def _delete(self, player_id: UUID) -> bool:
        """Deletes the stored key of the player; returns whether there was one."""


class _TableKeys(PersonalKeys):
    """The keys in a table beside the events, in the application's database."""

    def __init__(self, table: SQLTable, cache_size: int) -> None:
        super().__init__(cache_size)
        self._table = table

    def create_table(self) -> None:
        self._table.create_table()

    def _insert_or_select(self, player_id: UUID, fresh: bytes) -> bytes | None:
        key = self._table.write_then_read(
            _INSERT, (player_id, fresh), _SELECT, (player_id,)
        )
        return None if key is None else bytes(key)

    def _select(self, player_id: UUID) -> bytes | None:
        key = self._table.read(_SELECT, (player_id,))
        return None if key is None else bytes(key)

    def _delete(self, player_id: UUID) -> bool:
        return self._table.delete(_DELETE, (player_id,)) > 0


class PostgresKeys(_TableKeys):
    """The keys in the application's PostgreSQL schema, through its pool."""

    def __init__(
        self, datastore: PostgresDatastore, cache_size: int = CACHE_SIZE
    ) -> None:
        super().__init__(
            PostgresTable(datastore, TABLE, _LOCK_TAG, [_POSTGRES_CREATE]), cache_size
        )
        self._datastore = datastore


class SQLiteKeys(_TableKeys):
    """The keys in the application's SQLite file, through its connections."""

    def __init__(
        self, datastore: SQLiteDatastore, cache_size: int = CACHE_SIZE
    ) -> None:
        # Deleting a key zeroes its bytes in the file (not in older WAL frames).
        super().__init__(SQLiteTable(datastore, TABLE, [_SQLITE_CREATE]), cache_size)
        self._datastore = datastore


_POSTGRES_CREATE = (
    "CREATE TABLE IF NOT EXISTS {table} (player_id uuid PRIMARY KEY, "
    "key bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"
)
_SQLITE_CREATE = (
    "CREATE TABLE IF NOT EXISTS {table} (player_id TEXT PRIMARY KEY, "
    "key BLOB NOT NULL, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
)
_INSERT = (
    "INSERT INTO {table} (player_id, key) VALUES (%s, %s) "
    "ON CONFLICT (player_id) DO NOTHING"
)
_SELECT = "SELECT key FROM {table} WHERE player_id = %s"
_DELETE = "DELETE FROM {table} WHERE player_id = %s"


class MemoryKeys(PersonalKeys):
    """The keys of an in-memory store: a dict, forgotten with the process."""

    def __init__(self, cache_size: int = CACHE_SIZE) -> None:
        super().__init__(cache_size)
        self._keys: dict[UUID, bytes] = {}
        self._lock = threading.Lock()

    def create_table(self) -> None:
        pass  # the dict exists from the start

    def _insert_or_select(self, player_id: UUID, fresh: bytes) -> bytes | None:
        with self._lock:
            return self._keys.setdefault(player_id, fresh)

    def _select(self, player_id: UUID) -> bytes | None:
        with self._lock:
            return self._keys.get(player_id)

    def _delete(self, player_id: UUID) -> bool:
        with self._lock:
            return self._keys.pop(player_id, None) is not None


# One PersonalKeys per application recorder (so one cache per store and
# process), dropped with the recorder.
_KEYS: SideTables[PersonalKeys] = SideTables(
    "personal keys", postgres=PostgresKeys, sqlite=SQLiteKeys, memory=MemoryKeys
)


def keys_for(app: Application[Any]) -> PersonalKeys:
    """Returns the player keys stored beside the application's events.

    The keys use the application's own connections (no pool of their own) and,
    on PostgreSQL, its schema. The first call for an application creates the
    table when missing, unless the application's ``CREATE_TABLE`` setting is
    off; later calls return the same object, so a process has one cache.
    """
    return _KEYS.open(app)


class Sealer:
    """Seals players' personal text under their own keys, and opens it again."""

    def __init__(self, keys: PersonalKeys) -> None:
        self._keys = keys

    def seal(self, player_id: UUID, plaintext: str, purpose: str) -> str:
        """Returns ``plaintext`` sealed for this player and purpose (a field name).

        Raises ``NoPersonalKeyError`` when the player has no key: keys are made
        by ``PersonalKeys.create``, so a destroyed player's text is never sealed
        again under a new key by accident.
        """
        key = self._keys.get(player_id)
        if key is None:
            msg = f"player {player_id} has no personal key"
            raise NoPersonalKeyError(msg)
        nonce = os.urandom(NONCE_BYTES)
        aad = _associated(player_id, purpose)
        sealed = AESGCM(key).encrypt(nonce, plaintext.encode(), aad)
        return PREFIX + _encode(nonce + sealed)

    def open(self, player_id: UUID, sealed: str, purpose: str) -> str | None:
        """Returns the text sealed for this player and purpose.

        None when the player's key is gone or ``sealed`` is not a value sealed
        for this player and purpose, unchanged. A store that cannot be reached
        raises, as the event store does.
        """
        raw = _decode(sealed)
        if raw is None:
            return None
        key = self._keys.get(player_id)
        if key is None:
            return None
        nonce, body = raw[:NONCE_BYTES], raw[NONCE_BYTES:]
        try:
            plain = AESGCM(key).decrypt(nonce, body, _associated(player_id, purpose))
            return plain.decode()
        except (InvalidTag, UnicodeDecodeError):
            return None


def _associated(player_id: UUID, purpose: str) -> bytes:
    # The id has a fixed length, so no other (player, purpose) gives these bytes.
    return _CONTEXT + player_id.bytes + purpose.encode()


def _encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(sealed: str) -> bytes | None:
    """Returns the nonce and ciphertext of a sealed value; None if it is none."""
    if not sealed.startswith(PREFIX):
        return None
    body = sealed[len(PREFIX) :]
    if not _BASE64URL.fullmatch(body):
        return None
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except binascii.Error:
        return None
    # One text per value: no padding, no stray bits in the last character.
    if _encode(raw) != body or len(raw) < NONCE_BYTES + _TAG_BYTES:
        return None
    return raw
