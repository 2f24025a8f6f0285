"""What each viewer may see of a state or an event.

A seat sees its own hand; nobody sees another hand or the pile until the end
shows the hands left. A redacted event is the same event class with hidden
fields emptied and every count kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import assert_never

from domain.common.seats import Operator, Viewer, own_only, redacted_for, seated
from tests.example_game.events import (
    CardDrawn,
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    TurnPassed,
)
from tests.example_game.model import Card, State
from tests.example_game.rules import to_move
from tests.example_game.scoring import total


@dataclass(frozen=True, slots=True)
class ExamplePublic:
    """What everybody sees: the cards played, counts, totals, whose turn."""

    played: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    pile_size: int
    totals: tuple[int, ...]
    passes: int
    to_move: tuple[int, ...]
    finished: bool


@dataclass(frozen=True, slots=True)
class ExamplePrivate:
    """What only the seated viewer sees: their own hand."""

    hand: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ExampleView:
    """A viewer's view; ``hands`` holds every hand for the operator or at the end."""

    public: ExamplePublic
    private: ExamplePrivate | None
    hands: tuple[tuple[Card, ...], ...] | None


def view(state: State, viewer: Viewer) -> ExampleView:
    """Returns what ``viewer`` may see of ``state``."""
    public = ExamplePublic(
        played=state.played,
        hand_sizes=tuple(len(hand) for hand in state.hands),
        pile_size=len(state.pile),
        totals=tuple(total(state, seat) for seat in range(state.players)),
        passes=state.passes,
        to_move=to_move(state),
        finished=state.finished,
    )
    seat = seated(viewer, state.players)
    private = None if seat is None else ExamplePrivate(state.hands[seat])
    everyone = state.finished or isinstance(viewer, Operator)
    return ExampleView(public, private, state.hands if everyone else None)


def visible(event: Event, viewer: Viewer) -> Event | None:
    """Returns ``event`` as ``viewer`` may see it."""
    return redacted_for(viewer, event, _redacted)


def _redacted(event: Event, seat: int | None) -> Event:
    """Returns ``event`` as seen by ``seat`` (None for a spectator)."""
    match event:
        case HandsDealt():
            return replace(event, hands=own_only(event.hands, seat), pile=())
        case CardDrawn():
            return event if event.seat == seat else replace(event, card=None)
        case CardPlayed() | TurnPassed() | GameEnded():
            return event
        case _:
            assert_never(event)
