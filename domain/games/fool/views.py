"""What each viewer may see of a state or an event (spec §3.4, D12; DESIGN §5).

A redacted event is the same event class with hidden fields emptied and every
count kept. A seat sees its own hand, nobody else's, until the round's scoring
shows every card left; the deal order is recorded nowhere (D15).
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
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.model import (
    Card,
    Color,
    EndReason,
    Phase,
    State,
    TrickCard,
    discs_in_use,
    lead_color,
)
from domain.games.fool.rules import to_move
from domain.games.fool.setup import cards_in_play


@dataclass(frozen=True, slots=True)
class FoolPublic:
    """What everybody sees (§3.4): the table, the trick, counts, discs, scores."""

    round: int
    dealer: int
    leader: int
    participants: tuple[int, ...]
    trick: tuple[TrickCard, ...]
    lead_color: Color | None
    fools: tuple[int, ...]
    discs: int
    hand_sizes: tuple[int, ...]
    cards_in_play: tuple[Card, ...]
    played: tuple[Card, ...]
    scores: tuple[int, ...]
    ten_counts: tuple[int, ...]
    to_move: tuple[int, ...]
    finished: bool
    end_reasons: tuple[EndReason, ...]


@dataclass(frozen=True, slots=True)
class FoolPrivate:
    """What only the seated viewer sees: their own hand."""

    hand: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class FoolView:
    """A viewer's view; ``hands`` holds every hand for the operator or when shown."""

    public: FoolPublic
    private: FoolPrivate | None
    hands: tuple[tuple[Card, ...], ...] | None


def public_view(state: State) -> FoolPublic:
    """Returns the public part of a state."""
    return FoolPublic(
        round=state.round,
        dealer=state.dealer,
        leader=state.leader,
        participants=state.participants,
        trick=state.trick,
        lead_color=lead_color(state.trick),
        fools=state.fools,
        discs=discs_in_use(state.players),
        hand_sizes=tuple(len(hand) for hand in state.hands),
        cards_in_play=cards_in_play(state.players),
        played=state.played,
        scores=state.scores,
        ten_counts=state.ten_counts,
        to_move=to_move(state),
        finished=state.finished,
        end_reasons=state.end_reasons,
    )


def view(state: State, viewer: Viewer) -> FoolView:
    """Returns what ``viewer`` may see of ``state`` (§3.4)."""
    seat = seated(viewer, state.players)
    private = None if seat is None else FoolPrivate(hand=state.hands[seat])
    # §3.4: the cards left are shown once a round is scored (the game's last
    # round stays shown); the operator sees every hand always.
    shown = state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
    everyone = isinstance(viewer, Operator) or shown
    return FoolView(
        public=public_view(state),
        private=private,
        hands=state.hands if everyone else None,
    )


def visible(event: Event, viewer: Viewer) -> Event | None:
    """Returns ``event`` as ``viewer`` may see it: other hands emptied, sizes kept."""
    return redacted_for(viewer, event, _redacted)


def _redacted(event: Event, seat: int | None) -> Event:
    """Returns ``event`` as seen by ``seat`` (None for a spectator)."""
    match event:
        case HandsDealt():
            hands = own_only(event.hands, seat)
            return replace(event, hands=hands)
        case CardPlayed() | TrickResolved() | RoundScored() | GameEnded():
            # Played cards are public (§3.2); RoundScored shows the hands left.
            return event
        case _:
            assert_never(event)
