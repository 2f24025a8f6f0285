"""Gnoming A Round constants, table options and commands (spec §2-§3).

Commands are imperative and name the acting seat; events are in ``events.py``.
Positions are 0..8, row-major (§1.2); discard piles are numbered 1 and 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

# The spec's constants (§1.2, §2, §3, §4). None of these is a table option.
MIN_PLAYERS = 3  # D2
MAX_PLAYERS = 7
POSITIONS = 9
ROUNDS = 3
INITIAL_FLIPS = 2  # §2 step 4
PILES = (1, 2)
FIRST_OUT_BONUS = -5  # §4.1 step 5, D14
FIRST_OUT_PENALTY = 5
HAZARD_MIN_FACE_DOWN = 2  # §3.5: only players with 2+ face-down cards respond


@dataclass(frozen=True, slots=True)
class GnomingARoundConfig:
    """Table options: the seat that starts round 1 (§2, D3)."""

    first_player: int = 0


# --- Commands (imperative; each names the acting seat) ---


@dataclass(frozen=True, slots=True)
class FlipInitial:
    """Turn two different face-down cards of one's own layout face up (§2 step 4)."""

    seat: int
    positions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DrawFromPile:
    """Take the top card of the draw pile into the hand (§3.1)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TakeFromDiscard:
    """Take the top card of discard pile 1 or 2; it must then be kept (§3.1, D9)."""

    seat: int
    pile: int


@dataclass(frozen=True, slots=True)
class Keep:
    """Put the held card face up at a position, displacing its card (§3.2)."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class Reject:
    """Give up a card drawn from the draw pile; it becomes the pending card (§3.2)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Bounce:
    """Move the bounce-eligible card to a position not filled this turn (§3.3)."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class StopBounce:
    """End the bounce chain; the card to move becomes the pending card (§3.3)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard the pending card on pile 1 or 2; ``None`` for a hazard (§3.4)."""

    seat: int
    pile: int | None


@dataclass(frozen=True, slots=True)
class HazardFlip:
    """Answer a hazard by turning one of one's face-down cards face up (§3.5)."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class HazardDecline:
    """Answer a hazard by flipping nothing (§3.5, D5)."""

    seat: int


Command: TypeAlias = (
    FlipInitial
    | DrawFromPile
    | TakeFromDiscard
    | Keep
    | Reject
    | Bounce
    | StopBounce
    | Discard
    | HazardFlip
    | HazardDecline
)
