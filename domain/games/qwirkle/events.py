"""Qwirkle events: the facts a decision records (past tense).

Hidden fields are emptied by ``visible``; counts stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from domain.games.qwirkle.model import EndReason, Placement, Tile


@dataclass(frozen=True, slots=True)
class TilesDealt:
    """The shuffled tiles: a rack per seat (private) and the bag (secret, §2)."""

    racks: tuple[tuple[Tile, ...], ...]
    rack_sizes: tuple[int, ...]
    bag: tuple[Tile, ...]
    bag_size: int


@dataclass(frozen=True, slots=True)
class StartingPlayerChosen:
    """Every seat's starting number k and the seat that starts (D2, public)."""

    starting_numbers: tuple[int, ...]
    seat: int


@dataclass(frozen=True, slots=True)
class TilesPlaced:
    """Tiles moved from a rack onto the grid (public)."""

    seat: int
    placements: tuple[Placement, ...]


@dataclass(frozen=True, slots=True)
class TurnScored:
    """Points of a placement: each scored run's length and the Qwirkles (§5.1)."""

    seat: int
    points: int
    lines: tuple[int, ...]
    qwirkles: int


@dataclass(frozen=True, slots=True)
class TilesDrawn:
    """A refill from the top of the bag; tiles visible to the drawer only (§4.4)."""

    seat: int
    count: int
    tiles: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class TilesExchanged:
    """An exchange (D6): the count is public, tiles private, the new bag secret."""

    seat: int
    count: int
    returned: tuple[Tile, ...]
    drawn: tuple[Tile, ...]
    bag: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """A seat passed (D7)."""

    seat: int


@dataclass(frozen=True, slots=True)
class EndBonusScored:
    """The bonus for emptying the hand after the bag ran out (§5.1)."""

    seat: int
    points: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over; the remaining hands are shown to everybody (§4.5)."""

    reason: EndReason
    racks: tuple[tuple[Tile, ...], ...]


Event: TypeAlias = (
    TilesDealt
    | StartingPlayerChosen
    | TilesPlaced
    | TurnScored
    | TilesDrawn
    | TilesExchanged
    | TurnPassed
    | EndBonusScored
    | GameEnded
)
