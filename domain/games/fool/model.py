"""Fool! values, commands and state (rules spec §1-§4); events are in events.py."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TypeAlias

# The spec's constants (§1, §2.1, §4). None of these is a table option.
MIN_PLAYERS = 4
MAX_PLAYERS = 8
WILD_VALUE = 1  # §1.1: the wild card's face value
WILD_PENALTY = 5  # D9: a wild 1 left in hand costs 5
EMPTY_HAND_POINTS = 10  # §4.1
SCORE_LIMIT = -80  # §4.2, D11: a total at or below this ends the game
TEN_LIMIT = 6  # §4.2, D11: this many +10 rounds end the game
TWO_FOOLS_FROM_PLAYERS = 7  # D3


class Color(StrEnum):
    """The four suits, in canonical order (§1.1, DESIGN §4). Wild 1s have none."""

    GREEN = "green"
    RED = "red"
    YELLOW = "yellow"
    BLUE = "blue"


_LETTERS: Mapping[Color, str] = MappingProxyType(
    {Color.GREEN: "G", Color.RED: "R", Color.YELLOW: "Y", Color.BLUE: "B"}
)
_BY_LETTER = {letter: color for color, letter in _LETTERS.items()}
_COLOR_INDEX = {color: index for index, color in enumerate(Color)}
_CARD_ID = re.compile(r"^(?:([GRYB])(\d{1,2})|W1-(\d))$")


@dataclass(frozen=True, slots=True)
class Card:
    """One card: a suit and value, or a wild 1 (``color`` None) with its copy 1-6.

    Coloured cards have ``copy`` 0; every value occurs once per suit (D1), so the
    card id (``G17``, ``W1-4``, §1.1) names one physical card.
    """

    color: Color | None
    value: int
    copy: int = 0

    @property
    def wild(self) -> bool:
        """Returns whether this is a wild 1."""
        return self.color is None

    def __str__(self) -> str:
        letter = "W" if self.color is None else _LETTERS[self.color]
        if self.color is None or self.copy:  # a coloured copy is no real card
            return f"{letter}{self.value}-{self.copy}"
        return f"{letter}{self.value}"


def wild(copy: int) -> Card:
    """Returns wild 1 number ``copy``."""
    return Card(None, WILD_VALUE, copy)


def card_from_id(text: str) -> Card | None:
    """Returns the card an id like ``G17`` or ``W1-4`` names, None if unreadable."""
    found = _CARD_ID.match(text)
    if found is None:
        return None
    letter, value, copy = found.groups()
    if copy is not None:
        return wild(int(copy))
    return Card(_BY_LETTER[letter], int(value))


def card_key(card: Card) -> tuple[int, int, int]:
    """Returns the canonical sort key: green, red, yellow, blue, then wild 1s."""
    suit = len(Color) if card.color is None else _COLOR_INDEX[card.color]
    return (suit, card.value, card.copy)


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Returns cards in canonical order."""
    return tuple(sorted(cards, key=card_key))


def penalty(card: Card) -> int:
    """Returns what a card left in hand costs: its value, 5 for a wild 1 (D9)."""
    return WILD_PENALTY if card.wild else card.value


@dataclass(frozen=True, slots=True)
class FoolConfig:
    """Table options: the seat that deals the first round (§2.2, D6)."""

    first_dealer: int = 0


@dataclass(frozen=True, slots=True)
class TrickCard:
    """A card in a trick and the seat that played it."""

    seat: int
    card: Card


# --- Commands (imperative; each names the acting seat) ---


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play one card from the hand into the current trick (§3.2)."""

    seat: int
    card: Card


Command: TypeAlias = PlayCard


# --- Values the events and the state share ---


class EndReason(StrEnum):
    """Why the game ended (§4.2, D11); both can hold after the same round."""

    SCORE_LIMIT = "score_limit"  # some total is -80 or less
    TEN_LIMIT = "ten_limit"  # some ten count is 6 or more


# --- State ---


class Phase(StrEnum):
    """Before the first deal, playing tricks, between scoring and the next deal.

    ``ROUND_OVER`` lasts only from ``RoundScored`` to the ``HandsDealt`` or
    ``GameEnded`` of the same move: a replay at that revision shows the hands.
    """

    SETUP = "setup"
    PLAY = "play"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need; a fold of the events from ``initial_state``."""

    players: int
    config: FoolConfig
    phase: Phase
    round: int  # 1-based; 0 before the first deal
    dealer: int
    leader: int  # the seat that leads (or led) the current trick
    hands: tuple[tuple[Card, ...], ...]  # each in canonical order
    # Seats playing the current trick, in order from the leader (§3.1).
    participants: tuple[int, ...]
    trick: tuple[TrickCard, ...]
    fools: tuple[int, ...]  # seats holding a disc, the worst card's player first
    played: tuple[Card, ...]  # cards of this round's completed tricks, in order
    scores: tuple[int, ...]
    ten_counts: tuple[int, ...]
    end_reasons: tuple[EndReason, ...]

    @property
    def finished(self) -> bool:
        """Returns whether the game is over."""
        return self.phase is Phase.GAME_OVER

    @property
    def to_move(self) -> int | None:
        """Returns the participant who plays next, None between tricks or rounds."""
        if self.phase is not Phase.PLAY or len(self.trick) >= len(self.participants):
            return None
        return self.participants[len(self.trick)]


def discs_in_use(players: int) -> int:
    """Returns how many Fool discs a table of ``players`` uses (§1.2, D3)."""
    return 2 if players >= TWO_FOOLS_FROM_PLAYERS else 1


def lead_color(trick: Iterable[TrickCard]) -> Color | None:
    """Returns the colour of the first coloured card, None while only 1s (§3.2)."""
    return next((t.card.color for t in trick if t.card.color is not None), None)


def without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """Returns ``hand`` without ``card``."""
    return tuple(c for c in hand if c != card)
