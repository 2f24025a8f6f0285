"""Table options, the initial state and each round's deal (spec §2, D2, D3, D6).

Randomness (DESIGN §4): before round r the 110 cards in canonical order (see
``cards.py``) are shuffled with the label ``gnoming-a-round/round-<r>/shuffle``.
Index 0 is the top: seat 0 takes the first nine cards for positions 0..8, seat 1
the next nine, and so on. The next card starts discard pile 1, the one after
it pile 2 (a hazard met on the way is set aside, D6), and the rest is the draw
pile, top first. Reshuffles use ``gnoming-a-round/round-<r>/reshuffle-<n>``
(see ``steps.py``).
"""

from __future__ import annotations

from domain.common.decision import Rejected, malformed
from domain.common.rng import Rng
from domain.games.gnoming_a_round.cards import CANONICAL, Card, Kind
from domain.games.gnoming_a_round.events import Event, RoundDealt
from domain.games.gnoming_a_round.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PILES,
    POSITIONS,
    GnomingARoundConfig,
    Phase,
    State,
)


def shuffle_label(round_number: int) -> str:
    """Returns the random label of round r's shuffle (DESIGN §4)."""
    return f"gnoming-a-round/round-{round_number}/shuffle"


def check_config(config: GnomingARoundConfig, players: int) -> Rejected | None:
    """Returns why a table cannot start with these options, or None (§2, D2)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return malformed(
            "PLAYER_COUNT_OUT_OF_RANGE",
            f"Gnoming A Round takes {MIN_PLAYERS} to {MAX_PLAYERS} players, "
            f"not {players}.",
            "gnoming_a_round/player_count",
            minPlayers=MIN_PLAYERS,
            maxPlayers=MAX_PLAYERS,
            players=players,
        )
    if not 0 <= config.first_player < players:
        return malformed(
            "INVALID_FIRST_PLAYER",
            f"The first player must be a seat from 0 to {players - 1}, "
            f"not {config.first_player}.",
            "gnoming_a_round/first_player",
            firstPlayer=config.first_player,
            players=players,
        )
    return None


def initial_state(players: int, config: GnomingARoundConfig) -> State:
    """Returns the state before the first deal."""
    return State(
        players=players,
        config=config,
        phase=Phase.SETUP,
        round=0,
        starting_seat=0,
        active=0,
        layouts=((),) * players,
        draw_pile=(),
        discards=((), ()),
        removed=(),
        in_hand=None,
        in_hand_drawn=False,
        filled=(),
        flipped=(),
        asked=(),
        answered=(),
        trigger=None,
        reshuffles=0,
        round_scores=(),
        totals=(0,) * players,
        winners=(),
    )


def first_seat(config: GnomingARoundConfig, players: int) -> int:
    """Returns round 1's starting seat (D3; D24 when fewer seats were filled)."""
    return config.first_player % players


def deal_round(
    players: int, round_number: int, starting_seat: int, rng: Rng
) -> RoundDealt:
    """Returns round r's deal: layouts, the two discard piles, the draw pile."""
    cards = rng.shuffle(shuffle_label(round_number), CANONICAL)
    layouts = tuple(
        tuple(cards[seat * POSITIONS : (seat + 1) * POSITIONS])
        for seat in range(players)
    )
    rest = cards[players * POSITIONS :]
    discards: list[Card] = []
    removed: list[Card] = []
    taken = 0
    while len(discards) < len(PILES):
        card = rest[taken]
        taken += 1
        # D6: a hazard turned up from the draw pile leaves the round without effect.
        (removed if card.kind is Kind.HAZARD else discards).append(card)
    draw_pile = tuple(rest[taken:])
    return RoundDealt(
        round=round_number,
        starting_seat=starting_seat,
        layouts=layouts,
        discards=tuple(discards),
        removed=tuple(removed),
        draw_pile=draw_pile,
        draw_pile_size=len(draw_pile),
    )


def setup(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the opening event: round 1's deal (§2)."""
    return (deal_round(state.players, 1, first_seat(state.config, state.players), rng),)
