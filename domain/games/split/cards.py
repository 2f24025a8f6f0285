"""Split cards and match types (rules spec §1, §2): ids, canonical order, strength."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


class Rank(StrEnum):
    """The 13 ranks, in canonical order (DESIGN §4); labels only, no order (D18)."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"


class Suit(StrEnum):
    """The four suits, in canonical order: hearts, diamonds (red), clubs, spades."""

    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"
    SPADES = "S"


class Half(StrEnum):
    """Which half of an ordinary card a split card is (§1.1)."""

    LEFT = "L"
    RIGHT = "R"


class MatchType(StrEnum):
    """The three match strengths (§2): weak < strong < perfect."""

    WEAK = "weak"
    STRONG = "strong"
    PERFECT = "perfect"


STRENGTH: Mapping[MatchType, int] = MappingProxyType(
    {MatchType.WEAK: 1, MatchType.STRONG: 2, MatchType.PERFECT: 3}
)
RED_SUITS = frozenset({Suit.HEARTS, Suit.DIAMONDS})
_RANK_INDEX = {rank: index for index, rank in enumerate(Rank)}
_SUIT_INDEX = {suit: index for index, suit in enumerate(Suit)}
_HALF_INDEX = {half: index for index, half in enumerate(Half)}
_CARD_ID = re.compile(r"^(A|[2-9]|10|J|Q|K)([HDCS])-([LR])$")


@dataclass(frozen=True, slots=True)
class Card:
    """One split card; its id is ``<rank><suit>-<half>``, e.g. ``10H-L`` (§1.1)."""

    rank: Rank
    suit: Suit
    half: Half

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}-{self.half}"

    @property
    def id(self) -> str:
        """Returns the card id, ``10H-L`` (§1.1)."""
        return str(self)


def card_from_id(text: str) -> Card | None:
    """Returns the card an id like ``QS-R`` names, None if unreadable."""
    found = _CARD_ID.match(text)
    if found is None:
        return None
    rank, suit, half = found.groups()
    return Card(Rank(rank), Suit(suit), Half(half))


def card_key(card: Card) -> tuple[int, int, int]:
    """Returns the canonical sort key: rank, then suit, then half (DESIGN §4)."""
    return (_RANK_INDEX[card.rank], _SUIT_INDEX[card.suit], _HALF_INDEX[card.half])


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Returns cards in canonical order."""
    return tuple(sorted(cards, key=card_key))


def rank_index(rank: Rank) -> int:
    """Returns a rank's row on the score sheet (A is row 0, K row 12)."""
    return _RANK_INDEX[rank]


def pair_type(left: Card, right: Card) -> MatchType:
    """Returns the type of two visible halves of one rank (§2)."""
    if left.suit is right.suit:
        return MatchType.PERFECT
    if (left.suit in RED_SUITS) == (right.suit in RED_SUITS):
        return MatchType.STRONG
    return MatchType.WEAK
