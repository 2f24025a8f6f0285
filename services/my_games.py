"""The rows behind ListMyGames: each signed-in player's games, made from the log.

A row per seat a signed-in player holds says what "my games" shows: the game's
type and state, whether the player is to act, the seats and scores, the latest
revision and when the game last changed. ``rows_for`` makes a game's rows from
its folded record; the players' projection (``services/projection.py``)
replaces a game's rows in the stored view (``services/players_view.py``)
whenever the log says the game changed. A player's listing is in the rows'
order (``MyGameRow.key``): to act first, then waiting tables, then the rest,
each most recently active first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from domain.common.table import TableStatus, outcome
from services.acting import players_to_act
from services.records import GameRecord

# The listing's groups, in its order.
MY_TURN, WAITING, OTHERS = 0, 1, 2


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """A seat as the listing shows it: its name (a guest's) or account, score."""

    display_name: str
    player_id: str
    score: int
    resigned: bool


@dataclass(frozen=True, slots=True)
class MyGameRow:
    """One signed-in player's seat in one game, as ListMyGames lists it."""

    player_id: UUID
    game_id: UUID
    seat: int
    game_type: str
    status: TableStatus
    my_turn: bool
    to_act: tuple[int, ...]
    seats: tuple[SeatEntry, ...]
    score: int
    revision: int
    updated_at: datetime

    @property
    def rank(self) -> int:
        """Returns the listing's group: to act, waiting for players, the rest."""
        if self.my_turn:
            return MY_TURN
        return WAITING if self.status is TableStatus.WAITING_FOR_PLAYERS else OTHERS

    @property
    def activity(self) -> int:
        """Returns the order within a group: the latest change first."""
        return -round(self.updated_at.timestamp() * 1_000_000)

    @property
    def key(self) -> tuple[int, int, str]:
        """Returns where the row stands in its player's listing."""
        return self.rank, self.activity, str(self.game_id)


def rows_for(record: GameRecord) -> tuple[MyGameRow, ...]:
    """Returns the rows of every seat a signed-in player holds in a game."""
    table = record.table
    finished = outcome(table, record.rules)
    scores = finished.scores if finished else ()
    to_act = players_to_act(record)
    seats = tuple(
        SeatEntry(
            holder.display_name,
            holder.player_id,
            scores[seat] if seat < len(scores) else 0,
            seat in table.resigned,
        )
        for seat, holder in enumerate(table.seats)
    )
    return tuple(
        MyGameRow(
            player_id=UUID(holder.player_id),
            game_id=record.game_id,
            seat=seat,
            game_type=table.game_type,
            status=table.status,
            my_turn=seat in to_act,
            to_act=to_act,
            seats=seats,
            score=seats[seat].score,
            revision=record.revision,
            updated_at=record.updated_at,
        )
        for seat, holder in enumerate(table.seats)
        if holder.player_id
    )


def detail(row: MyGameRow) -> str:
    """Returns what a row stores as JSON: who is to act, the seats."""
    seats = [[s.display_name, s.player_id, s.score, s.resigned] for s in row.seats]
    return json.dumps({"to_act": list(row.to_act), "seats": seats})


def row_of(values: Sequence[Any]) -> MyGameRow:
    """Returns a row read back: the columns of ``COLUMNS``, in order."""
    player, game, seat, game_type, status, my_turn, score, revision, at, detail = values
    data = json.loads(detail)
    return MyGameRow(
        player_id=player if isinstance(player, UUID) else UUID(player),
        game_id=game if isinstance(game, UUID) else UUID(game),
        seat=int(seat),
        game_type=str(game_type),
        status=TableStatus(status),
        my_turn=bool(my_turn),
        to_act=tuple(data["to_act"]),
        seats=tuple(SeatEntry(*entry) for entry in data["seats"]),
        score=int(score),
        revision=int(revision),
        updated_at=at if isinstance(at, datetime) else datetime.fromisoformat(at),
    )


# The stored columns ``row_of`` reads, in order; ``values`` writes them and
# then the listing's order (rank, activity).
COLUMNS = (
    "player_id, game_id, seat, game_type, status, my_turn, score, revision, "
    "updated_at, detail"
)


def values(row: MyGameRow) -> tuple[object, ...]:
    """Returns what a row stores: ``COLUMNS``, then rank and activity."""
    return (
        row.player_id,
        row.game_id,
        row.seat,
        row.game_type,
        row.status.value,
        row.my_turn,
        row.score,
        row.revision,
        row.updated_at,
        detail(row),
        row.rank,
        row.activity,
    )
