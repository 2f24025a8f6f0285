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
from domain.common import takeback
from domain.common.decision import Decision
from domain.common.rng import commitment


@dataclass(frozen=True, slots=True)
class CreateTable:
    """Open a table; the creator takes seat 0 with the token hashed here."""

    game_type: str
    config: Any
    max_players: int
    display_name: str
    token_hash: str


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


TableCommand: TypeAlias = (
    JoinTable | StartTable | PlayMove | UndoLastMove | ProposeTakeback | AnswerTakeback
)

TABLE_COMMANDS: Mapping[str, type[Any]] = {
    "table.CreateTable": CreateTable,
    "table.JoinTable": JoinTable,
    "table.StartTable": StartTable,
    "table.PlayMove": PlayMove,
    "table.UndoLastMove": UndoLastMove,
    "table.ProposeTakeback": ProposeTakeback,
    "table.AnswerTakeback": AnswerTakeback,
}


def create(rules: tables.Rules, command: CreateTable, seed: bytes) -> Decision[Any]:
    """Decides the opening of a table with its secret seed."""
    return tables.create(
        rules,
        command.config,
        command.max_players,
        seed,
        commitment(seed),
        command.display_name,
        command.token_hash,
    )


def decide(
    table: tables.Table,
    rules: tables.Rules,
    seat: int | None,
    command: TableCommand,
    now: datetime,
) -> Decision[Any]:
    """Decides a request on a table: ``seat`` is the caller's (None if unseated)."""
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
