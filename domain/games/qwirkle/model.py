"""Qwirkle values, commands and state (rules spec §1-§4); events are in events.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TypeAlias

# The spec's one constants table (§1, §2, §5.1). None of these is a table option.
RACK_SIZE = 6
COPIES = 3
QWIRKLE_LENGTH = 6
MIN_LINE = 2  # §3: a line is a run of two or more tiles
QWIRKLE_BONUS = 6
END_BONUS = 6
MIN_PLAYERS = 2
MAX_PLAYERS = 6
# A connected grid of 108 tiles that holds (0, 0) never reaches |x| or |y| > 107.
MAX_COORDINATE = 108
ORIGIN = (0, 0)

Cell: TypeAlias = tuple[int, int]


class Color(StrEnum):
    """Tile colours, in canonical order (§1, DESIGN §4)."""

    RED = "red"
    ORANGE = "orange"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    PURPLE = "purple"


class Shape(StrEnum):
    """Tile shapes, in canonical order (§1, DESIGN §4)."""

    CIRCLE = "circle"
    CRISSCROSS = "crisscross"
    DIAMOND = "diamond"
    SQUARE = "square"
    STARBURST = "starburst"
    CLOVER = "clover"


_COLOR_INDEX = {color: index for index, color in enumerate(Color)}
_SHAPE_INDEX = {shape: index for index, shape in enumerate(Shape)}


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile; the three copies of a colour-shape pair are identical for every rule."""

    color: Color
    shape: Shape

    def __str__(self) -> str:
        return f"{self.color}-{self.shape}"


def tile_key(tile: Tile) -> tuple[int, int]:
    """Returns the canonical sort key of a tile: colour first, then shape."""
    return (_COLOR_INDEX[tile.color], _SHAPE_INDEX[tile.shape])


def without(tiles: tuple[Tile, ...], removed: Iterable[Tile]) -> tuple[Tile, ...]:
    """Returns ``tiles`` with one occurrence of each removed tile taken out."""
    remaining = list(tiles)
    for tile in removed:
        remaining.remove(tile)
    return tuple(remaining)


def holds(rack: Iterable[Tile], wanted: Iterable[Tile]) -> Tile | None:
    """Returns the first wanted tile the rack lacks (counting copies), or None."""
    available = Counter(rack)
    for tile in wanted:
        if available[tile] == 0:
            return tile
        available[tile] -= 1
    return None


@dataclass(frozen=True, slots=True)
class Placement:
    """A tile laid on cell ``(x, y)``; x grows rightwards, y downwards (§1)."""

    tile: Tile
    x: int
    y: int

    @property
    def cell(self) -> Cell:
        """Returns the cell as an ``(x, y)`` pair."""
        return (self.x, self.y)


@dataclass(frozen=True, slots=True)
class QwirkleConfig:
    """Table options. The spec has none today; rack size and tiles are constants."""


# --- Commands (imperative; each names the acting seat) ---


@dataclass(frozen=True, slots=True)
class PlaceTiles:
    """Lay 1 to 6 tiles from the rack in one line (§3, §4.1, §4.2)."""

    seat: int
    placements: tuple[Placement, ...]


@dataclass(frozen=True, slots=True)
class ExchangeTiles:
    """Swap tiles of the rack with tiles from the bag (§4.2, D5, D6)."""

    seat: int
    tiles: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass the turn; only with an empty bag and no placement (D7)."""

    seat: int


Command: TypeAlias = PlaceTiles | ExchangeTiles | Pass


# --- Values the events and the state share ---


class EndReason(StrEnum):
    """Why the game ended (§5.2)."""

    HAND_EMPTIED = "hand_emptied"
    DEADLOCK = "deadlock"


# --- State ---


class Phase(StrEnum):
    """The state machine of §4, plus the moment before the deal."""

    SETUP = "setup"
    FIRST_MOVE = "first_move"
    TURN = "turn"
    GAME_OVER = "game_over"


def frozen_board(cells: Mapping[Cell, Tile]) -> Mapping[Cell, Tile]:
    """Returns a read-only copy of a board mapping."""
    return MappingProxyType(dict(cells))


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need; a fold of the events from ``initial_state``."""

    players: int
    config: QwirkleConfig
    phase: Phase
    board: Mapping[Cell, Tile]
    racks: tuple[tuple[Tile, ...], ...]
    bag: tuple[Tile, ...]  # index 0 is the top
    scores: tuple[int, ...]
    to_move: int
    starting_numbers: tuple[int, ...]
    # Exchanges made so far; names the next exchange's random label (DESIGN §4).
    exchanges: int
    end_reason: EndReason | None

    @property
    def finished(self) -> bool:
        """Returns whether the game is over."""
        return self.phase is Phase.GAME_OVER

    @property
    def first_move_done(self) -> bool:
        """Returns whether the first move (§4.1) has been made."""
        return self.phase in (Phase.TURN, Phase.GAME_OVER)
