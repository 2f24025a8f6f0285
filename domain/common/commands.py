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

from domain.common import lobby, resigning, takeback, turn_timer
from domain.common import table as tables
from domain.common.decision import Accepted, Decision
from domain.common.fields import added_later
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
    # The hash of a private table's invite code; "" for a public table.
    invite_hash: str = ""
    # When the table closes if play has not begun (None: never, for tables
    # opened before tables expired).
    expires_at: datetime | None = None
    # The creator's account when signed in ("": a guest, named by display_name).
    player_id: str = added_later("")


@dataclass(frozen=True, slots=True)
class JoinTable:
    """Take the next free seat (a private table's with the code's hash)."""

    display_name: str
    token_hash: str
    invite_hash: str = ""
    player_id: str = added_later("")  # the joiner's account when signed in


@dataclass(frozen=True, slots=True)
class LeaveTable:
    """Give up one's seat before play begins."""


@dataclass(frozen=True, slots=True)
class RemoveSeat:
    """The host removes another player's seat before play begins."""

    seat: int


@dataclass(frozen=True, slots=True)
class RotateInvite:
    """The host replaces a private table's invite code (by its hash)."""

    invite_hash: str


@dataclass(frozen=True, slots=True)
class ExpireTable:
    """Close a table that waited for players past its expiry time."""


@dataclass(frozen=True, slots=True)
class Resign:
    """Resign one's seat: the server's bot plays it from now on."""


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


@dataclass(frozen=True, slots=True)
class PlayResigned:
    """The server's bot plays ``move`` for ``seat``, which resigned."""

    seat: int
    move: Any


TableCommand: TypeAlias = (
    JoinTable
    | LeaveTable
    | RemoveSeat
    | RotateInvite
    | ExpireTable
    | Resign
    | PlayResigned
    | StartTable
    | PlayMove
    | UndoLastMove
    | ProposeTakeback
    | AnswerTakeback
    | TimeOut
)

# The commands that are moves: each one numbered, in order, by the store.
MOVE_COMMANDS: tuple[type[Any], ...] = (PlayMove, TimeOut, PlayResigned)

# The commands the server issues for a seat (the bot's moves), credited to it.
STAND_IN_COMMANDS: tuple[type[Any], ...] = (TimeOut, PlayResigned)

TABLE_COMMANDS: Mapping[str, type[Any]] = {
    "table.CreateTable": CreateTable,
    "table.JoinTable": JoinTable,
    "table.StartTable": StartTable,
    "table.PlayMove": PlayMove,
    "table.UndoLastMove": UndoLastMove,
    "table.ProposeTakeback": ProposeTakeback,
    "table.AnswerTakeback": AnswerTakeback,
    "table.TimeOut": TimeOut,
    "table.LeaveTable": LeaveTable,
    "table.RemoveSeat": RemoveSeat,
    "table.RotateInvite": RotateInvite,
    "table.ExpireTable": ExpireTable,
    "table.Resign": Resign,
    "table.PlayResigned": PlayResigned,
}


def create(rules: tables.Rules, command: CreateTable, seed: bytes) -> Decision[Any]:
    """Decides the opening of a table with its secret seed."""
    opening = tables.GameCreated(
        command.game_type,
        command.config,
        command.max_players,
        commitment(seed),
        seed.hex(),
        command.turn_seconds,
        expires_at=command.expires_at,
    )
    creator = tables.SeatHolder(
        command.display_name, command.token_hash, command.player_id
    )
    return turn_timer.check_turn_seconds(command.turn_seconds) or tables.create(
        rules, opening, creator, command.invite_hash
    )


def acting_seat(command: TableCommand, seat: int | None) -> int | None:
    """Returns the seat a command acts for: the caller's, or the bot's seat."""
    return command.seat if isinstance(command, TimeOut | PlayResigned) else seat


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
    # A seat that resigned acts no more; the bot's moves for it are the server's.
    refused = (
        None
        if isinstance(command, STAND_IN_COMMANDS)
        else (resigning.resigned_seat(table, acting))
    )
    if refused is not None:
        return refused
    match command:
        case JoinTable() | LeaveTable() | RemoveSeat() | RotateInvite() | ExpireTable():
            return _decide_lobby(table, acting, command, now)
        case Resign():
            return resigning.resign(table, rules, acting)
        case PlayResigned():
            return turn_timer.play_resigned(table, rules, command.seat, command.move)
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


def _decide_lobby(
    table: tables.Table,
    acting: int,
    command: JoinTable | LeaveTable | RemoveSeat | RotateInvite | ExpireTable,
    now: datetime,
) -> Decision[Any]:
    """Decides a request about the seats of a table before play begins."""
    match command:
        case JoinTable():
            return tables.join(
                table,
                command.display_name,
                command.token_hash,
                command.invite_hash,
                command.player_id,
            )
        case LeaveTable():
            return lobby.leave(table, acting)
        case RemoveSeat():
            return lobby.remove(table, acting, command.seat)
        case RotateInvite():
            return lobby.rotate_invite(table, acting, command.invite_hash)
        case ExpireTable():
            return lobby.expire(table, now)
