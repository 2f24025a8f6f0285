"""Every request a table takes, as a value, and the one function that decides it.

The service decides live requests with ``decide`` and stores each command with the
events it produced; an audit re-decides the stored commands with the same
function to prove that the record follows from the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeAlias

from domain.common import table as tables
from domain.common import takeback, turn_timer
from domain.common.decision import Accepted, Decision
from domain.common.rng import commitment


@dataclass(frozen=True, slots=True)
class CreateTable:
    """Open a table; the creator takes seat 0 with the token hashed here."""

    game_type: str
    config: Any
    max_players: int
    display_name: str
    token_hash: str
    turn_seconds: int = 0  # the turn time limit; 0 for none


@dataclass(frozen=True, slots=True)
class JoinTable:
    """Take the next free seat."""

    display_name: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class StartTable:
    """Start play."""


@dataclass(frozen=True, slots=True)
class PlayMove:
    """Make a move of the game (``move`` is the game's own command)."""

    move: Any


@dataclass(frozen=True, slots=True)
class UndoLastMove:
    """Take back one's own last move alone (self-undo)."""


@dataclass(frozen=True, slots=True)
class ProposeTakeback:
    """Ask the others to let one take back one's last move."""


@dataclass(frozen=True, slots=True)
class AnswerTakeback:
    """Accept or decline an open proposal."""

    proposal_id: int
    accept: bool


@dataclass(frozen=True, slots=True)
class TimeOut:
    """Time out ``seat``'s turn: the server's bot plays ``move`` for it."""

    seat: int
    move: Any


TableCommand: TypeAlias = (
    JoinTable
    | StartTable
    | PlayMove
    | UndoLastMove
    | ProposeTakeback
    | AnswerTakeback
    | TimeOut
)

# The commands that are moves: each one numbered, in order, by the store.
MOVE_COMMANDS: tuple[type[Any], ...] = (PlayMove, TimeOut)

TABLE_COMMANDS: Mapping[str, type[Any]] = {
    "table.CreateTable": CreateTable,
    "table.JoinTable": JoinTable,
    "table.StartTable": StartTable,
    "table.PlayMove": PlayMove,
    "table.UndoLastMove": UndoLastMove,
    "table.ProposeTakeback": ProposeTakeback,
    "table.AnswerTakeback": AnswerTakeback,
    "table.TimeOut": TimeOut,
}


def create(rules: tables.Rules, command: CreateTable, seed: bytes) -> Decision[Any]:
    """Decides the opening of a table with its secret seed."""
    return turn_timer.check_turn_seconds(command.turn_seconds) or tables.create(
        rules,
        command.config,
        command.max_players,
        seed,
        commitment(seed),
        command.display_name,
        command.token_hash,
        command.turn_seconds,
    )


def acting_seat(command: TableCommand, seat: int | None) -> int | None:
    """Returns the seat a command acts for: the caller's, or a timed-out seat's."""
    return command.seat if isinstance(command, TimeOut) else seat


def decide(
    table: tables.Table,
    rules: tables.Rules,
    seat: int | None,
    command: TableCommand,
    now: datetime,
) -> Decision[Any]:
    """Decides a request on a table: ``seat`` is the caller's (None if unseated).

    A decision that changes the game restarts the turn timer, if there is one.
    """
    decision = _decide(table, rules, seat, command, now)
    if not isinstance(decision, Accepted):
        return decision
    return Accepted(turn_timer.restarted(table, rules, decision.events, now))


def _decide(
    table: tables.Table,
    rules: tables.Rules,
    seat: int | None,
    command: TableCommand,
    now: datetime,
) -> Decision[Any]:
    acting = -1 if seat is None else seat
    match command:
        case JoinTable():
            return tables.join(table, command.display_name, command.token_hash)
        case StartTable():
            return tables.start(table, rules, acting)
        case PlayMove():
            return tables.play(table, rules, acting, command.move)
        case UndoLastMove():
            return takeback.undo_move(table, acting, now)
        case ProposeTakeback():
            return takeback.propose_undo(table, acting, now)
        case AnswerTakeback():
            return takeback.respond_undo(
                table, acting, command.proposal_id, accept=command.accept, now=now
            )
        case TimeOut():
            return turn_timer.time_out(table, rules, command.seat, command.move, now)
