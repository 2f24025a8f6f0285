"""The optional turn timer: a deadline for the seats to move, and what expiry does.

A table created with ``turn_seconds`` sets its timer whenever a seat gets the
turn (``restarted``): ``TurnTimerStarted`` records the deadline. Once it has
passed, the server may time the turn out for a seat that is to move:
``TurnTimedOut`` is stored, then the move a bot chose for that seat from what
the seat may see (``domain.bots``). The command carries the bot's move, so an
audit re-decides it like any other; the player takes the seat back simply by
moving before the next deadline.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from domain.common.decision import Accepted, Decision, Rejected, malformed, reject
from domain.common.resigning import abandoned_if_deserted
from domain.common.table import Rules, evolve, play
from domain.common.table_state import (
    GameStarted,
    ResignedSeatPlayed,
    Table,
    TableStatus,
    TurnTimedOut,
    TurnTimerStarted,
)
from domain.common.undo import MovePlayed, MovesUndone

# T16: below 10 s a game of bots timed out every second adds a move, a timeout
# and a timer to its log and to every stream each second, and no person can
# answer in time anyway; a week allows correspondence play.
MIN_TURN_SECONDS = 10
MAX_TURN_SECONDS = 7 * 24 * 3600


def check_turn_seconds(turn_seconds: int) -> Rejected | None:
    """Refuses a turn time limit shorter than 10 s or longer than a week (0: none)."""
    if turn_seconds == 0 or MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
        return None
    return malformed(
        "INVALID_TURN_TIME_LIMIT",
        f"A turn time limit is {MIN_TURN_SECONDS} seconds to "
        f"{MAX_TURN_SECONDS // 86400} days, or 0 for none; "
        f"{turn_seconds} seconds was asked for.",
        "table/turn_time_limit",
        minSeconds=MIN_TURN_SECONDS,
        maxSeconds=MAX_TURN_SECONDS,
        requestedSeconds=turn_seconds,
    )


def restarted(
    table: Table, rules: Rules, events: tuple[Any, ...], now: datetime
) -> tuple[Any, ...]:
    """Returns ``events`` with the turn timer set again where they call for it.

    The timer restarts when the game moves on (the start, a move, a takeback
    by consent), except that where several seats act at once and one of them
    answers, the others keep the time they had (the seats to move are only
    fewer). It runs on when nothing in the game changed (a join, a proposal, a
    declined takeback).
    Taking one's own move back alone restores the deadline that move was made
    under, so moving and taking back never buys time. A finished game has no
    timer.
    """
    if table.turn_seconds == 0 or not any(
        isinstance(event, GameStarted | MovePlayed | MovesUndone) for event in events
    ):
        return events
    after = _folded(table, rules, events)
    if after.status is not TableStatus.IN_PROGRESS:
        return events
    undone = next((e for e in events if isinstance(e, MovesUndone)), None)
    if undone is not None and undone.proposal_id == 0 and table.undo.points:
        kept = table.undo.points[-1].deadline
        if kept is not None:
            return (*events, TurnTimerStarted(kept))
    waiting = (
        set(rules.to_move(table.game))
        if table.status is TableStatus.IN_PROGRESS
        else set()
    )
    fewer = set(rules.to_move(after.game)) < waiting
    if undone is None and table.turn_deadline is not None and fewer:
        return events
    deadline = now + timedelta(seconds=table.turn_seconds)
    return (*events, TurnTimerStarted(deadline))


def _folded(table: Table, rules: Rules, events: tuple[Any, ...]) -> Table:
    for event in events:
        table = evolve(table, event, rules)
    return table


def time_out(
    table: Table, rules: Rules, seat: int, move: Any, now: datetime
) -> Decision[Any]:
    """Times out ``seat``'s turn and plays ``move``, the bot's choice, for it."""
    if table.status is not TableStatus.IN_PROGRESS:
        return reject(
            "GAME_NOT_IN_PROGRESS",
            "Only a game in progress has a turn to time out.",
            "table/in_progress",
            state=table.status.value,
        )
    if table.turn_deadline is None:
        return reject(
            "NO_TURN_TIMER",
            "This game has no turn time limit.",
            "table/turn_time_limit",
        )
    if now < table.turn_deadline:
        return reject(
            "TURN_NOT_EXPIRED",
            "The turn's time has not run out yet.",
            "table/turn_time_limit",
            deadline=table.turn_deadline.isoformat(),
        )
    if seat not in rules.to_move(table.game):
        return reject(
            "SEAT_NOT_TO_MOVE",
            f"Seat {seat} is not to move, so its time cannot run out.",
            "table/turn_time_limit",
            seat=seat,
        )
    decided = _bot_move(table, rules, seat, move, TurnTimedOut(seat))
    if isinstance(decided, Rejected):
        return decided
    # A seat that now counts as gone may have been the last one playing.
    after = _folded(table, rules, decided)
    return Accepted((*decided, *abandoned_if_deserted(after, rules)))


def play_resigned(table: Table, rules: Rules, seat: int, move: Any) -> Decision[Any]:
    """Plays ``move``, the bot's choice, for ``seat``, which resigned."""
    if table.status is not TableStatus.IN_PROGRESS:
        return reject(
            "GAME_NOT_IN_PROGRESS",
            "Only a game in progress has turns to play.",
            "table/in_progress",
            state=table.status.value,
        )
    if seat not in table.resigned:
        return reject(
            "SEAT_NOT_RESIGNED",
            f"Seat {seat} has not resigned; only its player moves for it.",
            "table/resigned",
            seat=seat,
        )
    if seat not in rules.to_move(table.game):
        return reject(
            "SEAT_NOT_TO_MOVE",
            f"Seat {seat} is not to move.",
            "table/resigned",
            seat=seat,
        )
    decided = _bot_move(table, rules, seat, move, ResignedSeatPlayed(seat))
    return decided if isinstance(decided, Rejected) else Accepted(decided)


def _bot_move(
    table: Table, rules: Rules, seat: int, move: Any, cause: Any
) -> tuple[Any, ...] | Rejected:
    """Returns ``cause`` then the events of the bot's ``move`` for ``seat``."""
    decision = play(table, rules, seat, move)
    if isinstance(decision, Rejected):
        return decision
    # The player did not choose the move, so it is not theirs to take back alone.
    events = tuple(
        replace(event, undoable=False) if isinstance(event, MovePlayed) else event
        for event in decision.events
    )
    return (cause, *events)
