"""Table options, the initial state, the cards in play and each round's deal.

Randomness (DESIGN §4): round r shuffles the cards in play for the player count
(§2.1) in canonical order (green ascending, red, yellow, blue, then wild 1s by
copy) with the label ``fool/round-<r>/shuffle``, r from 1. Index 0 is the top:
seat 0 takes the first block of 12 cards (11 with 8 players), seat 1 the next,
and so on; every card is dealt. Hands are recorded in canonical order (D15).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from domain.common.decision import Rejected, malformed
from domain.common.rng import Rng
from domain.common.seats import next_seat
from domain.games.fool.events import Event, HandsDealt
from domain.games.fool.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Card,
    Color,
    FoolConfig,
    Phase,
    State,
    sorted_cards,
    wild,
)

# Spec §2.1 (D2): players -> highest value of green, red, yellow, blue; wild 1s.
CARDS_IN_PLAY: Mapping[int, tuple[tuple[int, int, int, int], int]] = MappingProxyType(
    {
        4: ((17, 13, 11, 8), 3),
        5: ((20, 16, 14, 10), 4),
        6: ((23, 19, 17, 12), 5),
        7: ((26, 22, 20, 14), 6),
        8: ((27, 23, 21, 15), 6),
    }
)
LOWEST_COLOURED = 2  # §1.1: every suit starts at 2


def shuffle_label(round_number: int) -> str:
    """Returns the random label of round ``round_number``'s shuffle (DESIGN §4)."""
    return f"fool/round-{round_number}/shuffle"


def check_config(config: FoolConfig, players: int) -> Rejected | None:
    """Returns why a table cannot start with these options, or None."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return malformed(
            "PLAYER_COUNT_OUT_OF_RANGE",
            f"Fool! takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.",
            "fool/player_count",
            minPlayers=MIN_PLAYERS,
            maxPlayers=MAX_PLAYERS,
            players=players,
        )
    if not 0 <= config.first_dealer < players:
        return malformed(
            "FIRST_DEALER_OUT_OF_RANGE",
            f"The first dealer must be a seat from 0 to {players - 1}, "
            f"not {config.first_dealer}.",
            "fool/first_dealer",
            firstDealer=config.first_dealer,
            players=players,
        )
    return None


def initial_state(players: int, config: FoolConfig) -> State:
    """Returns the state before the first deal: no hands, all scores 0 (§2.2)."""
    # D16: a table that starts with fewer seats than it allowed counts the
    # configured first dealer round the seats actually taken.
    dealer = config.first_dealer % players
    return State(
        players=players,
        config=config,
        phase=Phase.SETUP,
        round=0,
        dealer=dealer,
        leader=next_seat(dealer, players),
        hands=((),) * players,
        participants=(),
        trick=(),
        fools=(),
        played=(),
        scores=(0,) * players,
        ten_counts=(0,) * players,
        end_reasons=(),
    )


@functools.cache
def cards_in_play(players: int) -> tuple[Card, ...]:
    """Returns the cards used by ``players`` in canonical order (§2.1, D2)."""
    highest, wilds = CARDS_IN_PLAY[players]
    coloured = tuple(
        Card(color, value)
        for color, top in zip(Color, highest, strict=True)
        for value in range(LOWEST_COLOURED, top + 1)
    )
    return coloured + tuple(wild(copy) for copy in range(1, wilds + 1))


def hand_size(players: int) -> int:
    """Returns the cards each seat is dealt: all cards in play, shared evenly."""
    return len(cards_in_play(players)) // players


def deal(players: int, round_number: int, dealer: int, rng: Rng) -> HandsDealt:
    """Returns round ``round_number``'s deal, ``dealer`` dealing (§2.2)."""
    cards = rng.shuffle(shuffle_label(round_number), cards_in_play(players))
    size = hand_size(players)
    hands = tuple(
        sorted_cards(cards[seat * size : (seat + 1) * size]) for seat in range(players)
    )
    return HandsDealt(
        round=round_number,
        dealer=dealer,
        leader=next_seat(dealer, players),
        hands=hands,
        hand_sizes=tuple(len(hand) for hand in hands),
    )


def setup(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the opening events: the first round's deal."""
    return (deal(state.players, 1, state.dealer, rng),)
