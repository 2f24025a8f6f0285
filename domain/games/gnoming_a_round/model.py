"""Gnoming A Round constants, table options, commands and state (spec §1-§3).

Commands are imperative and name the acting seat; events are in ``events.py``.
Positions are 0..8, row-major (§1.2); discard piles are numbered 1 and 2.
"""

from __future__ import annotations

# The spec's constants (§1.2, §2, §3, §4). None of these is a table option.
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from domain.games.gnoming_a_round.cards import Card, Kind

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


class Phase(StrEnum):
    """The resting points of §2 and §3; END_OF_TURN and scoring never rest."""

    SETUP = "setup"
    INITIAL_FLIP = "initial_flip"
    DRAW = "draw"
    DECIDE = "decide"
    BOUNCE = "bounce"
    DISCARD = "discard"
    HAZARD_RESPONSES = "hazard_responses"
    GAME_OVER = "game_over"


TURN_PHASES = (Phase.DRAW, Phase.DECIDE, Phase.BOUNCE, Phase.DISCARD)


@dataclass(frozen=True, slots=True)
class Slot:
    """One layout position: its card and whether it is face up."""

    card: Card
    face_up: bool


Layout: TypeAlias = tuple[Slot, ...]


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need; a fold of the events from ``initial_state``.

    ``in_hand`` is the one loose card of a turn: the held card (DECIDE), the
    card to move (BOUNCE) or the pending card (DISCARD). ``in_hand_drawn`` tells
    that it came from the draw pile and nobody but the active seat has seen it.
    """

    players: int
    config: GnomingARoundConfig
    phase: Phase
    round: int  # 1..3; 0 before the first deal
    starting_seat: int
    active: int
    layouts: tuple[Layout, ...]
    draw_pile: tuple[Card, ...]  # index 0 is the top
    discards: tuple[tuple[Card, ...], ...]  # piles 1 and 2, bottom first
    removed: tuple[Card, ...]  # hazards out for the rest of the round
    in_hand: Card | None
    in_hand_drawn: bool
    filled: tuple[int, ...]  # positions filled this turn (§3.3)
    flipped: tuple[int, ...]  # seats done with their initial flip
    asked: tuple[int, ...]  # seats asked to answer the current hazard
    answered: tuple[int, ...]  # of those, the seats that have answered
    trigger: int | None  # the seat that triggered the round end
    reshuffles: int  # draw-pile reshuffles this round (D8)
    round_scores: tuple[tuple[int, ...], ...]  # per scored round, by seat
    totals: tuple[int, ...]
    winners: tuple[int, ...]

    @property
    def finished(self) -> bool:
        """Returns whether the game is over."""
        return self.phase is Phase.GAME_OVER

    def pile(self, number: int) -> tuple[Card, ...]:
        """Returns discard pile 1 or 2, bottom first."""
        return self.discards[number - 1]

    def top(self, number: int) -> Card | None:
        """Returns the top card of discard pile 1 or 2, None when it is empty."""
        pile = self.pile(number)
        return pile[-1] if pile else None


def face_down_count(layout: Sequence[Slot]) -> int:
    """Returns how many cards of a layout are face down."""
    return sum(1 for slot in layout if not slot.face_up)


def shows_mulligan(layout: Sequence[Slot]) -> bool:
    """Returns whether a layout shows a face-up mulligan (D12)."""
    return any(s.face_up and s.card.kind is Kind.MULLIGAN for s in layout)


def placed(layout: Layout, position: int, card: Card) -> Layout:
    """Returns the layout with ``card`` face up at ``position``."""
    return (*layout[:position], Slot(card, face_up=True), *layout[position + 1 :])


def bounce_eligible(displaced: Slot, after: Sequence[Slot]) -> bool:
    """Returns whether a displaced card may bounce (§3.3, D10).

    It was face down, is positive, and a face-up positive card of the layout
    after the placement (the card just placed included) has its value.
    """
    card = displaced.card
    return (
        not displaced.face_up
        and card.kind is Kind.POSITIVE
        and any(
            s.face_up and s.card.kind is Kind.POSITIVE and s.card.value == card.value
            for s in after
        )
    )


def reshuffle_source(state: State) -> tuple[Card, ...]:
    """Returns the discards a reshuffle takes: all but each pile's top (D8)."""
    return tuple(card for pile in state.discards for card in pile[:-1])


def loose_card(state: State) -> Card:
    """Returns the turn's loose card, which DECIDE, BOUNCE and DISCARD always have."""
    if state.in_hand is None:
        msg = f"phase {state.phase.value} has no card in hand"
        raise ValueError(msg)
    return state.in_hand
