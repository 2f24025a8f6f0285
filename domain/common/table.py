"""The game-agnostic table around every game: lobby, seats, start, play, end.

A table is folded from its events like a game. Its own events (``GameCreated``,
``PlayerJoined``, ``GameStarted``, ``GameFinished``) are stored in the same stream
as the game's events, which the table hands to the game's ``evolve``. Leaving,
the host's removals, invite codes and expiry are decided in
``domain.common.lobby``; resigning and abandoned games in
``domain.common.resigning``.
"""

from __future__ import annotations

import hmac
import unicodedata
from collections.abc import Callable
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
    MISSED_TURNS_GONE,
    TABLE_EVENTS,
    ClosedBecause,
    GameCreated,
    GameFinished,
    GameStarted,
    InviteCodeSet,
    PlayerJoined,
    PlayerLeft,
    PlayerResigned,
    ResignedSeatPlayed,
    SeatHolder,
    Table,
    TableClosed,
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
    "MISSED_TURNS_GONE",
    "TABLE_EVENTS",
    "ClosedBecause",
    "GameCreated",
    "GameFinished",
    "GameStarted",
    "InviteCodeSet",
    "PlayerJoined",
    "PlayerLeft",
    "PlayerResigned",
    "ResignedSeatPlayed",
    "Rules",
    "SeatHolder",
    "Table",
    "TableClosed",
    "TableEvent",
    "TableStatus",
    "TurnTimedOut",
    "TurnTimerStarted",
    "create",
    "effective_viewer",
    "evolve",
    "final_outcome",
    "host_only",
    "join",
    "not_seated",
    "outcome",
    "play",
    "start",
    "visible",
    "waiting_only",
    "withdraw_proposal",
]

Rules: TypeAlias = GameRules[Any, Any, Any, Any]

MAX_DISPLAY_NAME = 40


def create(
    rules: Rules, opening: GameCreated, creator: SeatHolder, invite_hash: str = ""
) -> Decision[TableEvent]:
    """Opens a table and seats its creator, its host, in seat 0.

    ``opening`` is the table as asked for (``max_players`` 0: the game's most).
    With an ``invite_hash`` the table is private: only a caller who shows the
    code of that hash may join it.
    """
    max_players = opening.max_players or rules.max_players
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
    refused = rules.check_config(opening.config, max_players) or (
        None if creator.player_id else check_display_name(creator.display_name)
    )
    if refused is not None:
        return refused
    private = bool(invite_hash)
    created = replace(
        opening, game_type=rules.name, max_players=max_players, private=private
    )
    invited = (InviteCodeSet(invite_hash),) if private else ()
    joined = PlayerJoined(
        0, creator.display_name.strip(), creator.token_hash, creator.player_id
    )
    return Accepted((created, *invited, joined))


def join(
    table: Table,
    display_name: str,
    token_hash: str,
    invite_hash: str = "",
    player_id: str = "",
) -> Decision[TableEvent]:
    """Seats a new player in the next free seat; a private table wants its code.

    A signed-in player (``player_id``) is shown under the account's name and
    takes one seat at a table: the player's sessions act for that seat.
    """
    refused = waiting_only(table, "no more players can join")
    if refused is not None:
        return refused
    # Compared in constant time, so timing tells nothing about the code.
    shown, expected = invite_hash.encode(), table.invite_hash.encode()
    if table.private and not (invite_hash and hmac.compare_digest(shown, expected)):
        return reject(
            "INVALID_INVITE_CODE",
            "This table is private: joining it needs the invite code its host "
            "shared, and the code given is "
            + ("missing." if not invite_hash else "not this table's."),
            "table/invite_code",
            RejectionKind.NOT_A_PARTICIPANT,
        )
    if len(table.seats) >= table.max_players:
        return reject(
            "TABLE_FULL",
            f"All {table.max_players} seats are taken.",
            "table/seat_limit",
            maxPlayers=table.max_players,
        )
    if player_id and any(holder.player_id == player_id for holder in table.seats):
        return reject(
            "ALREADY_SEATED",
            "The signed-in player already holds a seat at this table.",
            "table/one_seat_per_player",
        )
    refused = None if player_id else check_display_name(display_name)
    if refused is not None:
        return refused
    seat = len(table.seats)
    return Accepted((PlayerJoined(seat, display_name.strip(), token_hash, player_id),))


def start(table: Table, rules: Rules, seat: int) -> Decision[Any]:
    """Starts play: the table's ``GameStarted`` then the game's opening events."""
    refused = host_only(table, seat, "start the game")
    if refused is not None:
        return refused
    if table.status is TableStatus.CLOSED:
        return _closed(table)
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
    started = GameStarted(players, MISSED_TURNS_GONE)
    return Accepted((started, *opening, *finished))


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


def final_outcome(
    table: Table, rules: Rules, game: Any
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Returns a game's final scores and winners; no resigned seat wins.

    Without resignations they are the rules' outcome. Once a seat resigned,
    the winners are the seats the game ranks first among those that did not.
    """
    result: Outcome = rules.outcome(game)
    if not table.resigned and result.finished:
        return result.scores, result.winners
    playing = tuple(s for s in range(len(table.seats)) if s not in table.resigned)
    return result.scores, rules.leaders(game, playing)


def withdraw_proposal(table: Table) -> tuple[UndoResolved, ...]:
    """Returns the event closing an open undo proposal, which a new move ends."""
    proposal = table.undo.proposal
    if proposal is None:
        return ()
    return (UndoResolved(proposal.proposal_id, UndoOutcome.WITHDRAWN, None, None),)


def _finish_if_over(
    table: Table, rules: Rules, game: Any, events: tuple[Any, ...]
) -> tuple[GameFinished, ...]:
    after = rules.fold(game, events)
    if not rules.outcome(after).finished:
        return ()
    scores, winners = final_outcome(table, rules, after)
    resigned = tuple(sorted(table.resigned))
    return (GameFinished(scores, winners, table.seed, resigned),)


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
            private=event.private,
            expires_at=event.expires_at,
        )
        return replace(created, revision=1)
    return replace(_evolve(table, event, rules), revision=table.revision + 1)


def _evolve(table: Table, event: Any, rules: Rules) -> Table:
    match event:
        case PlayerJoined() | PlayerLeft() | InviteCodeSet() | TableClosed():
            return _evolve_lobby(table, event)
        case GameStarted():
            game = rules.initial_state(event.players, table.config)
            return replace(
                table,
                status=TableStatus.IN_PROGRESS,
                game=game,
                missed=(0,) * event.players,
                missed_turns_gone=event.missed_turns_gone,
            )
        case GameFinished():
            return replace(
                table, status=TableStatus.FINISHED, final=event, turn_deadline=None
            )
        case TurnTimerStarted():
            return replace(table, turn_deadline=event.deadline)
        case TurnTimedOut():
            missed = _counted(table.missed, event.seat, lambda n: n + 1)
            return replace(table, missed=missed, bot_moving=event.seat)
        case PlayerResigned():
            return replace(table, resigned=table.resigned | {event.seat})
        case ResignedSeatPlayed():
            return replace(table, bot_moving=event.seat)
        case MovePlayed() if table.bot_moving == event.seat:
            undo, game = evolve_undo(
                table.undo, event, table.game, table.revision, table.turn_deadline
            )
            return replace(table, undo=undo, game=game, bot_moving=None)
        case MovePlayed():
            undo, game = evolve_undo(
                table.undo, event, table.game, table.revision, table.turn_deadline
            )
            missed = _counted(table.missed, event.seat, lambda _: 0)
            return replace(table, undo=undo, game=game, missed=missed)
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


def _evolve_lobby(
    table: Table, event: PlayerJoined | PlayerLeft | InviteCodeSet | TableClosed
) -> Table:
    match event:
        case PlayerJoined():
            holder = SeatHolder(event.display_name, event.token_hash, event.player_id)
            return replace(table, seats=(*table.seats, holder))
        case PlayerLeft():
            seats = table.seats[: event.seat] + table.seats[event.seat + 1 :]
            return replace(table, seats=seats)
        case InviteCodeSet():
            return replace(table, invite_hash=event.code_hash)
        case TableClosed():
            return replace(table, status=TableStatus.CLOSED, closed=event.reason)


def _counted(
    missed: tuple[int, ...], seat: int, change: Callable[[int], int]
) -> tuple[int, ...]:
    counts = list(missed) + [0] * (seat + 1 - len(missed))
    counts[seat] = change(counts[seat])
    return tuple(counts)


def visible(table_event: Any, viewer: Viewer, rules: Rules) -> Any:
    """Returns an event as ``viewer`` may see it, or None if it shows nothing."""
    match table_event:
        case GameCreated():
            secret = "" if not isinstance(viewer, Operator) else table_event.seed
            return replace(table_event, seed=secret)
        case PlayerJoined():
            return replace(table_event, token_hash="")
        case InviteCodeSet():
            secret = "" if not isinstance(viewer, Operator) else table_event.code_hash
            return replace(table_event, code_hash=secret)
        case (
            GameStarted()
            | GameFinished()
            | TurnTimerStarted()
            | TurnTimedOut()
            | PlayerLeft()
            | TableClosed()
            | PlayerResigned()
            | ResignedSeatPlayed()
        ):
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
    """Returns the game's scores and winners, None before it has started.

    A finished game's are those it finished with: an abandoned game's, and
    none of a resigned seat's wins.
    """
    if table.game is None:
        return None
    result: Outcome = rules.outcome(table.game)
    if table.final is None or not (table.resigned or table.final.abandoned):
        return result
    scores, winners = final_outcome(table, rules, table.game)
    return Outcome(scores, winners, finished=True)


def waiting_only(table: Table, consequence: str) -> Rejected | None:
    """Refuses a request that needs a table still waiting for players."""
    if table.status is TableStatus.WAITING_FOR_PLAYERS:
        return None
    if table.status is TableStatus.CLOSED:
        return _closed(table)
    return reject(
        "GAME_ALREADY_STARTED",
        f"The game has already started; {consequence}.",
        "table/join_before_start",
    )


def _closed(table: Table) -> Rejected:
    return reject(
        "TABLE_CLOSED",
        "The table closed before play began: "
        + (
            "it waited too long for players."
            if table.closed is ClosedBecause.EXPIRED
            else "all its players left."
        ),
        "table/closed",
        closedBecause=str(table.closed),
    )


def host_only(table: Table, seat: int, action: str) -> Rejected | None:
    """Refuses a request of a seat other than the host's."""
    if not 0 <= seat < len(table.seats):
        return not_seated()
    if seat == table.host:
        return None
    return reject(
        "NOT_THE_HOST",
        f"Only the table's host (seat 0: its creator, or the player the "
        f"table passed to when the host left) may {action}.",
        "table/host",
        RejectionKind.NOT_A_PARTICIPANT,
    )


def check_display_name(name: str) -> Rejected | None:
    """Refuses a display name that is empty, too long or not printable."""
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
