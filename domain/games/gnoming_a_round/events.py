"""Gnoming A Round events: the facts a decision records (spec §2-§4).

Events are past tense. The fields that ``views.visible`` empties for some
viewers are marked "hidden"; everything a replay needs, random outcomes
included, is written in the events, so ``evolve`` never recomputes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from domain.games.gnoming_a_round.cards import Card


@dataclass(frozen=True, slots=True)
class RoundDealt:
    """A round's deal from its own shuffle (§2 round setup, D6, D15).

    ``layouts`` (hidden from every player, owners included) holds each seat's
    nine face-down cards in position order; ``draw_pile`` (hidden) is top first.
    ``discards`` are the two cards turned up as piles 1 and 2 and ``removed``
    the hazards turned up before them and set aside without effect (public).
    """

    round: int
    starting_seat: int
    layouts: tuple[tuple[Card, ...], ...]
    discards: tuple[Card, ...]
    removed: tuple[Card, ...]
    draw_pile: tuple[Card, ...]
    draw_pile_size: int


@dataclass(frozen=True, slots=True)
class InitialCardsFlipped:
    """A seat turned its two initial cards face up, for everyone (§2 step 4)."""

    seat: int
    positions: tuple[int, ...]
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A seat's turn began with its DRAW step (§2 step 5, §3.6 step 3)."""

    seat: int


@dataclass(frozen=True, slots=True)
class DrawPileReshuffled:
    """The discard piles but their tops were shuffled into a new draw pile (D8).

    ``number`` is the round's reshuffle count, which names the random label;
    ``draw_pile`` (hidden) is the new pile, top first.
    """

    number: int
    draw_pile: tuple[Card, ...]
    draw_pile_size: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A seat drew the draw pile's top card; ``card`` is for the drawer only (D18)."""

    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class DiscardTaken:
    """A seat took the top card of a discard pile (public, §3.1)."""

    seat: int
    pile: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardKept:
    """The held card went face up at ``position``; the card there was displaced.

    ``from_draw_pile`` tells that the kept card was drawn and private until now;
    ``displaced_face_down`` that the displaced card was revealed by this move;
    ``bounce_eligible`` that it may now be bounced (§3.3, D10).
    """

    seat: int
    position: int
    card: Card
    from_draw_pile: bool
    displaced: Card
    displaced_face_down: bool
    bounce_eligible: bool


@dataclass(frozen=True, slots=True)
class CardRejected:
    """A drawn card became the pending card; ``card`` is the drawer's only (D18)."""

    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class CardBounced:
    """The card to move went face up at ``position``, displacing another (§3.3)."""

    seat: int
    position: int
    card: Card
    displaced: Card
    displaced_face_down: bool
    bounce_eligible: bool


@dataclass(frozen=True, slots=True)
class BounceStopped:
    """A seat ended its bounce chain; ``card`` is now the pending card (§3.3)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardDiscarded:
    """The pending card went face up on a discard pile (§3.4).

    ``from_draw_pile`` tells that it was a rejected drawn card, shown only now.
    """

    seat: int
    pile: int
    card: Card
    from_draw_pile: bool


@dataclass(frozen=True, slots=True)
class HazardRemoved:
    """A seat discarded a hazard: it leaves the round and the effect starts (§3.4).

    ``responders`` are the seats asked to answer it, in seat order (§3.5).
    """

    seat: int
    card: Card
    from_draw_pile: bool
    responders: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HazardFlipped:
    """A responder turned a face-down card of their layout face up (§3.5)."""

    seat: int
    position: int
    card: Card


@dataclass(frozen=True, slots=True)
class HazardDeclined:
    """A responder flipped nothing (§3.5, D5)."""

    seat: int


@dataclass(frozen=True, slots=True)
class HazardTurnedUp:
    """A hazard came off the draw pile to restart a discard pile: set aside (D6)."""

    card: Card


@dataclass(frozen=True, slots=True)
class DiscardPileRefilled:
    """An empty discard pile was restarted with the draw pile's top card (§3.6)."""

    pile: int
    card: Card


@dataclass(frozen=True, slots=True)
class RoundEndTriggered:
    """A seat has no face-down card left: everyone else gets one more turn (§3.6)."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundScored:
    """A round's end: every layout shown and scored (§4.1).

    Indexed by seat: ``layouts`` (all cards, now public), ``wild`` (position of
    the wild mulligan, or None), ``base_scores`` (step 4), ``scores`` (after the
    first-out adjustment ``adjustment`` of seat ``first_out``) and ``totals``.
    """

    round: int
    layouts: tuple[tuple[Card, ...], ...]
    wild: tuple[int | None, ...]
    base_scores: tuple[int, ...]
    first_out: int
    adjustment: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The third round was scored: lowest total wins, ties broken by D16."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event: TypeAlias = (
    RoundDealt
    | InitialCardsFlipped
    | TurnStarted
    | DrawPileReshuffled
    | CardDrawn
    | DiscardTaken
    | CardKept
    | CardRejected
    | CardBounced
    | BounceStopped
    | CardDiscarded
    | HazardRemoved
    | HazardFlipped
    | HazardDeclined
    | HazardTurnedUp
    | DiscardPileRefilled
    | RoundEndTriggered
    | RoundScored
    | GameEnded
)
