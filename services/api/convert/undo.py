"""Undo values -> ``tabletop.v1`` messages: the proposal and the undo events."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from google.protobuf import timestamp_pb2
from google.protobuf.message import Message
from tabletop.v1 import event_pb2, game_pb2

from domain.common.undo import (
    MovePlayed,
    MovesUndone,
    Proposal,
    UndoAccepted,
    UndoEvent,
    UndoOutcome,
    UndoProposed,
    UndoResolved,
)
from services.api.convert.base import Names

_OUTCOMES: Mapping[UndoOutcome, event_pb2.UndoOutcome] = {
    UndoOutcome.ACCEPTED: event_pb2.UNDO_OUTCOME_ACCEPTED,
    UndoOutcome.REJECTED: event_pb2.UNDO_OUTCOME_REJECTED,
    UndoOutcome.EXPIRED: event_pb2.UNDO_OUTCOME_EXPIRED,
    UndoOutcome.WITHDRAWN: event_pb2.UNDO_OUTCOME_WITHDRAWN,
}


def proposal_to_proto(proposal: Proposal, names: Names) -> game_pb2.UndoProposal:
    """Returns the open proposal as shown on a ``Game``."""
    return game_pb2.UndoProposal(
        proposal_id=proposal.proposal_id,
        proposer=names(proposal.proposer),
        target_revision=proposal.target_revision,
        accepted_by=[names(seat) for seat in proposal.accepted_by],
        expire_time=timestamp(proposal.expires_at),
    )


def undo_event_to_proto(event: UndoEvent, names: Names) -> tuple[str, Message]:
    """Returns the ``GameEvent.event`` member and message of an undo event."""
    match event:
        case MovePlayed():
            played = event_pb2.MovePlayed(
                player=names(event.seat),
                undoable=event.undoable,
                reveals=bool(event.reveals),
            )
            return "move_played", played
        case UndoProposed():
            proposed = event_pb2.UndoProposed(
                proposal_id=event.proposal_id,
                proposer=names(event.proposer),
                target_revision=event.target_revision,
                expire_time=timestamp(event.expires_at),
            )
            return "undo_proposed", proposed
        case UndoAccepted():
            accepted = event_pb2.UndoAccepted(
                proposal_id=event.proposal_id, player=names(event.seat)
            )
            return "undo_accepted", accepted
        case UndoResolved():
            resolved = event_pb2.UndoResolved(
                proposal_id=event.proposal_id,
                outcome=_OUTCOMES[event.outcome],
                player="" if event.seat is None else names(event.seat),
            )
            return "undo_resolved", resolved
        case MovesUndone():
            undone = event_pb2.MovesUndone(
                target_revision=event.target_revision,
                moves=event.moves,
                player=names(event.seat),
                proposal_id=event.proposal_id,
            )
            return "moves_undone", undone


def timestamp(moment: datetime) -> timestamp_pb2.Timestamp:
    """Returns a protobuf timestamp."""
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp
