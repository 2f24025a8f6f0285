"""The storage envelope of a game's events and the fold that loads a game.

Domain events are pure dataclasses. Each is stored inside one envelope whose
topic is the event's stable name (``qwirkle.TilesPlaced``), with who caused it,
the move it belongs to and the request that carried it.

The request is stored by its key only (``services/request_ids.py``). Envelopes
of version 1, stored before that, hold the raw request id: they are upcast when
read (``StoredEvent.upcast_v1_v2``), so old games keep their retries working and
nothing read from the store, an export included, shows a raw id.

Envelopes of version 3 also hold the record digest of their revision
(``services/record_digest.py``); those stored before it have none and get it
when folded. A digest is computed over the event and command as stored, which
``RecordedEvent`` keeps beside their decoded values.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeAlias
from uuid import UUID

from eventsourcing.utils import register_topic

from domain.common import table as tables
from domain.common.commands import TABLE_COMMANDS
from domain.common.rules import GameRules
from domain.games.registry import GAMES
from domain.players import EVENTS as PLAYER_EVENTS
from services import record_digest
from services.codec import Codec
from services.request_ids import RequestEntry, RequestIds, request_key

Rules: TypeAlias = GameRules[Any, Any, Any, Any]

NO_ACTOR = -1  # the system (setup, game end), not a seat


@dataclass(frozen=True)
class StoredEvent:
    """The envelope stored for every event; subclassed once per stable name."""

    TOPIC = "tabletop.StoredEvent"
    # Version 2 stores the request's key under ``request_id``; version 1 the id.
    # Version 3 adds ``digest``.
    class_version = 3

    originator_id: UUID
    originator_version: int
    timestamp: datetime
    payload: dict[str, Any]
    actor: int
    move_number: int
    # The key of the client's request id (request_ids.request_key), or "".
    request_id: str
    # Hash of the request that produced the event, to tell a retry from a reuse.
    request_hash: str
    # The request's command (encoded), on the first event it produced.
    command: dict[str, Any] | None
    # The record digest at this revision; "" in envelopes stored before digests.
    digest: str

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """Replaces the raw request id of an envelope stored before keys."""
        state["request_id"] = request_key(state.get("request_id") or "")

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        """Gives an envelope stored before digests an empty one (folds compute it)."""
        state["digest"] = ""


@functools.cache
def envelope_type(name: str) -> type[StoredEvent]:
    """Returns the envelope class stored under topic ``name`` (and registers it)."""
    cls = type(f"Stored[{name}]", (StoredEvent,), {"TOPIC": name})
    register_topic(name, cls)
    return cls


def _all_names() -> dict[str, type[Any]]:
    names: dict[str, type[Any]] = {
        **tables.TABLE_EVENTS,
        **TABLE_COMMANDS,
        **PLAYER_EVENTS,
    }
    for rules in GAMES.values():
        for registry in (rules.events, rules.commands, rules.values):
            names.update(registry)
    return names


CODEC = Codec(_all_names())
EVENT_NAMES: tuple[str, ...] = (
    *tables.TABLE_EVENTS,
    *(name for rules in GAMES.values() for name in rules.events),
)
for _name in (*EVENT_NAMES, *PLAYER_EVENTS):
    envelope_type(_name)


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """A stored event, decoded: its revision, move, actor and the domain event."""

    revision: int
    move_number: int
    actor: int | None
    timestamp: datetime
    request_key: str  # of the request that stored the event ("": none)
    event: Any
    request_hash: str = ""
    command: Any = None
    # The event and command as stored, before any upcaster (None: encode them).
    payload: dict[str, Any] | None = None
    stored_command: dict[str, Any] | None = None
    # The record digest at this revision ("": not known yet, see ``digested``).
    digest: str = ""

    def entry(self) -> dict[str, Any]:
        """Returns this revision's entry in the record digests' chain."""
        payload = self.payload if self.payload is not None else CODEC.encode(self.event)
        command = self.stored_command
        if command is None and self.command is not None:
            command = CODEC.encode(self.command)
        return record_digest.entry(
            revision=self.revision,
            time=self.timestamp,
            actor=self.actor,
            move_number=self.move_number,
            request_key=self.request_key,
            event=payload,
            command=command,
        )


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game as loaded: its table state and where its event stream stands."""

    game_id: UUID
    rules: Rules
    table: tables.Table
    revision: int
    move_count: int
    created_at: datetime
    updated_at: datetime
    # request key -> what it stored, for de-duplicating retries (DESIGN §8).
    requests: RequestIds
    # The record digest at ``revision``, and the secret key of the game's digests.
    digest: str = ""
    digest_key: bytes = b""


def wrap(  # noqa: PLR0913 (one argument per envelope field)
    game_id: UUID,
    revision: int,
    event: object,
    *,
    timestamp: datetime,
    actor: int | None,
    move_number: int,
    request_key: str,
    request_hash: str = "",
    command: object = None,
    digest: str = "",
) -> StoredEvent:
    """Returns the envelope that stores ``event`` at ``revision``."""
    cls = envelope_type(CODEC.name_of(event))
    return cls(
        originator_id=game_id,
        originator_version=revision,
        timestamp=timestamp,
        payload=CODEC.encode(event),
        actor=NO_ACTOR if actor is None else actor,
        move_number=move_number,
        request_id=request_key,
        request_hash=request_hash,
        command=None if command is None else CODEC.encode(command),
        digest=digest,
    )


def unwrap(stored: StoredEvent) -> RecordedEvent:
    """Returns the decoded event of an envelope."""
    command = getattr(stored, "command", None)
    return known_event(stored, CODEC.decode(stored.payload), _decoded(command))


def known_event(stored: StoredEvent, event: object, command: object) -> RecordedEvent:
    """Returns the recorded event of an envelope whose event and command are known.

    For an append, which has the values it encoded and need not decode them.
    """
    return RecordedEvent(
        revision=stored.originator_version,
        move_number=stored.move_number,
        actor=None if stored.actor == NO_ACTOR else stored.actor,
        timestamp=stored.timestamp,
        request_key=stored.request_id,
        # Envelopes stored before requests were fingerprinted have no hash.
        request_hash=getattr(stored, "request_hash", ""),
        event=event,
        command=command,
        payload=stored.payload,
        stored_command=getattr(stored, "command", None),
        digest=stored.digest,
    )


def _decoded(command: dict[str, Any] | None) -> Any:
    return None if command is None else CODEC.decode(command)


def fold(game_id: UUID, recorded: Iterable[RecordedEvent]) -> GameRecord | None:
    """Returns the game folded from its events, None when there are none."""
    record: GameRecord | None = None
    for item in recorded:
        record = advance(record, game_id, item)
    return record


def advance(
    record: GameRecord | None, game_id: UUID, item: RecordedEvent
) -> GameRecord:
    """Returns ``record`` after one more recorded event."""
    if record is None:
        created = item.event
        if not isinstance(created, tables.GameCreated):
            msg = f"game {game_id} does not start with GameCreated"
            raise ValueError(msg)
        rules = GAMES[created.game_type]
        table = tables.evolve(None, created, rules)
        key = record_digest.record_key(created.seed)
        first = record_digest.genesis(key, f"games/{game_id}")
        return GameRecord(
            game_id,
            rules,
            table,
            item.revision,
            0,
            item.timestamp,
            item.timestamp,
            _remember(RequestIds(), item),
            digest=_digest(key, first, item),
            digest_key=key,
        )
    return GameRecord(
        game_id=game_id,
        rules=record.rules,
        table=tables.evolve(record.table, item.event, record.rules),
        revision=item.revision,
        move_count=max(record.move_count, item.move_number),
        created_at=record.created_at,
        updated_at=item.timestamp,
        requests=_remember(record.requests, item),
        digest=_digest(record.digest_key, record.digest, item),
        digest_key=record.digest_key,
    )


def digested(
    record: GameRecord | None, game_id: UUID, items: Sequence[RecordedEvent]
) -> list[RecordedEvent]:
    """Returns ``items``, the events after ``record``, each with its digest."""
    key, previous = (record.digest_key, record.digest) if record else (b"", "")
    done = []
    for item in items:
        if not key:  # the game's first event, GameCreated, holds the seed
            key = record_digest.record_key(item.event.seed)
            previous = record_digest.genesis(key, f"games/{game_id}")
        previous = _digest(key, previous, item)
        done.append(replace(item, digest=previous))
    return done


def _digest(key: bytes, previous: str, item: RecordedEvent) -> str:
    """Returns the digest at ``item``: the stored one, or computed from its entry."""
    return item.digest or record_digest.next_digest(key, previous, item.entry())


def _remember(requests: RequestIds, item: RecordedEvent) -> RequestIds:
    if not item.request_key or item.request_key in requests:
        return requests
    entry = RequestEntry(item.revision, item.actor, item.request_hash)
    return requests.with_entry(item.request_key, entry)
