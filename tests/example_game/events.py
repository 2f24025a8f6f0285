"""The example game's events: the facts a decision records (past tense)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from tests.example_game.model import Card


@dataclass(frozen=True, slots=True)
class HandsDealt:
    """Every hand (each private to its owner) and the pile (private to nobody)."""

    hands: tuple[tuple[Card, ...], ...]
    pile: tuple[Card, ...]
    pile_size: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A seat laid a card of its hand face up."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A seat drew the top card of the pile; only that seat sees which."""

    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """A seat passed."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """Every seat passed in a row; the hands left are shown."""

    hands_left: tuple[tuple[Card, ...], ...]


Event: TypeAlias = HandsDealt | CardPlayed | CardDrawn | TurnPassed | GameEnded
