"""Stored snapshots of folded games: a cache that makes a game's first load flat.

Every 100th revision's fold is stored in the library's snapshot store (table
``tabletop_snapshots`` on PostgreSQL, ``stored_snapshots`` on SQLite), so that
a process that has never seen a game reads one snapshot and at most 99 events
instead of folding them all. The event log stays the only truth (decision S3):
a snapshot written by other code, or one that cannot be read, is ignored and
the game folds from its events; a snapshot that cannot be written costs only
speed. Each snapshot is two rows: the fold without its request ids, and the
request ids first seen in the revisions since the snapshot before, so that what
a game stores grows with its events and requests, not with their square.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import pickle
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.persistence import EventStore, IntegrityError
from eventsourcing.utils import register_topic

import domain
from domain.common.table import Table
from domain.games.registry import GAMES
from services import record_digest
from services.records import GameRecord
from services.request_ids import Packed, RequestIds
from services.tracebacks import withheld_traceback

log = logging.getLogger(__name__)

FORMAT = "tabletop-snapshot/1"
CHECKPOINT_EVERY = 100  # revisions between two stored snapshots of one game


def _code_digest() -> str:
    """Returns a digest of the code a fold depends on: the domain and this layer.

    A fold is a fact only under the code that folded it: a changed ``evolve`` or
    a dataclass with a new field would make an old snapshot wrong, so any change
    to these files moves snapshots to new keys, where old ones are never read.
    """
    services = Path(__file__).parent
    files = sorted(Path(domain.__file__).parent.rglob("*.py"))
    files += [services / name for name in ("records.py", "request_ids.py")]
    files.append(Path(__file__))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


KEY = f"{FORMAT}/{_code_digest()}"


@dataclass(frozen=True)  # not slots: the library's mapper reads and sets vars()
class Snapshot:
    """One stored row: a pickle (base64), in one of a game's two snapshot streams."""

    originator_id: UUID
    originator_version: int
    state: str


register_topic("tabletop.Snapshot", Snapshot)

# What a stored fold may contain besides the domain's own classes and builtins:
# unpickling calls only these, so a forged row cannot run other code.
_ALLOWED = {
    ("datetime", "datetime"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
    ("uuid", "UUID"),
    ("builtins", "frozenset"),
    ("builtins", "set"),
}


def _read_only(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    """Returns a read-only mapping, as a snapshot restores the domain's ones."""
    return MappingProxyType(items)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        # A MappingProxyType has no importable name: store it as its items.
        if isinstance(obj, MappingProxyType):
            return (_read_only, (dict(obj),))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, _read_only.__name__):
            return _read_only
        if module.partition(".")[0] == "domain" or (module, name) in _ALLOWED:
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        msg = f"{module}.{name} is not allowed in a snapshot"
        raise pickle.UnpicklingError(msg)


def _dumps(value: object) -> str:
    data = io.BytesIO()
    _Pickler(data, protocol=5).dump(value)
    return base64.b64encode(data.getvalue()).decode("ascii")


def _loads(state: str) -> Any:
    data = base64.b64decode(state.encode("ascii"), validate=True)
    return _Unpickler(io.BytesIO(data)).load()


def fold_stream(game_id: UUID) -> UUID:
    """Returns the id of a game's stream of folds (without request ids)."""
    return uuid5(game_id, f"{KEY}/fold")


def ids_stream(game_id: UUID) -> UUID:
    """Returns the id of a game's stream of request ids, by snapshot."""
    return uuid5(game_id, f"{KEY}/requests")


def encode(record: GameRecord) -> list[Snapshot]:
    """Returns the rows of a snapshot of ``record`` (at a multiple of 100).

    The row of request ids is left out when the revisions since the snapshot
    before brought none: the count in the fold row still tells a lost row.
    """
    fold = {
        "game": record.game_id,
        "revision": record.revision,
        "table": record.table,
        "move_count": record.move_count,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "requests": len(record.requests),
        "digest": record.digest,
    }
    ids = tuple(record.requests.added_after(record.revision - CHECKPOINT_EVERY))
    rows = [Snapshot(fold_stream(record.game_id), record.revision, _dumps(fold))]
    if ids:
        rows.append(Snapshot(ids_stream(record.game_id), record.revision, _dumps(ids)))
    return rows


def decode(
    game_id: UUID, version: int, fold: Any, id_rows: list[Snapshot]
) -> GameRecord:
    """Returns the fold of a snapshot row (unpickled) and its request ids.

    Raises if they do not make the fold of this game at this revision.
    """
    table = fold["table"]
    revision = fold["revision"]
    if fold["game"] != game_id or revision != version:
        msg = f"the snapshot of {game_id} at {version} is not its"
        raise ValueError(msg)
    packed: list[Packed] = [item for row in id_rows for item in _loads(row.state)]
    requests = RequestIds.unpacked(packed)
    if len(requests) != fold["requests"] or not isinstance(table, Table):
        msg = f"the snapshot of {game_id} at {revision} is incomplete"
        raise ValueError(msg)
    return GameRecord(
        game_id=game_id,
        rules=GAMES[table.game_type],
        table=table,
        revision=_typed(revision, int),
        move_count=_typed(fold["move_count"], int),
        created_at=_typed(fold["created_at"], datetime),
        updated_at=_typed(fold["updated_at"], datetime),
        requests=requests,
        digest=_typed(fold["digest"], str),
        digest_key=record_digest.record_key(table.seed),
    )


def _typed(value: Any, kind: type[Any]) -> Any:
    if not isinstance(value, kind):
        msg = f"a snapshot holds {type(value).__name__} where {kind.__name__} belongs"
        raise TypeError(msg)
    return value


class Snapshots:
    """Reads and writes the stored snapshots of games; never fails a caller."""

    def __init__(self, store: EventStore[UUID]) -> None:
        self.store = store

    def read(self, game_id: UUID, revision: int | None = None) -> GameRecord | None:
        """Returns the newest readable snapshot at or below ``revision``, if any."""
        try:
            rows = list(
                self.store.get(fold_stream(game_id), lte=revision, desc=True, limit=1)
            )
            if not rows or not isinstance(rows[0], Snapshot):
                return None
            version = rows[0].originator_version
            fold = _loads(rows[0].state)
            # A game that has seen no request id has no rows of them to read.
            ids = self._ids(game_id, version) if fold["requests"] else []
            return decode(game_id, version, fold, ids)
        except Exception as error:  # noqa: BLE001 (a cache: an unreadable row is ignored)
            log.warning(
                "snapshot of game %s ignored\n%s", game_id, withheld_traceback(error)
            )
            return None

    def _ids(self, game_id: UUID, version: int) -> list[Snapshot]:
        rows = self.store.get(ids_stream(game_id), lte=version)
        return [row for row in rows if isinstance(row, Snapshot)]

    def write(self, records: list[GameRecord]) -> None:
        """Stores snapshots of folds at multiples of 100, each on its own."""
        for record in records:
            try:
                self.store.put(encode(record))
            except IntegrityError:  # another process stored it first
                log.debug(
                    "snapshot of %s at %d exists", record.game_id, record.revision
                )
            except Exception as error:  # noqa: BLE001 (a cache: the move stands)
                log.warning(
                    "snapshot of game %s at %d not stored\n%s",
                    record.game_id,
                    record.revision,
                    withheld_traceback(error),
                )
