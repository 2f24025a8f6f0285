"""``decide``, whose turn it is, the undo verdicts and the outcome."""

from __future__ import annotations

from typing import assert_never

from domain.common.decision import Accepted, Decision
from domain.common.rng import Rng
from domain.common.rules import Outcome
from tests.example_game.checks import (
    check_in_hand,
    check_in_play,
    check_pile,
    check_turn,
)
from tests.example_game.events import (
    CardDrawn,
    CardPlayed,
    Event,
    GameEnded,
    TurnPassed,
)
from tests.example_game.model import Command, DrawCard, Pass, PlayCard, State
from tests.example_game.scoring import ranked


def decide(state: State, command: Command, rng: Rng) -> Decision[Event]:
    """Returns the events a command produces, or why it is refused."""
    del rng  # the deal drew everything; a draw takes the pile's top
    refused = check_in_play(state) or check_turn(state, command.seat)
    if refused is not None:
        return refused
    match command:
        case PlayCard():
            refused = check_in_hand(state, command.seat, command.card)
            if refused is not None:
                return refused
            return Accepted((CardPlayed(command.seat, command.card),))
        case DrawCard():
            refused = check_pile(state)
            if refused is not None:
                return refused
            return Accepted((CardDrawn(command.seat, state.pile[0]),))
        case Pass():
            if state.passes + 1 < state.players:
                return Accepted((TurnPassed(command.seat),))
            # Every seat passed in a row: the game ends and shows the hands.
            return Accepted((TurnPassed(command.seat), GameEnded(state.hands)))
        case _:
            assert_never(command)


def to_move(state: State) -> tuple[int, ...]:
    """Returns the seat the game waits for, none before the deal or after the end."""
    return (state.to_move,) if state.dealt and not state.finished else ()


def self_undoable(events: tuple[Event, ...]) -> bool:
    """Only a pass that ended nothing reveals nothing, so its mover may take it back."""
    return all(isinstance(event, TurnPassed) for event in events)


def reveals_to_others(events: tuple[Event, ...]) -> bool:
    """The end shows every hand left; a played card was the mover's to show."""
    return any(isinstance(event, GameEnded) for event in events)


def leaders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats of ``seats`` with the highest total so far."""
    return ranked(state, seats)


def outcome(state: State) -> Outcome:
    """Returns the totals, the winners once over, and whether it is over."""
    everyone = tuple(range(state.players))
    return Outcome(
        scores=tuple(sum(card.value for card in cards) for cards in state.played),
        winners=ranked(state, everyone) if state.finished else (),
        finished=state.finished,
    )
