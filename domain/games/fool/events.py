"""Fool! events: the facts a decision records (past tense).

``visible`` empties hidden fields; counts stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from domain.games.fool.model import Card, Color, EndReason, TrickCard


@dataclass(frozen=True, slots=True)
class HandsDealt:
    """A round began: dealer, leader and every hand (private to its owner, §2.2).

    Hands are recorded in canonical order, so no event shows the deal order.
    """

    round: int
    dealer: int
    leader: int
    hands: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A seat played a card into the trick (§3.2, public)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickResolved:
    """A complete trick: its cards in order, lead colour, winner and Fools (§3.3).

    ``lead_color`` is None for a trick of wild 1s only (D5); ``fools`` lists the
    seats taking a disc, the worst card's player first.
    """

    cards: tuple[TrickCard, ...]
    lead_color: Color | None
    winner: int
    fools: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundScored:
    """A round's points, the new totals and ten counts, and the hands shown (§4.1)."""

    round: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    ten_counts: tuple[int, ...]
    hands_left: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over after a round's scoring (§4.2, D11)."""

    reasons: tuple[EndReason, ...]


Event: TypeAlias = HandsDealt | CardPlayed | TrickResolved | RoundScored | GameEnded
