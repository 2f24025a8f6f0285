"""The game-agnostic table around every game: lobby, seats, start, play, end.

A table is folded from its events like a game. Its own events (``GameCreated``,
``PlayerJoined``, ``GameStarted``, ``GameFinished``) are stored in the same stream
as the game's events, which the table hands to the game's ``evolve``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Any, TypeAlias

from domain.common.decision import (
    Accepted,
    Decision,
    Rejected,
    RejectionKind,
    malformed,
    reject,
)
from domain.common.rules import GameRules, Outcome
from domain.common.seats import Operator, Viewer
from domain.common.table_state import (
    TABLE_EVENTS,
    GameCreated,
    GameFinished,
    GameStarted,
    PlayerJoined,
    SeatHolder,
    Table,
    TableEvent,
    TableStatus,
    TurnTimedOut,
    TurnTimerStarted,
)
from domain.common.undo import (
    UNDO_EVENT_TYPES,
    MovePlayed,
    UndoOutcome,
    UndoResolved,
    evolve_undo,
)

__all__ = [
    "TABLE_EVENTS",
    "GameCreated",
    "GameFinished",
    "GameStarted",
    "PlayerJoined",
    "Rules",
    "SeatHolder",
    "Table",
    "TableEvent",
    "TableStatus",
    "TurnTimedOut",
    "TurnTimerStarted",
    "create",
    "effective_viewer",
    "evolve",
    "join",
    "not_seated",
    "outcome",
    "play",
    "start",
    "visible",
    "withdraw_proposal",
]

Rules: TypeAlias = GameRules[Any, Any, Any, Any]

MAX_DISPLAY_NAME = 40


def create(
    rules: Rules,
    config: Any,
    max_players: int,
    seed: bytes,
    commitment: str,
    creator_name: str,
    token_hash: str,
    turn_seconds: int = 0,
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
    created = GameCreated(
        rules.name, config, max_players, commitment, seed.hex(), turn_seconds
    )
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
    played = MovePlayed(
        seat, rules.self_undoable(events), rules.reveals_to_others(events)
    )
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
            turn_seconds=event.turn_seconds,
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
            return replace(
                table, status=TableStatus.FINISHED, final=event, turn_deadline=None
            )
        case TurnTimerStarted():
            return replace(table, turn_deadline=event.deadline)
        case TurnTimedOut():
            return table
        case _ if isinstance(event, UNDO_EVENT_TYPES):
            undo, game = evolve_undo(
                table.undo, event, table.game, table.revision, table.turn_deadline
            )
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
        case GameStarted() | GameFinished() | TurnTimerStarted() | TurnTimedOut():
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
