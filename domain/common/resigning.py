"""Resigning and abandoned games: who is still playing a game in progress.

A seat that resigned is played by the server's bot (``turn_timer.play_resigned``)
and cannot win; a game in which no seat is left playing ends as abandoned.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain.common.decision import (
    Accepted,
    Decision,
    Rejected,
    RejectionKind,
    reject,
)
from domain.common.table import (
    Rules,
    final_outcome,
    not_seated,
    withdraw_proposal,
)
from domain.common.table_state import (
    GameFinished,
    PlayerResigned,
    Table,
    TableStatus,
)


def resign(table: Table, rules: Rules, seat: int) -> Decision[Any]:
    """Resigns ``seat``: the bot plays it on; if no seat is left, play stops."""
    if not 0 <= seat < len(table.seats):
        return not_seated()
    if table.status is not TableStatus.IN_PROGRESS:
        return reject(
            "GAME_NOT_IN_PROGRESS",
            "Only a game in progress can be resigned; before it starts, leave "
            "the table instead.",
            "table/in_progress",
            state=table.status.value,
        )
    resigned = PlayerResigned(seat)
    after = replace(table, resigned=table.resigned | {seat})
    return Accepted(
        (*withdraw_proposal(table), resigned, *abandoned_if_deserted(after, rules))
    )


def resigned_seat(table: Table, seat: int) -> Rejected | None:
    """Refuses any act of a seat that resigned: the bot plays it now."""
    if seat not in table.resigned:
        return None
    return reject(
        "SEAT_RESIGNED",
        f"Seat {seat} resigned; the server's bot plays it for the rest of the game.",
        "table/resigned",
        RejectionKind.NOT_A_PARTICIPANT,
        seat=seat,
    )


def gone(table: Table, seat: int) -> bool:
    """Returns whether ``seat`` resigned or let its turns time out too often."""
    missed = table.missed[seat] if seat < len(table.missed) else 0
    limit = table.missed_turns_gone  # 0 in games started before the rule
    return seat in table.resigned or (limit > 0 and missed >= limit)


def abandoned_if_deserted(table: Table, rules: Rules) -> tuple[GameFinished, ...]:
    """Returns the end of a game in progress in which no seat is left playing.

    Its outcome is the rules' at this point: the scores so far, and the seats
    that did not resign which the game ranks first (``GameRules.leaders``).
    """
    if table.status is not TableStatus.IN_PROGRESS or not table.seats:
        return ()
    if not all(gone(table, seat) for seat in range(len(table.seats))):
        return ()
    scores, winners = final_outcome(table, rules, table.game)
    resigned = tuple(sorted(table.resigned))
    return (GameFinished(scores, winners, table.seed, resigned, abandoned=True),)
