"""What each viewer may see of a state or an event (spec §3.7, DESIGN §5).

A face-down card is hidden from every player and spectator, its owner
included; so is the draw pile's order. A card drawn from the draw pile is seen
by its drawer alone until it is placed or discarded (D18). Everything else is
public. Only the operator (audit, or anyone once the game is over) sees all.
A redacted event is the same event class with its hidden fields emptied.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import assert_never

from domain.common.seats import Operator, Seat, Spectator, Viewer, redacted_for
from domain.games.gnoming_a_round.cards import Card
from domain.games.gnoming_a_round.events import (
    BounceStopped,
    CardBounced,
    CardDiscarded,
    CardDrawn,
    CardKept,
    CardRejected,
    DiscardPileRefilled,
    DiscardTaken,
    DrawPileReshuffled,
    Event,
    GameEnded,
    HazardDeclined,
    HazardFlipped,
    HazardRemoved,
    HazardTurnedUp,
    InitialCardsFlipped,
    RoundDealt,
    RoundEndTriggered,
    RoundScored,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import Phase, State
from domain.games.gnoming_a_round.rules import to_move


@dataclass(frozen=True, slots=True)
class GnomingARoundPublic:
    """What everybody sees. ``layouts`` holds None for every face-down card.

    ``held_card`` is the active seat's loose card when everyone has seen it;
    ``holding`` tells that there is a loose card at all.
    """

    round: int
    phase: Phase
    starting_seat: int
    active_seat: int
    to_move: tuple[int, ...]
    layouts: tuple[tuple[Card | None, ...], ...]
    discard_tops: tuple[Card | None, ...]
    discard_sizes: tuple[int, ...]
    draw_pile_size: int
    removed: tuple[Card, ...]
    holding: bool
    held_card: Card | None
    filled: tuple[int, ...]
    flipped: tuple[int, ...]
    asked: tuple[int, ...]
    answered: tuple[int, ...]
    round_end_trigger: int | None
    round_scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GnomingARoundPrivate:
    """What only the seated viewer sees: the card they drew and still hide."""

    drawn_card: Card | None


@dataclass(frozen=True, slots=True)
class GnomingARoundRevealed:
    """Everything hidden, for the operator or once the game is over."""

    layouts: tuple[tuple[Card, ...], ...]
    draw_pile: tuple[Card, ...]
    held_card: Card | None


@dataclass(frozen=True, slots=True)
class GnomingARoundView:
    """A viewer's view: the public part, the seat's private part, the audit part."""

    public: GnomingARoundPublic
    private: GnomingARoundPrivate | None
    revealed: GnomingARoundRevealed | None


def public_view(state: State) -> GnomingARoundPublic:
    """Returns the public part of a state."""
    return GnomingARoundPublic(
        round=state.round,
        phase=state.phase,
        starting_seat=state.starting_seat,
        active_seat=state.active,
        to_move=to_move(state),
        layouts=tuple(
            tuple(slot.card if slot.face_up else None for slot in layout)
            for layout in state.layouts
        ),
        discard_tops=tuple(pile[-1] if pile else None for pile in state.discards),
        discard_sizes=tuple(len(pile) for pile in state.discards),
        draw_pile_size=len(state.draw_pile),
        removed=state.removed,
        holding=state.in_hand is not None,
        held_card=None if state.in_hand_drawn else state.in_hand,
        filled=state.filled,
        flipped=state.flipped,
        asked=state.asked,
        answered=state.answered,
        round_end_trigger=state.trigger,
        round_scores=state.round_scores,
        totals=state.totals,
        finished=state.finished,
        winners=state.winners,
    )


def view(state: State, viewer: Viewer) -> GnomingARoundView:
    """Returns what ``viewer`` may see of ``state`` (§3.7)."""
    private: GnomingARoundPrivate | None = None
    revealed: GnomingARoundRevealed | None = None
    match viewer:
        case Seat(index=seat):
            if 0 <= seat < state.players:
                private = GnomingARoundPrivate(drawn_card=_drawn_by(state, seat))
        case Spectator():
            pass
        case Operator():
            revealed = GnomingARoundRevealed(
                layouts=tuple(
                    tuple(slot.card for slot in layout) for layout in state.layouts
                ),
                draw_pile=state.draw_pile,
                held_card=state.in_hand,
            )
        case _:
            assert_never(viewer)
    return GnomingARoundView(public_view(state), private, revealed)


def _drawn_by(state: State, seat: int) -> Card | None:
    drawing = state.in_hand_drawn and seat == state.active
    ongoing = state.phase in (Phase.DECIDE, Phase.DISCARD)
    return state.in_hand if drawing and ongoing else None


def visible(event: Event, viewer: Viewer) -> Event | None:
    """Returns ``event`` as ``viewer`` may see it: hidden cards emptied."""
    return redacted_for(viewer, event, _redacted)


def _redacted(event: Event, seat: int | None) -> Event:
    """Returns ``event`` as seen by ``seat`` (None for a spectator)."""
    match event:
        case RoundDealt():
            # §2 step 2: face-down cards are hidden from everyone, owners included.
            return replace(event, layouts=(), draw_pile=())
        case DrawPileReshuffled():
            return replace(event, draw_pile=())
        case CardDrawn() | CardRejected():
            return event if event.seat == seat else replace(event, card=None)
        case (
            InitialCardsFlipped()
            | TurnStarted()
            | DiscardTaken()
            | CardKept()
            | CardBounced()
            | BounceStopped()
            | CardDiscarded()
            | HazardRemoved()
            | HazardFlipped()
            | HazardDeclined()
            | HazardTurnedUp()
            | DiscardPileRefilled()
            | RoundEndTriggered()
            | RoundScored()
            | GameEnded()
        ):
            return event
        case _:
            assert_never(event)
