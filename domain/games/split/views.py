"""What each viewer may see of a state or an event (spec §4.9, D17; DESIGN §5).

A redacted event is the same event class with hidden fields emptied and every
count kept. A seat sees its own hand and its own draws; nobody but the operator
sees the order of the draw pile. The discard row, every match (covered cards
included), the score sheets, hand sizes and the pile size are public; the hands
left at a round's end are shown by its scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import assert_never

from domain.common.seats import (
    Operator,
    Viewer,
    own_only,
    redacted_for,
    seated,
)
from domain.games.split.cards import (
    Card,
)
from domain.games.split.events import (
    CardDiscarded,
    CardDrawn,
    DiscardTaken,
    Event,
    GameEnded,
    LateMeldFinished,
    MatchMade,
    MatchUpgraded,
    NegativeMarked,
    RoundDealt,
    RoundEnded,
    RoundScored,
    StrongBonusDeclined,
    WeakBonusResolved,
)
from domain.games.split.model import (
    Bonus,
    Match,
    Phase,
    State,
)
from domain.games.split.rules import to_move
from domain.games.split.scoring import totals


@dataclass(frozen=True, slots=True)
class SplitPublic:
    """What everybody sees (§4.9): the table, counts and the score sheets."""

    round: int
    dealer: int
    current: int
    phase: Phase
    pending: Bonus | None
    discard_row: tuple[Card, ...]
    matches: tuple[Match, ...]
    hand_sizes: tuple[int, ...]
    draw_pile_size: int
    late_melders: tuple[int, ...]
    marks: tuple[tuple[int, ...], ...]
    negatives: tuple[int, ...]
    totals: tuple[int, ...]
    to_move: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SplitPrivate:
    """What only the seated viewer sees: their own hand."""

    hand: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SplitView:
    """A viewer's view; ``hands`` holds every hand when shown or for the operator.

    ``draw_pile`` (in order, top first) is set for the operator only.
    """

    public: SplitPublic
    private: SplitPrivate | None
    hands: tuple[tuple[Card, ...], ...] | None
    draw_pile: tuple[Card, ...] | None


def public_view(state: State) -> SplitPublic:
    """Returns the public part of a state."""
    return SplitPublic(
        round=state.round,
        dealer=state.dealer,
        current=state.current,
        phase=state.phase,
        pending=state.pending,
        discard_row=state.discard_row,
        matches=state.matches,
        hand_sizes=tuple(len(hand) for hand in state.hands),
        draw_pile_size=len(state.draw_pile),
        late_melders=state.late_melders,
        marks=state.marks,
        negatives=state.negatives,
        totals=totals(state.marks, state.negatives),
        to_move=to_move(state),
        finished=state.finished,
        winners=state.winners,
    )


def view(state: State, viewer: Viewer) -> SplitView:
    """Returns what ``viewer`` may see of ``state`` (§4.9)."""
    seat = seated(viewer, state.players)
    private = None if seat is None else SplitPrivate(hand=state.hands[seat])
    # §4.9: hands left at a round's end are shown by the scoring; the last
    # round's stay shown. The draw pile's order is never shown but to the operator.
    operator = isinstance(viewer, Operator)
    shown = operator or state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
    return SplitView(
        public=public_view(state),
        private=private,
        hands=state.hands if shown else None,
        draw_pile=state.draw_pile if operator else None,
    )


def visible(event: Event, viewer: Viewer) -> Event | None:
    """Returns ``event`` as ``viewer`` may see it: hidden cards emptied, sizes kept."""
    return redacted_for(viewer, event, _redacted)


def _redacted(event: Event, seat: int | None) -> Event:
    """Returns ``event`` as seen by ``seat`` (None for a spectator)."""
    match event:
        case RoundDealt():
            hands = own_only(event.hands, seat)
            return replace(event, hands=hands, draw_pile=())
        case CardDrawn():
            return event if event.seat == seat else replace(event, card=None)
        case (
            DiscardTaken()
            | MatchMade()
            | MatchUpgraded()
            | NegativeMarked()
            | StrongBonusDeclined()
            | WeakBonusResolved()
            | CardDiscarded()
            | RoundEnded()
            | LateMeldFinished()
            | RoundScored()
            | GameEnded()
        ):
            # Played, discarded and taken cards are public; RoundScored shows
            # the hands left (§4.9).
            return event
        case _:
            assert_never(event)
