"""The example game's cards, table options, commands and state.

A test game laid out as every game in ``domain/games/`` is. Each seat holds a
private hand dealt from a shuffled deck; on its turn it plays a card face up,
draws the top card of the pile or passes. The game ends when every seat has
passed in a row; the highest total of the cards a seat played wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

MIN_PLAYERS = 2
MAX_PLAYERS = 4
HAND_SIZE = 3
HIGHEST = 6  # values run from 1 to this in every suit


class Suit(StrEnum):
    """The suits, in canonical order."""

    CLUBS = "clubs"
    HEARTS = "hearts"
    SPADES = "spades"


@dataclass(frozen=True, slots=True)
class Card:
    """One card; no two cards of the deck are equal."""

    suit: Suit
    value: int


DECK = tuple(Card(suit, value) for suit in Suit for value in range(1, HIGHEST + 1))


@dataclass(frozen=True, slots=True)
class ExampleConfig:
    """Table options: the seat that plays first."""

    first_player: int = 0


# --- Commands (imperative; each names the acting seat) ---


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Lay a card of the hand face up."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class DrawCard:
    """Take the top card of the pile into the hand."""

    seat: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing this turn."""

    seat: int


Command: TypeAlias = PlayCard | DrawCard | Pass


# --- State ---


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need; a fold of the events from ``initial_state``."""

    players: int
    config: ExampleConfig
    dealt: bool
    finished: bool
    to_move: int
    hands: tuple[tuple[Card, ...], ...]
    pile: tuple[Card, ...]  # index 0 is the top
    played: tuple[tuple[Card, ...], ...]  # per seat, in the order played
    passes: int  # passes in a row, the last move's included
