"""Who is looking: a seat, a spectator or the operator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias, TypeVar, assert_never

E = TypeVar("E")
T = TypeVar("T")


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


def seated(viewer: Viewer, players: int) -> int | None:
    """Returns the seat ``viewer`` holds in a game of ``players`` seats, or None."""
    if isinstance(viewer, Seat) and 0 <= viewer.index < players:
        return viewer.index
    return None


def redacted_for(viewer: Viewer, event: E, redact: Callable[[E, int | None], E]) -> E:
    """Returns ``event`` as ``viewer`` may see it.

    The operator sees all of it; a seat and a spectator see what the game's
    ``redact`` leaves for that seat (None for a spectator).
    """
    match viewer:
        case Operator():
            return event
        case Seat(index=seat):
            return redact(event, seat)
        case Spectator():
            return redact(event, None)
        case _:
            assert_never(viewer)


def own_only(
    hidden: tuple[tuple[T, ...], ...], seat: int | None
) -> tuple[tuple[T, ...], ...]:
    """Returns every seat's hidden items, emptied but for ``seat``'s own."""
    return tuple(items if owner == seat else () for owner, items in enumerate(hidden))
