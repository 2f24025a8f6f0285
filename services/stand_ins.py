"""The commands the server makes for a seat: a timed-out turn, a resigned seat's move.

Both are decided like a player's command, with the server's bot choosing the
move for the seat (``domain.bots``): ``timeout_for`` when a turn's deadline has
passed (``services/turns.py`` fires it), ``resigned_to_move`` when a seat that
resigned is to move (``services/table_clock.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain.bots import choose_move
from domain.common.commands import PlayResigned, TimeOut
from domain.common.decision import Rejected, reject
from services.records import GameRecord
from services.store import CommandFor


def timeout_for(deadline: datetime) -> CommandFor:
    """Returns the command builder of a timeout of the timer set for ``deadline``."""

    def command_for(record: GameRecord, _: int | None) -> TimeOut | Rejected:
        if record.table.turn_deadline != deadline:
            return reject(
                "TIMER_RESTARTED",
                "The turn timer was set again since; this timeout is stale.",
                "table/turn_time_limit",
            )
        return timed_out(record)

    return command_for


def timed_out(record: GameRecord) -> TimeOut | Rejected:
    """Returns the timeout of the first seat to move, with the bot's move for it."""
    to_move = _to_move(record)
    if not to_move:
        return reject(
            "NOBODY_TO_MOVE",
            "No seat is to move, so no turn can time out.",
            "table/turn_time_limit",
        )
    move = _bot_move(record, to_move[0], "table/turn_time_limit")
    return move if isinstance(move, Rejected) else TimeOut(to_move[0], move)


def resigned_to_move(record: GameRecord, _: int | None) -> PlayResigned | Rejected:
    """Returns the bot's move for the first resigned seat that is to move."""
    resigned = record.table.resigned
    seat = next((s for s in _to_move(record) if s in resigned), None)
    if seat is None:
        return reject(
            "NO_RESIGNED_SEAT_TO_MOVE",
            "No seat that resigned is to move.",
            "table/resigned",
        )
    move = _bot_move(record, seat, "table/resigned")
    return move if isinstance(move, Rejected) else PlayResigned(seat, move)


def _to_move(record: GameRecord) -> tuple[int, ...]:
    game = record.table.game
    return record.rules.to_move(game) if game is not None else ()


def _bot_move(record: GameRecord, seat: int, rule: str) -> Any:
    """Returns the bot's move for ``seat``, or the refusal when it has none."""
    move = choose_move(record.table.game_type, record.table.game, seat)
    if move is None:
        return reject(
            "NO_LEGAL_MOVE",
            f"Seat {seat} has no legal move for the bot to play.",
            rule,
            seat=seat,
        )
    return move
