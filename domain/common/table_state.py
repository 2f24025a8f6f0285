"""A table's state and its own events: lobby, seats, lifecycle, undo memory.

``domain.common.table`` decides and folds them; this module only defines them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeAlias

from domain.common.rng import Rng
from domain.common.undo import UNDO_EVENTS, UndoState


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
    # The turn time limit (domain.common.turn_timer); 0 for none.
    turn_seconds: int = 0


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


@dataclass(frozen=True, slots=True)
class TurnTimerStarted:
    """The seats to move must act by ``deadline``, or a bot acts for them."""

    deadline: datetime


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """``seat`` let its turn's time run out; the bot's move for it follows."""

    seat: int


TableEvent: TypeAlias = (
    GameCreated
    | PlayerJoined
    | GameStarted
    | GameFinished
    | TurnTimerStarted
    | TurnTimedOut
)

TABLE_EVENTS: Mapping[str, type[Any]] = {
    "table.GameCreated": GameCreated,
    "table.PlayerJoined": PlayerJoined,
    "table.GameStarted": GameStarted,
    "table.GameFinished": GameFinished,
    "table.TurnTimerStarted": TurnTimerStarted,
    "table.TurnTimedOut": TurnTimedOut,
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
    turn_seconds: int = 0  # 0: no turn timer
    turn_deadline: datetime | None = None  # while a timer runs

    @property
    def rng(self) -> Rng:
        """Returns the game's random streams, derived from its secret seed."""
        return Rng(bytes.fromhex(self.seed))
