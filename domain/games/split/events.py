"""Split events (past tense). ``visible`` empties hidden fields; counts stay."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from domain.games.split.cards import Card, MatchType, Rank


@dataclass(frozen=True, slots=True)
class Credit:
    """One match credited at round end: a mark in ``rank``'s row for ``seat``."""

    seat: int
    rank: Rank
    type: MatchType


class EndReason(StrEnum):
    """Why a round ended (§4.1, §4.6)."""

    WENT_OUT = "went_out"
    DRAW_PILE_EMPTY = "draw_pile_empty"


@dataclass(frozen=True, slots=True)
class RoundDealt:
    """A round began (§3): hands (private, canonical order), first discard, pile.

    ``draw_pile`` is in order, index 0 the top; nobody but the operator sees it.
    """

    round: int
    dealer: int
    first_player: int
    hands: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    discard: Card
    draw_pile: tuple[Card, ...]
    draw_pile_size: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A seat drew the pile's top card; ``card`` only for the drawer (§4.1, §4.5).

    ``bonus`` tells a strong-bonus draw from a turn's draw.
    """

    seat: int
    card: Card | None
    bonus: bool


@dataclass(frozen=True, slots=True)
class DiscardTaken:
    """A seat took the discard row from ``index`` on (public, §4.1)."""

    seat: int
    index: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class MatchMade:
    """A new match (§4.3); ``late`` for a late meld, which has no bonus (§4.7)."""

    seat: int
    match_id: int
    left: Card
    right: Card
    type: MatchType
    late: bool


@dataclass(frozen=True, slots=True)
class MatchUpgraded:
    """A card covered one half of a match, which changed owner (§4.4, D2, D3)."""

    seat: int
    match_id: int
    card: Card
    from_type: MatchType
    to_type: MatchType
    previous_owner: int


@dataclass(frozen=True, slots=True)
class NegativeMarked:
    """Perfect bonus: ``seat`` marked a negative box, chosen by ``by`` (§4.5, D10)."""

    seat: int
    by: int


@dataclass(frozen=True, slots=True)
class StrongBonusDeclined:
    """Strong bonus resolved without a draw (§4.5, D12)."""

    seat: int


@dataclass(frozen=True, slots=True)
class WeakBonusResolved:
    """Weak bonus: two matches changed owners, or none when both ids are None (D11)."""

    seat: int
    own_match_id: int | None
    other_match_id: int | None
    other_owner: int | None


@dataclass(frozen=True, slots=True)
class CardDiscarded:
    """A seat ended the turn with a discard (public, §4.6)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """A round ended (§4.1, §4.6); ``late_melders`` meld first, in order (§4.7)."""

    round: int
    reason: EndReason
    seat: int
    late_melders: tuple[int, ...]
    next_dealer: int  # D13: who went out, else left of this round's dealer


@dataclass(frozen=True, slots=True)
class LateMeldFinished:
    """A seat finished its late meld (§4.7)."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundScored:
    """A round's marks (§4.8): credits per match, the hands left (shown), totals."""

    round: int
    credits: tuple[Credit, ...]
    hands_left: tuple[tuple[Card, ...], ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over after round 3 (§5); winners share a tie (D15)."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event: TypeAlias = (
    RoundDealt
    | CardDrawn
    | DiscardTaken
    | MatchMade
    | MatchUpgraded
    | NegativeMarked
    | StrongBonusDeclined
    | WeakBonusResolved
    | CardDiscarded
    | RoundEnded
    | LateMeldFinished
    | RoundScored
    | GameEnded
)
