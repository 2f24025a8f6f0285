"""Every command ``decide`` accepts from a seat: its cards, a draw, a pass."""

from __future__ import annotations

from collections.abc import Iterator

from tests.example_game.model import Command, DrawCard, Pass, PlayCard, State


def legal_moves(state: State, seat: int) -> Iterator[Command]:
    """Yields the seat's moves: each card of the hand, a draw if any, a pass."""
    if not state.dealt or state.finished or seat != state.to_move:
        return
    for card in state.hands[seat]:
        yield PlayCard(seat, card)
    if state.pile:
        yield DrawCard(seat)
    yield Pass(seat)
