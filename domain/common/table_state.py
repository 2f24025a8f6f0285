"""A table's state and its own events: lobby, seats, lifecycle, undo memory.

``domain.common.table`` decides and folds them; this module only defines them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeAlias

from domain.common.fields import added_later
from domain.common.rng import Rng
from domain.common.undo import UNDO_EVENTS, UndoState


class TableStatus(StrEnum):
    """Lifecycle of a table."""

    WAITING_FOR_PLAYERS = "WAITING_FOR_PLAYERS"
    IN_PROGRESS = "IN_PROGRESS"
    FINISHED = "FINISHED"
    # Closed before play began: it expired waiting, or its last player left.
    CLOSED = "CLOSED"


class ClosedBecause(StrEnum):
    """Why a table closed before play began."""

    EXPIRED = "EXPIRED"  # it waited for players past its expiry time
    EMPTY = "EMPTY"  # its last player left


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
    # A private table is joined only with its invite code and listed only to
    # the seats at it (InviteCodeSet follows with the code's hash).
    private: bool = False
    # When the table closes if play has not begun; None for tables opened
    # before tables expired (the server then counts from their creation).
    expires_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class InviteCodeSet:
    """A private table's invite code was set (at creation) or rotated by its host.

    Only the code's hash is kept, and only the operator sees it.
    """

    code_hash: str


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    """A player took the next seat; only the hash of the seat token is kept."""

    seat: int
    display_name: str  # "" for a signed-in player: the account's name is shown
    token_hash: str
    # The account of a signed-in player (its session acts for the seat); "" for
    # a guest, whom only the seat token identifies.
    player_id: str = added_later("")


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """``seat`` left the table before play began, or its host removed it.

    The seats after it move down by one, so seats stay numbered 0 to n-1 in
    the order their players joined, and seat 0 is always the host.
    """

    seat: int
    display_name: str  # the name the seat's player was shown under
    removed: bool  # True: the host removed the seat; False: its player left
    player_id: str = added_later("")  # the signed-in player's account ("": a guest)


@dataclass(frozen=True, slots=True)
class TableClosed:
    """The table closed before play began; nobody may join or start it."""

    reason: ClosedBecause


# T24: a seat whose turn timed out this many times in a row, with no move of
# its own between, counts as gone when the table looks for anyone still playing.
MISSED_TURNS_GONE = 3


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Play began with ``players`` seats; the game's opening events follow.

    ``missed_turns_gone`` is the rule the game is played under: after that
    many turns timed out in a row a seat counts as gone (T24); 0 for games
    started before the rule, which are never abandoned for missed turns.
    """

    players: int
    missed_turns_gone: int = 0


@dataclass(frozen=True, slots=True)
class GameFinished:
    """Play ended; final scores by seat, the winners, and the revealed seed (hex)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    seed: str
    # The seats that resigned; none of them is among the winners.
    resigned: tuple[int, ...] = ()
    # True when play stopped early because every seat had resigned or let its
    # turn time out too often: the scores are those at that point.
    abandoned: bool = False


@dataclass(frozen=True, slots=True)
class PlayerResigned:
    """``seat`` resigned: from now on the server's bot moves for it."""

    seat: int


@dataclass(frozen=True, slots=True)
class ResignedSeatPlayed:
    """``seat`` resigned earlier and is to move; the bot's move for it follows."""

    seat: int


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
    | InviteCodeSet
    | PlayerJoined
    | PlayerLeft
    | TableClosed
    | GameStarted
    | GameFinished
    | TurnTimerStarted
    | TurnTimedOut
    | PlayerResigned
    | ResignedSeatPlayed
)

TABLE_EVENTS: Mapping[str, type[Any]] = {
    "table.GameCreated": GameCreated,
    "table.PlayerJoined": PlayerJoined,
    "table.GameStarted": GameStarted,
    "table.GameFinished": GameFinished,
    "table.TurnTimerStarted": TurnTimerStarted,
    "table.TurnTimedOut": TurnTimedOut,
    "table.InviteCodeSet": InviteCodeSet,
    "table.PlayerLeft": PlayerLeft,
    "table.TableClosed": TableClosed,
    "table.PlayerResigned": PlayerResigned,
    "table.ResignedSeatPlayed": ResignedSeatPlayed,
    **UNDO_EVENTS,
}


@dataclass(frozen=True, slots=True)
class SeatHolder:
    """Who sits in a seat, and the hash of the token that acts for it."""

    display_name: str
    token_hash: str
    player_id: str = ""  # a signed-in player's account, whose sessions act too


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
    private: bool = False
    invite_hash: str = ""  # the hash of a private table's invite code
    expires_at: datetime | None = None  # when a waiting table closes
    closed: ClosedBecause | None = None
    resigned: frozenset[int] = frozenset()
    # Turns timed out in a row, by seat (a seat's own move resets its count).
    missed: tuple[int, ...] = ()
    missed_turns_gone: int = 0  # the game's rule (GameStarted); 0: none
    # The seat whose next move the server's bot makes (a timeout, a resigned
    # seat), between the event that says so and the move's MovePlayed.
    bot_moving: int | None = None

    @property
    def host(self) -> int | None:
        """Returns the host's seat: seat 0, None once nobody is seated."""
        return 0 if self.seats else None

    @property
    def rng(self) -> Rng:
        """Returns the game's random streams, derived from its secret seed."""
        return Rng(bytes.fromhex(self.seed))
