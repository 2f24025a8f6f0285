"""Taking moves back: alone where the game allows it, otherwise by consent.

DESIGN §6: a player may take back their own last move alone while no other seat
has acted since and the move revealed nothing. Otherwise they propose; every
other seated player must accept; a decline or a new move closes the proposal,
and after a decline the proposer waits longer each time before proposing again.
Taking back never re-rolls luck: the game's random labels count steps in its
state, so the same move made again draws the same tiles. Two bounds: a seat
takes its moves back alone at most ``SELF_UNDO_LIMIT`` times before another
seat moves (T18), and no takeback crosses a move that showed others something
hidden (T19).
"""

from __future__ import annotations

from datetime import datetime

from domain.common.decision import Accepted, Decision, Rejected, reject
from domain.common.table import Table, TableStatus, not_seated
from domain.common.undo import (
    PROPOSAL_LIFETIME,
    SELF_UNDO_LIMIT,
    MovesUndone,
    Proposal,
    UndoAccepted,
    UndoEvent,
    UndoOutcome,
    UndoPoint,
    UndoProposed,
    UndoResolved,
    backoff,
)


def undo_move(table: Table, seat: int, now: datetime) -> Decision[UndoEvent]:
    """Takes back the caller's last move without consent, where the game allows."""
    point = _own_last_move(table, seat)
    if isinstance(point, Rejected):
        return point
    if not point.undoable:
        return reject(
            "MOVE_NOT_UNDOABLE",
            "Your last move drew or revealed something; propose a takeback instead.",
            "table/self_undo",
        )
    counted = table.undo.self_undos
    if counted.seat == seat and counted.count >= SELF_UNDO_LIMIT:
        return reject(
            "SELF_UNDO_LIMIT_REACHED",
            f"You have taken back {SELF_UNDO_LIMIT} moves alone this turn, the "
            "most allowed; propose a takeback for the others to accept instead.",
            "table/self_undo_limit",
            limit=SELF_UNDO_LIMIT,
        )
    closing = _close_open(table, now, UndoOutcome.WITHDRAWN)
    return Accepted((*closing, MovesUndone(point.revision, 1, seat, 0)))


def propose_undo(table: Table, seat: int, now: datetime) -> Decision[UndoEvent]:
    """Asks the other players to let the caller take back their last move."""
    point = _own_last_move(table, seat)
    if isinstance(point, Rejected):
        return point
    crossed = _crossed_reveal(table, point.revision)
    if crossed is not None:
        return crossed
    if not set(range(len(table.seats))) - {seat} - table.resigned:
        return reject(
            "NOBODY_TO_ASK",
            "Every other seat resigned, so nobody can agree to a takeback; the "
            "server's bot does not answer proposals.",
            "table/takeback_consent",
        )
    open_proposal = _live(table, now)
    if open_proposal is not None:
        return reject(
            "PROPOSAL_OPEN",
            "An undo proposal is already open; wait for its answer.",
            "table/one_proposal",
            proposalId=open_proposal.proposal_id,
        )
    declines = table.undo.declines_of(seat)
    if declines is not None and now < backoff(declines):
        wait = backoff(declines)
        return reject(
            "UNDO_BACKOFF",
            f"Your last proposal was declined; you may propose again at {wait}.",
            "table/undo_backoff",
            retryAt=wait.isoformat(),
        )
    proposal = UndoProposed(
        table.undo.proposals_made + 1, seat, point.revision, now + PROPOSAL_LIFETIME
    )
    return Accepted((*_close_open(table, now, UndoOutcome.EXPIRED), proposal))


def respond_undo(
    table: Table, seat: int, proposal_id: int, *, accept: bool, now: datetime
) -> Decision[UndoEvent]:
    """Records a seat's answer; the last acceptance takes the move back."""
    if not 0 <= seat < len(table.seats):
        return not_seated()
    proposal = _live(table, now)
    if proposal is None or proposal.proposal_id != proposal_id:
        return reject(
            "NO_OPEN_PROPOSAL",
            f"Undo proposal {proposal_id} is not open (answered, expired or "
            "withdrawn).",
            "table/open_proposal",
            proposalId=proposal_id,
        )
    if seat == proposal.proposer or seat in proposal.accepted_by:
        return reject(
            "ALREADY_RESPONDED",
            "You have already agreed to this proposal (or made it).",
            "table/one_answer",
            proposalId=proposal_id,
        )
    if not accept:
        return Accepted((UndoResolved(proposal_id, UndoOutcome.REJECTED, seat, now),))
    agreed = UndoAccepted(proposal_id, seat)
    # A seat that resigned has no say: the bot plays it, and answers nothing.
    waiting = set(range(len(table.seats))) - {proposal.proposer, seat}
    waiting -= table.resigned
    if waiting - set(proposal.accepted_by):
        return Accepted((agreed,))
    target = proposal.target_revision
    crossed = _crossed_reveal(table, target)
    if crossed is not None:  # a proposal opened before reveals were recorded
        return crossed
    moves = sum(1 for point in table.undo.points if point.revision >= target)
    undone = MovesUndone(target, moves, proposal.proposer, proposal_id)
    resolved = UndoResolved(proposal_id, UndoOutcome.ACCEPTED, seat, now)
    return Accepted((agreed, undone, resolved))


def _own_last_move(table: Table, seat: int) -> UndoPoint | Rejected:
    if not 0 <= seat < len(table.seats):
        return not_seated()
    if table.status is not TableStatus.IN_PROGRESS:
        return reject(
            "GAME_NOT_IN_PROGRESS",
            "Moves can be taken back only while the game is in progress.",
            "table/in_progress",
            state=table.status.value,
        )
    points = table.undo.points
    if not points:
        return reject(
            "NOTHING_TO_UNDO",
            "There is no move to take back.",
            "table/undo_last_move",
        )
    if points[-1].seat != seat:
        return reject(
            "LAST_MOVE_NOT_YOURS",
            "Only the last move can be taken back, and only by the player who made it.",
            "table/undo_last_move",
            lastMover=points[-1].seat,
        )
    return points[-1]


def _crossed_reveal(table: Table, target: int) -> Rejected | None:
    """Refuses to take the game back past a move that showed others something."""
    shown = [p for p in table.undo.points if p.revision >= target and p.reveals]
    if not shown:
        return None
    return reject(
        "TAKEBACK_CROSSES_REVEAL",
        "The move to take back showed other players something hidden (a hand, "
        "a card turned up or dealt); what was seen cannot be unseen, so no "
        "takeback can cross it.",
        "table/no_takeback_across_a_reveal",
        revealedAtRevision=shown[0].revision + 1,
    )


def _live(table: Table, now: datetime) -> Proposal | None:
    proposal = table.undo.proposal
    if proposal is None or now >= proposal.expires_at:
        return None
    return proposal


def _close_open(
    table: Table, now: datetime, outcome: UndoOutcome
) -> tuple[UndoResolved, ...]:
    proposal = table.undo.proposal
    if proposal is None:
        return ()
    return (UndoResolved(proposal.proposal_id, outcome, None, now),)
