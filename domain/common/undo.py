"""Undo bookkeeping of a table: the moves that may be taken back and proposals.

Undo never deletes an event: it appends ``MovesUndone``, after which the game's
state equals its state at ``target_revision`` (DESIGN §6). Every move pushes an
``UndoPoint`` holding the game state before it; taking moves back pops them.
The undos a seat made alone are counted here too, so that the limit on them
(decision T18) follows from the events on every server process and in a replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

# A consent proposal lapses when the other players have not all answered by then.
PROPOSAL_LIFETIME = timedelta(minutes=2)
# After a declined proposal the proposer waits 30 s, then 60 s, 120 s, ... (cap).
BACKOFF_FIRST = timedelta(seconds=30)
BACKOFF_MAX = timedelta(minutes=15)
# How many of the last moves a table remembers for undo.
MAX_UNDO_POINTS = 20
# How often a seat may take its own moves back alone before another seat moves
# (T18): enough for slips, too few for a move-and-undo loop to flood a game.
SELF_UNDO_LIMIT = 3


class UndoOutcome(StrEnum):
    """How a consent proposal ended."""

    ACCEPTED = "ACCEPTED"
    REJECTED = "REJECTED"
    EXPIRED = "EXPIRED"
    WITHDRAWN = "WITHDRAWN"


@dataclass(frozen=True, slots=True)
class MovePlayed:
    """A seat made a move; the game's events of that move follow.

    ``undoable`` records the game's verdict that the move revealed nothing (no
    draw, no reveal, no random step), so its mover may take it back alone;
    ``reveals`` its verdict that the move showed another seat or a spectator
    something hidden, so no takeback may cross it (T19). Every new move records
    that verdict. None means unknown: the move was stored before the verdict
    existed (schema version 1, which has no ``reveals``); such moves are taken
    back as if False, the rule they were made under, and the audit accepts
    either verdict for them.
    """

    # Version 2 added ``reveals`` (docs/events.md).
    SCHEMA_VERSION: ClassVar[int] = 2

    seat: int
    undoable: bool
    reveals: bool | None

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> None:
        """A move stored before the reveal verdict existed: unknown."""
        data.setdefault("reveals", None)


@dataclass(frozen=True, slots=True)
class UndoProposed:
    """A seat asked the others to let it take back its last move."""

    proposal_id: int
    proposer: int
    target_revision: int
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class UndoAccepted:
    """A seat agreed to an open proposal."""

    proposal_id: int
    seat: int


@dataclass(frozen=True, slots=True)
class UndoResolved:
    """A proposal closed: accepted, rejected by ``seat``, expired or withdrawn."""

    proposal_id: int
    outcome: UndoOutcome
    seat: int | None
    at: datetime | None  # known for answers; None when a new move withdrew it


@dataclass(frozen=True, slots=True)
class MovesUndone:
    """Moves were taken back: the game is as it was at ``target_revision``."""

    target_revision: int
    moves: int
    seat: int
    proposal_id: int  # 0 for a self-undo


UndoEvent: TypeAlias = (
    MovePlayed | UndoProposed | UndoAccepted | UndoResolved | MovesUndone
)

UNDO_EVENTS: Mapping[str, type[UndoEvent]] = {
    "table.MovePlayed": MovePlayed,
    "table.UndoProposed": UndoProposed,
    "table.UndoAccepted": UndoAccepted,
    "table.UndoResolved": UndoResolved,
    "table.MovesUndone": MovesUndone,
}
UNDO_EVENT_TYPES: tuple[type[UndoEvent], ...] = tuple(UNDO_EVENTS.values())


@dataclass(frozen=True, slots=True)
class UndoPoint:
    """A move that may be taken back: who made it and the game before it."""

    seat: int
    revision: int  # the game's revision just before the move
    game: Any
    undoable: bool
    # The turn timer's deadline when the move was made (None: no timer), which
    # taking the move back alone restores (domain.common.turn_timer).
    deadline: datetime | None = None
    reveals: bool = False  # it showed others something hidden: never taken back


@dataclass(frozen=True, slots=True)
class Proposal:
    """An open request to take back the proposer's last move."""

    proposal_id: int
    proposer: int
    target_revision: int
    expires_at: datetime
    accepted_by: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Declines:
    """How often a seat's proposals were declined, and when last."""

    count: int
    last: datetime


@dataclass(frozen=True, slots=True)
class SelfUndos:
    """How often ``seat`` took its own moves back alone since another seat moved."""

    seat: int = -1  # the seat that moved last (-1: nobody yet)
    count: int = 0


@dataclass(frozen=True, slots=True)
class UndoState:
    """What a table remembers for undo."""

    points: tuple[UndoPoint, ...] = ()
    proposal: Proposal | None = None
    proposals_made: int = 0
    declines: tuple[tuple[int, Declines], ...] = ()
    self_undos: SelfUndos = SelfUndos()

    def declines_of(self, seat: int) -> Declines | None:
        """Returns the declines of a seat's proposals, None if never declined."""
        return dict(self.declines).get(seat)


def backoff(declines: Declines) -> datetime:
    """Returns when a seat whose proposals were declined may propose again."""
    wait: timedelta = min(BACKOFF_FIRST * 2 ** (declines.count - 1), BACKOFF_MAX)
    return declines.last + wait


def evolve_undo(
    state: UndoState,
    event: UndoEvent,
    game: Any,
    revision: int,
    deadline: datetime | None = None,
) -> tuple[UndoState, Any]:
    """Returns the undo state and the game after one undo event.

    ``revision`` is the table's revision before the event, ``game`` its game
    and ``deadline`` its turn timer's.
    """
    match event:
        case MovePlayed():
            point = UndoPoint(
                event.seat,
                revision,
                game,
                event.undoable,
                deadline,
                bool(event.reveals),
            )
            points = (*state.points, point)[-MAX_UNDO_POINTS:]
            counted = _moved(state.self_undos, event.seat)
            return replace(state, points=points, self_undos=counted), game
        case UndoProposed():
            opened = Proposal(
                event.proposal_id,
                event.proposer,
                event.target_revision,
                event.expires_at,
            )
            made = max(state.proposals_made, event.proposal_id)
            return replace(state, proposal=opened, proposals_made=made), game
        case UndoAccepted():
            current = state.proposal
            if current is None or current.proposal_id != event.proposal_id:
                return state, game
            voters = (*current.accepted_by, event.seat)
            return replace(state, proposal=replace(current, accepted_by=voters)), game
        case UndoResolved():
            return _resolved(state, event), game
        case MovesUndone():
            kept = state.points[: len(state.points) - event.moves]
            restored = state.points[len(kept)].game
            counted = state.self_undos
            if event.proposal_id == 0:
                counted = _undone_alone(counted, event.seat)
            return replace(state, points=kept, self_undos=counted), restored


def _moved(counted: SelfUndos, seat: int) -> SelfUndos:
    # Another seat's move ends the turn: the count starts again. A takeback by
    # consent does not, so it can never be a way around the limit.
    return counted if seat == counted.seat else SelfUndos(seat, 0)


def _undone_alone(counted: SelfUndos, seat: int) -> SelfUndos:
    if seat == counted.seat:
        return replace(counted, count=counted.count + 1)
    # A takeback by consent left this seat's earlier move last.
    return SelfUndos(seat, 1)


def _resolved(state: UndoState, event: UndoResolved) -> UndoState:
    proposal = state.proposal
    closed = replace(state, proposal=None)
    if event.outcome is not UndoOutcome.REJECTED or proposal is None:
        return closed
    earlier = closed.declines_of(proposal.proposer)
    count = earlier.count + 1 if earlier else 1
    others = tuple((s, d) for s, d in closed.declines if s != proposal.proposer)
    last = event.at or (earlier.last if earlier else proposal.expires_at)
    declines = (*others, (proposal.proposer, Declines(count, last)))
    return replace(closed, declines=declines)
