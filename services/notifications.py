"""What a player is told, and when: notifications made from the event log.

An event notifies each signed-in player it concerns:

* ``YOUR_TURN`` when after the decision it belongs to (a move and what follows
  from it, stored together) the player is among those to act and before it was
  not (so a move that hands the turn on notifies the next player once);
* ``GAME_FINISHED`` when it ends the game, every seated player;
* ``TAKEBACK_PROPOSED`` when it proposes a takeback, every seat asked;
* ``PLAYER_JOINED`` when it seats someone, every other seated player.

Guests (seat tokens only) have no account to notify. A notification carries no
names, only ids: it may be kept and sent after a player's account is deleted.
Its key derives from what it says (game, revision, kind, player), so every
delivery of it, however often repeated, carries the same key.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from uuid import UUID

from domain.common.table import GameFinished, PlayerJoined, TableStatus
from domain.common.undo import UndoProposed
from services.records import GameRecord, RecordedEvent

_KEYS = uuid.UUID("0f8f7d2e-6a4b-4c1e-9d3a-5b2c7e1f4a60")


class Kind(StrEnum):
    """What a notification says."""

    YOUR_TURN = "YOUR_TURN"
    GAME_FINISHED = "GAME_FINISHED"
    TAKEBACK_PROPOSED = "TAKEBACK_PROPOSED"
    PLAYER_JOINED = "PLAYER_JOINED"


@dataclass(frozen=True, slots=True)
class Notice:
    """A notification to be stored and sent: to whom, of which game, what, when."""

    player_id: UUID
    game_id: UUID
    game_type: str
    kind: Kind
    revision: int
    at: datetime

    @property
    def key(self) -> str:
        """Returns the notification's idempotency key."""
        name = f"{self.game_id}/{self.revision}/{self.kind}/{self.player_id}"
        return str(uuid.uuid5(_KEYS, name))


def event_notices(after: GameRecord, recorded: RecordedEvent) -> list[Notice]:
    """Returns what one event says by itself: a game finished, a takeback
    proposed, a seat taken. ``after`` is the game with the event."""
    table, event = after.table, recorded.event
    accounts = _accounts(after)
    if isinstance(event, GameFinished):
        seats: Iterable[int] = accounts
        kind = Kind.GAME_FINISHED
    elif isinstance(event, UndoProposed):  # the seats that answer: not resigned
        seats, kind = (
            set(accounts) - {event.proposer} - table.resigned,
            Kind.TAKEBACK_PROPOSED,
        )
    elif isinstance(event, PlayerJoined):
        seats, kind = set(accounts) - {event.seat}, Kind.PLAYER_JOINED
    else:
        return []
    return _to(after, accounts, seats, kind, recorded)


def turn_notices(
    before: GameRecord | None, after: GameRecord, last: RecordedEvent
) -> list[Notice]:
    """Returns who became one of those to act through a decision: ``before``
    and ``after`` are the game before its first event and with its ``last``.

    Compared per decision, not per event: a decision's events may pass through
    states it does not end in (a last move hands the turn on before the game
    finishes).
    """
    accounts = _accounts(after)
    # A resigned seat is the server's bot's to play: its player is not asked.
    now = _to_act(after) - _to_act(before) - after.table.resigned
    return _to(after, accounts, now, Kind.YOUR_TURN, last)


def _accounts(record: GameRecord) -> dict[int, str]:
    """Returns the accounts of the seats signed-in players hold, by seat."""
    return {
        seat: h.player_id for seat, h in enumerate(record.table.seats) if h.player_id
    }


def _to(
    record: GameRecord,
    accounts: dict[int, str],
    seats: Iterable[int],
    kind: Kind,
    recorded: RecordedEvent,
) -> list[Notice]:
    return [
        Notice(
            UUID(accounts[seat]),
            record.game_id,
            record.table.game_type,
            kind,
            recorded.revision,
            recorded.timestamp,
        )
        for seat in sorted(set(seats))
        if seat in accounts
    ]


def _to_act(record: GameRecord | None) -> set[int]:
    """Returns the seats to act in a game in progress (none otherwise)."""
    if record is None or record.table.status is not TableStatus.IN_PROGRESS:
        return set()
    game = record.table.game
    return set(record.rules.to_move(game)) if game is not None else set()
