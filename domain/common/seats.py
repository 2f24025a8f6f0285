"""Who is looking: a seat, a spectator or the operator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Seat:
    """A seated player, by seat index (0-based, clockwise)."""

    index: int


@dataclass(frozen=True, slots=True)
class Spectator:
    """Anybody without a seat: sees only public information."""


@dataclass(frozen=True, slots=True)
class Operator:
    """The audit operator, or anyone once a game has finished: sees everything."""


Viewer: TypeAlias = Seat | Spectator | Operator


def next_seat(seat: int, players: int) -> int:
    """Returns the seat to the left (clockwise) of ``seat``."""
    return (seat + 1) % players
