"""Totals and the ranking: the highest total of the cards played wins."""

from __future__ import annotations

from domain.common.rules import top_seats
from tests.example_game.model import State


def total(state: State, seat: int) -> int:
    """Returns the sum of the values of the cards ``seat`` played."""
    return sum(card.value for card in state.played[seat])


def ranked(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats of ``seats`` with the highest total (several on a tie)."""
    return top_seats(seats, lambda seat: (total(state, seat),))
