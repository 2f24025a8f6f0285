"""Split table options, matches, commands and state (rules spec §2-§4)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from domain.games.split.cards import Card, MatchType, Rank

# The spec's constants (§1, §3, §5). None of these is a table option.
MIN_PLAYERS = 2
MAX_PLAYERS = 6
HAND_SIZE = 9  # §3: cards dealt to each player
ROUNDS = 3  # §5
ROW_BOXES = 8  # §1.3, D9: marks beyond this add nothing
NEGATIVE_POINTS = 2  # §1.3, D10: each negative mark costs 2


@dataclass(frozen=True, slots=True)
class SplitConfig:
    """Table options: the seat that deals the first round (§3, D13)."""

    first_dealer: int = 0


@dataclass(frozen=True, slots=True)
class Match:
    """A match on the table; each stack lists cards bottom to top (§2)."""

    id: int
    owner: int
    rank: Rank
    left: tuple[Card, ...]
    right: tuple[Card, ...]
    type: MatchType


# --- Commands (imperative; each names the acting seat) ---


@dataclass(frozen=True, slots=True)
class DrawFromPile:
    """Draw the top card of the draw pile (§4.1)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TakeFromDiscard:
    """Take the discard row from ``index`` on and use the key card at once (§4.1, D5).

    Exactly one of ``partner`` (make a match with that hand card) and
    ``match_id`` (upgrade that match with the key card) is set.
    """

    seat: int
    index: int
    partner: Card | None = None
    match_id: int | None = None


@dataclass(frozen=True, slots=True)
class MakeMatch:
    """Lay down a left and a right half of one rank from the hand (§4.3, §4.7)."""

    seat: int
    card_a: Card
    card_b: Card


@dataclass(frozen=True, slots=True)
class Upgrade:
    """Play a hand card onto a match to make it strictly stronger (§4.4)."""

    seat: int
    card: Card
    match_id: int


@dataclass(frozen=True, slots=True)
class ChoosePenaltyTarget:
    """Perfect bonus: another seat marks a negative box (§4.5)."""

    seat: int
    target: int


@dataclass(frozen=True, slots=True)
class ResolveStrongBonus:
    """Strong bonus: draw the top card of the pile, or not (§4.5, D12)."""

    seat: int
    draw: bool


@dataclass(frozen=True, slots=True)
class ResolveWeakBonus:
    """Weak bonus: swap an own match with another's of the same type, or not (D11).

    Both ids are None to decline.
    """

    seat: int
    own_match_id: int | None = None
    other_match_id: int | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    """End the turn by adding a hand card to the discard row (§4.6)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class FinishLateMeld:
    """End one's late meld after a player went out on the first turn (§4.7)."""

    seat: int


Command: TypeAlias = (
    DrawFromPile
    | TakeFromDiscard
    | MakeMatch
    | Upgrade
    | ChoosePenaltyTarget
    | ResolveStrongBonus
    | ResolveWeakBonus
    | Discard
    | FinishLateMeld
)


# --- State ---


class Phase(StrEnum):
    """The turn state machine of §4; ``ROUND_OVER`` lasts only inside one move."""

    SETUP = "setup"
    DRAW = "draw"
    PLAY = "play"
    BONUS = "bonus"
    LATE_MELD = "late_meld"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class Bonus:
    """The bonus the current player must resolve next (§4.5, D19)."""

    type: MatchType
    match_id: int


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need; a fold of the events from ``initial_state``."""

    players: int
    config: SplitConfig
    phase: Phase
    round: int  # 1-based; 0 before the first deal
    dealer: int
    current: int  # the seat whose turn it is (or who ended the round)
    hands: tuple[tuple[Card, ...], ...]  # each in canonical order
    draw_pile: tuple[Card, ...]  # index 0 is the top
    discard_row: tuple[Card, ...]  # oldest first
    matches: tuple[Match, ...]  # in the order they were made
    next_match_id: int
    pending: Bonus | None
    turns: tuple[int, ...]  # turns started this round, per seat
    late_melders: tuple[int, ...]  # seats still to meld, the acting one first
    marks: tuple[tuple[int, ...], ...]  # per seat: 13 rank rows, A first
    negatives: tuple[int, ...]
    next_dealer: int  # set when a round ends (D13)
    winners: tuple[int, ...]

    @property
    def finished(self) -> bool:
        """Returns whether the game is over."""
        return self.phase is Phase.GAME_OVER

    def match(self, match_id: int) -> Match | None:
        """Returns the match with this id, None if there is none on the table."""
        return next((m for m in self.matches if m.id == match_id), None)


def without(hand: tuple[Card, ...], *cards: Card) -> tuple[Card, ...]:
    """Returns ``hand`` without ``cards``."""
    return tuple(c for c in hand if c not in cards)


def replaced(
    items: tuple[tuple[Card, ...], ...], seat: int, hand: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """Returns ``items`` with seat ``seat``'s entry replaced."""
    return (*items[:seat], hand, *items[seat + 1 :])
