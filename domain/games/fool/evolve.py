"""``evolve``: the state after one event. Total over events, pure, never random."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from domain.common.seats import next_seat
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.model import Phase, State, TrickCard, without


def evolve(state: State, event: Event) -> State:
    """Returns the state after ``event``."""
    new: State
    match event:
        case HandsDealt():
            new = _dealt(state, event)
        case CardPlayed():
            new = _played(state, event)
        case TrickResolved():
            new = _resolved(state, event)
        case RoundScored():
            # §4.1: the hands stay as they are (shown in the event) until the deal.
            new = replace(
                state,
                phase=Phase.ROUND_OVER,
                participants=(),
                scores=event.totals,
                ten_counts=event.ten_counts,
            )
        case GameEnded():
            new = replace(state, phase=Phase.GAME_OVER, end_reasons=event.reasons)
        case _:
            assert_never(event)
    return new


def participants(players: int, leader: int, fools: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats without a disc, clockwise from the leader (§3.1)."""
    order = [leader]
    while len(order) < players:
        order.append(next_seat(order[-1], players))
    return tuple(seat for seat in order if seat not in fools)


def _dealt(state: State, event: HandsDealt) -> State:
    # D7: the discs go back to the centre; everybody plays the first trick.
    return replace(
        state,
        phase=Phase.PLAY,
        round=event.round,
        dealer=event.dealer,
        leader=event.leader,
        hands=event.hands,
        participants=participants(state.players, event.leader, ()),
        trick=(),
        fools=(),
        played=(),
    )


def _played(state: State, event: CardPlayed) -> State:
    seat = event.seat
    hand = without(state.hands[seat], event.card)
    return replace(
        state,
        hands=(*state.hands[:seat], hand, *state.hands[seat + 1 :]),
        trick=(*state.trick, TrickCard(seat, event.card)),
    )


def _resolved(state: State, event: TrickResolved) -> State:
    # §3.3: discs move to the new Fools; the winner leads the next trick.
    return replace(
        state,
        leader=event.winner,
        participants=participants(state.players, event.winner, event.fools),
        trick=(),
        fools=event.fools,
        played=state.played + tuple(t.card for t in event.cards),
    )
