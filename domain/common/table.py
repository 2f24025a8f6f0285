"""The game-agnostic table around every game: lobby, seats, start, play, end.

A table is folded from its events like a game. Its own events (``GameCreated``,
``PlayerJoined``, ``GameStarted``, ``GameFinished``) are stored in the same stream
as the game's events, which the table hands to the game's ``evolve``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeAlias

from domain.common.decision import (
    Accepted,
    Decision,
    Rejected,
    RejectionKind,
    malformed,
    reject,
)
from domain.common.rng import Rng
from domain.common.rules import GameRules, Outcome
from domain.common.seats import Operator, Seat, Viewer
from domain.common.undo import (
    UNDO_EVENT_TYPES,
    UNDO_EVENTS,
    MovePlayed,
    UndoOutcome,
    UndoResolved,
    UndoState,
    evolve_undo,
)

Rules: TypeAlias = GameRules[Any, Any, Any, Any]

MAX_DISPLAY_NAME = 40


class TableStatus(StrEnum):
    """Lifecycle of a table."""

    WAITING_FOR_PLAYERS = "WAITING_FOR_PLAYERS"
    IN_PROGRESS = "IN_PROGRESS"
    FINISHED = "FINISHED"


@dataclass(frozen=True, slots=True)
class GameCreated:
    """A table was opened. ``seed`` (hex) is secret until ``GameFinished``."""

    game_type: str
    config: Any
    max_players: int
    commitment: str
    seed: str


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    """A player took the next seat; only the hash of the seat token is kept."""

    seat: int
    display_name: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Play began with ``players`` seats; the game's opening events follow."""

    players: int


@dataclass(frozen=True, slots=True)
class GameFinished:
    """Play ended; final scores by seat, the winners, and the revealed seed (hex)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    seed: str


TableEvent: TypeAlias = GameCreated | PlayerJoined | GameStarted | GameFinished

TABLE_EVENTS: Mapping[str, type[Any]] = {
    "table.GameCreated": GameCreated,
    "table.PlayerJoined": PlayerJoined,
    "table.GameStarted": GameStarted,
    "table.GameFinished": GameFinished,
    **UNDO_EVENTS,
}


@dataclass(frozen=True, slots=True)
class SeatHolder:
    """Who sits in a seat, and the hash of the token that acts for it."""

    display_name: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class Table:
    """A table's state: options, seats, lifecycle and the game's own state."""

    game_type: str
    config: Any
    max_players: int
    commitment: str
    seed: str
    seats: tuple[SeatHolder, ...] = ()
    status: TableStatus = TableStatus.WAITING_FOR_PLAYERS
    game: Any = None
    final: GameFinished | None = None
    # Events folded so far: the table's revision.
    revision: int = 0
    undo: UndoState = field(default_factory=UndoState)

    @property
    def rng(self) -> Rng:
        """Returns the game's random streams, derived from its secret seed."""
        return Rng(bytes.fromhex(self.seed))


def create(
    rules: Rules,
    config: Any,
    max_players: int,
    seed: bytes,
    commitment: str,
    creator_name: str,
    token_hash: str,
) -> Decision[TableEvent]:
    """Opens a table and seats its creator in seat 0."""
    if max_players == 0:
        max_players = rules.max_players
    if not rules.min_players <= max_players <= rules.max_players:
        return malformed(
            "INVALID_PLAYER_COUNT",
            f"{rules.name} is played by {rules.min_players} to "
            f"{rules.max_players} players; max_players was {max_players}.",
            "table/player_count",
            minPlayers=rules.min_players,
            maxPlayers=rules.max_players,
            maxPlayersRequested=max_players,
        )
    refused = rules.check_config(config, max_players) or _check_name(creator_name)
    if refused is not None:
        return refused
    created = GameCreated(rules.name, config, max_players, commitment, seed.hex())
    return Accepted((created, PlayerJoined(0, creator_name.strip(), token_hash)))


def join(table: Table, display_name: str, token_hash: str) -> Decision[TableEvent]:
    """Seats a new player in the next free seat."""
    if table.status is not TableStatus.WAITING_FOR_PLAYERS:
        return reject(
            "GAME_ALREADY_STARTED",
            "The game has already started; no more players can join.",
            "table/join_before_start",
        )
    if len(table.seats) >= table.max_players:
        return reject(
            "TABLE_FULL",
            f"All {table.max_players} seats are taken.",
            "table/seat_limit",
            maxPlayers=table.max_players,
        )
    refused = _check_name(display_name)
    if refused is not None:
        return refused
    return Accepted((PlayerJoined(len(table.seats), display_name.strip(), token_hash),))


def start(table: Table, rules: Rules, seat: int) -> Decision[Any]:
    """Starts play: the table's ``GameStarted`` then the game's opening events."""
    if not 0 <= seat < len(table.seats):
        return not_seated()
    if table.status is not TableStatus.WAITING_FOR_PLAYERS:
        return reject(
            "GAME_ALREADY_STARTED",
            "The game has already started.",
            "table/start_once",
        )
    players = len(table.seats)
    if players < rules.min_players:
        return reject(
            "NOT_ENOUGH_PLAYERS",
            f"{rules.name} needs at least {rules.min_players} players; "
            f"{players} are seated.",
            "table/player_count",
            minPlayers=rules.min_players,
            seatedPlayers=players,
        )
    initial = rules.initial_state(players, table.config)
    opening = rules.setup(initial, table.rng)
    finished = _finish_if_over(table, rules, initial, opening)
    return Accepted((GameStarted(players), *opening, *finished))


def play(table: Table, rules: Rules, seat: int, command: Any) -> Decision[Any]:
    """Hands a seat's command to the game's rules; ends the table when play is over."""
    if not 0 <= seat < len(table.seats) or rules.actor(command) != seat:
        return not_seated()
    if table.status is not TableStatus.IN_PROGRESS:
        return reject(
            "GAME_NOT_IN_PROGRESS",
            f"The game is {table.status.value.lower().replace('_', ' ')}; "
            "moves are accepted only while it is in progress.",
            "table/in_progress",
            state=table.status.value,
        )
    decision = rules.decide(table.game, command, table.rng)
    if isinstance(decision, Rejected):
        return decision
    events = decision.events
    played = MovePlayed(seat, rules.self_undoable(events))
    finished = _finish_if_over(table, rules, table.game, events)
    return Accepted((*withdraw_proposal(table), played, *events, *finished))


def withdraw_proposal(table: Table) -> tuple[UndoResolved, ...]:
    """Returns the event closing an open undo proposal, which a new move ends."""
    proposal = table.undo.proposal
    if proposal is None:
        return ()
    return (UndoResolved(proposal.proposal_id, UndoOutcome.WITHDRAWN, None, None),)


def _finish_if_over(
    table: Table, rules: Rules, game: Any, events: tuple[Any, ...]
) -> tuple[GameFinished, ...]:
    outcome: Outcome = rules.outcome(rules.fold(game, events))
    if not outcome.finished:
        return ()
    return (GameFinished(outcome.scores, outcome.winners, table.seed),)


def evolve(table: Table | None, event: Any, rules: Rules) -> Table:
    """Returns the table after one event (a table event or the game's own)."""
    if table is None:
        if not isinstance(event, GameCreated):
            msg = f"a game's first event must be GameCreated, not {event!r}"
            raise ValueError(msg)
        created = Table(
            event.game_type,
            event.config,
            event.max_players,
            event.commitment,
            event.seed,
        )
        return replace(created, revision=1)
    return replace(_evolve(table, event, rules), revision=table.revision + 1)


def _evolve(table: Table, event: Any, rules: Rules) -> Table:
    match event:
        case PlayerJoined():
            holder = SeatHolder(event.display_name, event.token_hash)
            return replace(table, seats=(*table.seats, holder))
        case GameStarted():
            game = rules.initial_state(event.players, table.config)
            return replace(table, status=TableStatus.IN_PROGRESS, game=game)
        case GameFinished():
            return replace(table, status=TableStatus.FINISHED, final=event)
        case _ if isinstance(event, UNDO_EVENT_TYPES):
            undo, game = evolve_undo(table.undo, event, table.game, table.revision)
            return replace(table, undo=undo, game=game)
        case GameCreated():
            msg = "GameCreated can only be a game's first event"
            raise ValueError(msg)
        case _:
            return replace(table, game=rules.evolve(table.game, event))


def visible(table_event: Any, viewer: Viewer, rules: Rules) -> Any:
    """Returns an event as ``viewer`` may see it, or None if it shows nothing."""
    match table_event:
        case GameCreated():
            secret = "" if not isinstance(viewer, Operator) else table_event.seed
            return replace(table_event, seed=secret)
        case PlayerJoined():
            return replace(table_event, token_hash="")
        case GameStarted() | GameFinished():
            return table_event
        case _ if isinstance(table_event, UNDO_EVENT_TYPES):
            return table_event
        case _:
            return rules.visible(table_event, viewer)


def effective_viewer(table: Table, viewer: Viewer) -> Viewer:
    """Returns the viewer to redact for: once finished, everybody sees everything."""
    if table.status is TableStatus.FINISHED:
        return Operator()
    return viewer


def seat_of(viewer: Viewer) -> int | None:
    """Returns the seat index of a seated viewer, else None."""
    return viewer.index if isinstance(viewer, Seat) else None


def outcome(table: Table, rules: Rules) -> Outcome | None:
    """Returns the game's scores and winners, None before it has started."""
    if table.game is None:
        return None
    return rules.outcome(table.game)


def _check_name(name: str) -> Rejected | None:
    stripped = name.strip()
    if not stripped or len(stripped) > MAX_DISPLAY_NAME:
        return malformed(
            "INVALID_DISPLAY_NAME",
            f"A display name must have 1 to {MAX_DISPLAY_NAME} characters.",
            "table/display_name",
            maxLength=MAX_DISPLAY_NAME,
        )
    if any(unicodedata.category(ch).startswith("C") for ch in stripped):
        return malformed(
            "INVALID_DISPLAY_NAME",
            "A display name must not contain control or format characters.",
            "table/display_name",
        )
    return None


def not_seated() -> Rejected:
    """Returns the refusal for a caller who holds no seat that may act."""
    return reject(
        "NOT_A_PARTICIPANT",
        "The caller holds no seat that may act in this game.",
        "table/seated_players_only",
        RejectionKind.NOT_A_PARTICIPANT,
    )
