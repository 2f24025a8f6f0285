"""``evolve``: the state after one event. Total over events, pure, never random."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from tests.example_game.events import (
    CardDrawn,
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    TurnPassed,
)
from tests.example_game.model import Card, State


def evolve(state: State, event: Event) -> State:
    """Returns the state after ``event``."""
    turn = (state.to_move + 1) % state.players
    match event:
        case HandsDealt():
            return replace(state, dealt=True, hands=event.hands, pile=event.pile)
        case CardPlayed():
            hand = tuple(c for c in state.hands[event.seat] if c != event.card)
            played = (*state.played[event.seat], event.card)
            return replace(
                state,
                to_move=turn,
                hands=_with(state.hands, event.seat, hand),
                played=_with(state.played, event.seat, played),
                passes=0,
            )
        case CardDrawn():
            hand = (*state.hands[event.seat], state.pile[0])
            return replace(
                state,
                to_move=turn,
                hands=_with(state.hands, event.seat, hand),
                pile=state.pile[1:],
                passes=0,
            )
        case TurnPassed():
            return replace(state, to_move=turn, passes=state.passes + 1)
        case GameEnded():
            return replace(state, finished=True)
        case _:
            assert_never(event)


def _with(
    rows: tuple[tuple[Card, ...], ...], seat: int, row: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """Returns ``rows`` with the row of ``seat`` replaced."""
    return (*rows[:seat], row, *rows[seat + 1 :])
