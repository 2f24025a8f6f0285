"""Table options, the initial state, the deck and each round's deal (spec §3).

Randomness (DESIGN §4): round r shuffles the 104 cards in canonical order (rank
A, 2..10, J, Q, K; suit H, D, C, S; half L, R) with the label
``split/round-<r>/shuffle``, r from 1. Index 0 is the top: seat 0 takes the
first block of 9 cards, seat 1 the next, and so on; the next card starts the
discard row and the rest is the draw pile, its top first. Hands are recorded in
canonical order. Split has no other random step.
"""

from __future__ import annotations

from domain.common.decision import Rejected, malformed
from domain.common.rng import Rng
from domain.common.seats import next_seat
from domain.games.split.cards import (
    Card,
    Half,
    Rank,
    Suit,
    sorted_cards,
)
from domain.games.split.events import (
    Event,
    RoundDealt,
)
from domain.games.split.model import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Phase,
    SplitConfig,
    State,
)

# §1.1: every rank x suit x half once, in canonical order; D16: no reference cards.
DECK: tuple[Card, ...] = tuple(
    Card(rank, suit, half) for rank in Rank for suit in Suit for half in Half
)


def shuffle_label(round_number: int) -> str:
    """Returns the random label of round ``round_number``'s shuffle (DESIGN §4)."""
    return f"split/round-{round_number}/shuffle"


def check_config(config: SplitConfig, players: int) -> Rejected | None:
    """Returns why a table cannot start with these options, or None."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return malformed(
            "PLAYER_COUNT_OUT_OF_RANGE",
            f"Split takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.",
            "split/player_count",
            minPlayers=MIN_PLAYERS,
            maxPlayers=MAX_PLAYERS,
            players=players,
        )
    if not 0 <= config.first_dealer < players:
        return malformed(
            "FIRST_DEALER_OUT_OF_RANGE",
            f"The first dealer must be a seat from 0 to {players - 1}, "
            f"not {config.first_dealer}.",
            "split/first_dealer",
            firstDealer=config.first_dealer,
            players=players,
        )
    return None


def initial_state(players: int, config: SplitConfig) -> State:
    """Returns the state before the first deal: empty sheets (§1.3, §3)."""
    dealer = config.first_dealer % players  # D20: counted round the seats taken
    return State(
        players=players,
        config=config,
        phase=Phase.SETUP,
        round=0,
        dealer=dealer,
        current=next_seat(dealer, players),
        hands=((),) * players,
        draw_pile=(),
        discard_row=(),
        matches=(),
        next_match_id=1,
        pending=None,
        turns=(0,) * players,
        late_melders=(),
        marks=((0,) * len(Rank),) * players,
        negatives=(0,) * players,
        next_dealer=dealer,
        winners=(),
    )


def deal(players: int, round_number: int, dealer: int, rng: Rng) -> RoundDealt:
    """Returns round ``round_number``'s deal, ``dealer`` dealing (§3)."""
    cards = rng.shuffle(shuffle_label(round_number), DECK)
    hands = tuple(
        sorted_cards(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])
        for seat in range(players)
    )
    rest = cards[players * HAND_SIZE :]
    return RoundDealt(
        round=round_number,
        dealer=dealer,
        first_player=next_seat(dealer, players),
        hands=hands,
        hand_sizes=tuple(len(hand) for hand in hands),
        discard=rest[0],
        draw_pile=tuple(rest[1:]),
        draw_pile_size=len(rest) - 1,
    )


def setup(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the opening events: the first round's deal."""
    return (deal(state.players, 1, state.dealer, rng),)
