"""Who a game waits for now: one answer for every message that says so.

``Game.players_to_act`` and ``current_player``, and ``MyGame.players_to_act``
and ``my_turn``, all come from ``players_to_act``, so that they cannot disagree.
"""

from __future__ import annotations

from domain.common.table import TableStatus
from services.records import GameRecord


def players_to_act(record: GameRecord) -> tuple[int, ...]:
    """Returns the seats the game waits for now, in seat order.

    Several in a phase where players act at once (Gnoming A Round's initial
    flip, its hazard answers); none unless the game is in progress.
    """
    table = record.table
    if table.status is not TableStatus.IN_PROGRESS or table.game is None:
        return ()
    return tuple(sorted(record.rules.to_move(table.game)))


def only_player_to_act(record: GameRecord) -> int | None:
    """Returns the one seat the game waits for, None when none or several are."""
    seats = players_to_act(record)
    return seats[0] if len(seats) == 1 else None
