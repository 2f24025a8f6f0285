"""The 110 Gnoming A Round cards and their canonical order (spec §1.1, D1).

The value distribution of spec §1.1 is a configuration constant of the game,
not a table option. The canonical order (DESIGN §4) lists positives 1..12,
then negatives -1..-5, then the hazards, then the mulligans; for each value
its copies come one after another, copy 1 first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

# Spec §1.1 (D1): value -> number of copies.
POSITIVE_COPIES: Mapping[int, int] = MappingProxyType(
    {**dict.fromkeys(range(1, 11), 7), 11: 6, 12: 6}
)
NEGATIVE_COPIES: Mapping[int, int] = MappingProxyType(
    {-1: 6, -2: 6, -3: 4, -4: 3, -5: 3}
)
HAZARD_COPIES = 3
MULLIGAN_COPIES = 3
DECK_SIZE = 110
HAZARD_POINTS = 10  # §4.1 step 3: a hazard left in a layout scores +10


class Kind(StrEnum):
    """The four kinds of card (§1.1)."""

    POSITIVE = "positive"
    NEGATIVE = "negative"
    HAZARD = "hazard"
    MULLIGAN = "mulligan"


_CARD_ID = re.compile(r"^(?:([PN])(\d\d)|(HZ)|(MU))-(\d)$")


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card: its kind, face value (0 for hazards and mulligans), copy.

    ``copy`` counts from 1 within a value, so every card of the deck is distinct.
    """

    kind: Kind
    value: int
    copy: int

    @property
    def id(self) -> str:
        """Returns the spec's card id: ``P07-3``, ``N02-1``, ``HZ-1``, ``MU-1``."""
        match self.kind:
            case Kind.POSITIVE:
                return f"P{self.value:02d}-{self.copy}"
            case Kind.NEGATIVE:
                return f"N{-self.value:02d}-{self.copy}"
            case Kind.HAZARD:
                return f"HZ-{self.copy}"
            case Kind.MULLIGAN:
                return f"MU-{self.copy}"

    def __str__(self) -> str:
        return self.id

    @property
    def points(self) -> int:
        """Returns what the card scores when it is in no set (§4.1 step 3)."""
        if self.kind is Kind.HAZARD:
            return HAZARD_POINTS
        return self.value  # a mulligan's value is 0


def positive(value: int, copy: int = 1) -> Card:
    """Returns positive card ``value`` (1..12), copy ``copy``."""
    return Card(Kind.POSITIVE, value, copy)


def negative(value: int, copy: int = 1) -> Card:
    """Returns negative card ``value`` (-1..-5), copy ``copy``."""
    return Card(Kind.NEGATIVE, value, copy)


def hazard(copy: int = 1) -> Card:
    """Returns hazard number ``copy``."""
    return Card(Kind.HAZARD, 0, copy)


def mulligan(copy: int = 1) -> Card:
    """Returns mulligan number ``copy``."""
    return Card(Kind.MULLIGAN, 0, copy)


def canonical_cards() -> tuple[Card, ...]:
    """Returns the 110 cards in the canonical order of DESIGN §4."""
    cards = [
        positive(value, copy)
        for value, copies in POSITIVE_COPIES.items()
        for copy in range(1, copies + 1)
    ]
    cards += [
        negative(value, copy)
        for value, copies in NEGATIVE_COPIES.items()
        for copy in range(1, copies + 1)
    ]
    cards += [hazard(copy) for copy in range(1, HAZARD_COPIES + 1)]
    cards += [mulligan(copy) for copy in range(1, MULLIGAN_COPIES + 1)]
    return tuple(cards)


CANONICAL: tuple[Card, ...] = canonical_cards()
_CANONICAL_INDEX: Mapping[Card, int] = MappingProxyType(
    {card: index for index, card in enumerate(CANONICAL)}
)
_BY_ID: Mapping[str, Card] = MappingProxyType({card.id: card for card in CANONICAL})


def canonical_index(card: Card) -> int:
    """Returns the card's place in the canonical order (0..109)."""
    return _CANONICAL_INDEX[card]


def card_from_id(text: str) -> Card | None:
    """Returns the card of the deck an id names, None for any other text."""
    if _CARD_ID.match(text) is None:
        return None
    return _BY_ID.get(text)
