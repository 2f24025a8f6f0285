"""The example game's refusal predicates; ``decide`` returns the first failure."""

from __future__ import annotations

from domain.common.decision import Rejected, reject
from tests.example_game.model import Card, State


def check_in_play(state: State) -> Rejected | None:
    """Refuses every move before the deal and after the end."""
    if state.dealt and not state.finished:
        return None
    return reject("GAME_NOT_IN_PLAY", "No move is played now.", "example/in_play")


def check_turn(state: State, seat: int) -> Rejected | None:
    """Refuses a move of a seat whose turn it is not."""
    if seat == state.to_move:
        return None
    return reject(
        "NOT_YOUR_TURN",
        f"It is seat {state.to_move}'s turn.",
        "example/turn_order",
        currentPlayer=state.to_move,
    )


def check_in_hand(state: State, seat: int, card: Card) -> Rejected | None:
    """Refuses a card the seat does not hold (without naming what it holds)."""
    if card in state.hands[seat]:
        return None
    return reject("CARD_NOT_IN_HAND", "That card is not in your hand.", "example/hand")


def check_pile(state: State) -> Rejected | None:
    """Refuses a draw from an empty pile."""
    if state.pile:
        return None
    return reject("PILE_EMPTY", "The pile is empty.", "example/draw")
