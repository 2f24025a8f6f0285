"""``evolve``: the state after one event. Total over events, pure, never random."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

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
from domain.games.gnoming_a_round.model import Layout, Phase, Slot, State, placed


def evolve(state: State, event: Event) -> State:  # noqa: C901, PLR0912
    """Returns the state after ``event``."""
    match event:
        case RoundDealt():
            return _dealt(state, event)
        case InitialCardsFlipped():
            flipped = _flipped(state, event.seat, event.positions)
            return replace(flipped, flipped=(*state.flipped, event.seat))
        case TurnStarted():
            return _turn_started(state, event.seat)
        case DrawPileReshuffled():
            return _reshuffled(state, event)
        case CardDrawn():
            return _in_hand(state, state.draw_pile[0], drawn=True, phase=Phase.DECIDE)
        case DiscardTaken():
            return _taken(state, event)
        case CardKept() | CardBounced():
            return _placed(state, event)
        case CardRejected() | BounceStopped():
            return replace(state, phase=Phase.DISCARD)
        case CardDiscarded():
            pile = (*state.pile(event.pile), event.card)
            discards = _with_pile(state, event.pile, pile)
            return _emptied_hand(replace(state, discards=discards))
        case HazardRemoved():
            return _hazard_removed(state, event)
        case HazardFlipped():
            flipped = _flipped(state, event.seat, (event.position,))
            return replace(flipped, answered=(*state.answered, event.seat))
        case HazardDeclined():
            return replace(state, answered=(*state.answered, event.seat))
        case HazardTurnedUp():
            removed = (*state.removed, event.card)
            return replace(state, draw_pile=state.draw_pile[1:], removed=removed)
        case DiscardPileRefilled():
            discards = _with_pile(state, event.pile, (event.card,))
            return replace(state, draw_pile=state.draw_pile[1:], discards=discards)
        case RoundEndTriggered():
            return replace(state, trigger=event.seat)
        case RoundScored():
            return _scored(state, event)
        case GameEnded():
            return _ended(state, event)
        case _:
            assert_never(event)


def _turn_started(state: State, seat: int) -> State:
    new = replace(state, phase=Phase.DRAW, active=seat, filled=(), asked=())
    return _emptied_hand(replace(new, answered=()))


def _reshuffled(state: State, event: DrawPileReshuffled) -> State:
    # D8: every pile keeps only its top card; the rest became the draw pile.
    discards = tuple(pile[-1:] for pile in state.discards)
    return replace(
        state, discards=discards, draw_pile=event.draw_pile, reshuffles=event.number
    )


def _in_hand(state: State, card: Card, *, drawn: bool, phase: Phase) -> State:
    draw_pile = state.draw_pile[1:] if drawn else state.draw_pile
    return replace(
        state, phase=phase, draw_pile=draw_pile, in_hand=card, in_hand_drawn=drawn
    )


def _taken(state: State, event: DiscardTaken) -> State:
    discards = _with_pile(state, event.pile, state.pile(event.pile)[:-1])
    taken = replace(state, discards=discards)
    return _in_hand(taken, event.card, drawn=False, phase=Phase.DECIDE)


def _hazard_removed(state: State, event: HazardRemoved) -> State:
    # The phase lasts only while someone is asked; otherwise END_OF_TURN's
    # events follow in the same decision.
    new = _emptied_hand(replace(state, removed=(*state.removed, event.card)))
    return replace(new, phase=Phase.HAZARD_RESPONSES, asked=event.responders)


def _ended(state: State, event: GameEnded) -> State:
    return replace(
        state, phase=Phase.GAME_OVER, totals=event.totals, winners=event.winners
    )


def _dealt(state: State, event: RoundDealt) -> State:
    layouts = tuple(
        tuple(Slot(card, face_up=False) for card in cards) for cards in event.layouts
    )
    return replace(
        state,
        phase=Phase.INITIAL_FLIP,
        round=event.round,
        starting_seat=event.starting_seat,
        active=event.starting_seat,
        layouts=layouts,
        draw_pile=event.draw_pile,
        discards=tuple((card,) for card in event.discards),
        removed=event.removed,
        in_hand=None,
        in_hand_drawn=False,
        filled=(),
        flipped=(),
        asked=(),
        answered=(),
        trigger=None,
        reshuffles=0,
    )


def _with_layout(state: State, seat: int, layout: Layout) -> tuple[Layout, ...]:
    return (*state.layouts[:seat], layout, *state.layouts[seat + 1 :])


def _with_pile(
    state: State, number: int, pile: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    piles = list(state.discards)
    piles[number - 1] = pile
    return tuple(piles)


def _flipped(state: State, seat: int, positions: tuple[int, ...]) -> State:
    layout = state.layouts[seat]
    for position in positions:
        layout = placed(layout, position, layout[position].card)
    return replace(state, layouts=_with_layout(state, seat, layout))


def _placed(state: State, event: CardKept | CardBounced) -> State:
    layout = placed(state.layouts[event.seat], event.position, event.card)
    return replace(
        state,
        phase=Phase.BOUNCE if event.bounce_eligible else Phase.DISCARD,
        layouts=_with_layout(state, event.seat, layout),
        in_hand=event.displaced,
        in_hand_drawn=False,
        filled=(*state.filled, event.position),
    )


def _emptied_hand(state: State) -> State:
    return replace(state, in_hand=None, in_hand_drawn=False)


def _scored(state: State, event: RoundScored) -> State:
    # §4.1: every face-down card is turned face up where it lies.
    layouts = tuple(
        tuple(Slot(card, face_up=True) for card in cards) for cards in event.layouts
    )
    return replace(
        state,
        layouts=layouts,
        round_scores=(*state.round_scores, event.scores),
        totals=event.totals,
    )
