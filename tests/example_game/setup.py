"""Table options, the state before the deal, and the deal.

Randomness: the deck is shuffled once, in canonical order (suits as listed,
then value), with the label ``example/round-1/shuffle``. Seat 0 takes the first
block of cards, seat 1 the next, and so on; the rest is the pile, top first.
"""

from __future__ import annotations

from domain.common.decision import Rejected, malformed
from domain.common.rng import Rng
from tests.example_game.events import Event, HandsDealt
from tests.example_game.model import (
    DECK,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ExampleConfig,
    State,
)


def check_config(config: ExampleConfig, players: int) -> Rejected | None:
    """Returns why a table cannot start with these options, or None."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return malformed(
            "PLAYER_COUNT_OUT_OF_RANGE",
            f"The example game takes {MIN_PLAYERS} to {MAX_PLAYERS} players.",
            "example/player_count",
            players=players,
        )
    if not 0 <= config.first_player < players:
        return malformed(
            "FIRST_PLAYER_OUT_OF_RANGE",
            f"The first player must be a seat from 0 to {players - 1}.",
            "example/first_player",
            firstPlayer=config.first_player,
        )
    return None


def initial_state(players: int, config: ExampleConfig) -> State:
    """Returns the state before the deal."""
    return State(
        players=players,
        config=config,
        dealt=False,
        finished=False,
        to_move=config.first_player % players,
        hands=((),) * players,
        pile=(),
        played=((),) * players,
        passes=0,
    )


def setup(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the opening event: the deal."""
    cards = rng.shuffle("example/round-1/shuffle", DECK)
    dealt = state.players * HAND_SIZE
    hands = tuple(
        tuple(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])
        for seat in range(state.players)
    )
    return (HandsDealt(hands, tuple(cards[dealt:]), len(cards) - dealt),)
