"""Table options, the initial state and the opening deal (spec §2, D1, D2).

Randomness (DESIGN §4): the 108 tiles in canonical order (colour red, orange,
yellow, green, blue, purple outer; shape circle, crisscross, diamond, square,
starburst, clover; copy 1..3 inner) are shuffled once with the label
``qwirkle/round-1/shuffle``. Index 0 is the top: seat 0 takes the first six
tiles, seat 1 the next six, and so on; the rest is the bag, top first.
Exchanges use ``qwirkle/round-1/exchange-<k>`` (see ``rules.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.common.decision import Rejected, malformed
from domain.common.rng import Rng
from domain.games.qwirkle.events import Event, StartingPlayerChosen, TilesDealt
from domain.games.qwirkle.model import (
    COPIES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RACK_SIZE,
    Color,
    Phase,
    QwirkleConfig,
    Shape,
    State,
    Tile,
    frozen_board,
)

SHUFFLE_LABEL = "qwirkle/round-1/shuffle"


def check_config(config: QwirkleConfig, players: int) -> Rejected | None:
    """Returns why a table cannot start with these options, or None (D1)."""
    del config  # no options yet: every QwirkleConfig is valid
    if MIN_PLAYERS <= players <= MAX_PLAYERS:
        return None
    return malformed(
        "PLAYER_COUNT_OUT_OF_RANGE",
        f"Qwirkle takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.",
        "qwirkle/player_count",
        minPlayers=MIN_PLAYERS,
        maxPlayers=MAX_PLAYERS,
        players=players,
    )


def initial_state(players: int, config: QwirkleConfig) -> State:
    """Returns the state before the deal: empty grid, racks and bag."""
    return State(
        players=players,
        config=config,
        phase=Phase.SETUP,
        board=frozen_board({}),
        racks=((),) * players,
        bag=(),
        scores=(0,) * players,
        to_move=0,
        starting_numbers=(),
        exchanges=0,
        end_reason=None,
    )


def canonical_tiles() -> tuple[Tile, ...]:
    """Returns the 108 tiles in the canonical order of DESIGN §4."""
    return tuple(Tile(c, s) for c in Color for s in Shape for _ in range(COPIES))


def starting_number(rack: Sequence[Tile]) -> int:
    """Returns k: the most distinct rack tiles sharing one colour or shape (§2)."""
    kinds = set(rack)
    by_color = [sum(1 for t in kinds if t.color == c) for c in Color]
    by_shape = [sum(1 for t in kinds if t.shape == s) for s in Shape]
    return max(*by_color, *by_shape)


def starting_seat(starting_numbers: Sequence[int]) -> int:
    """Returns the seat with the largest k, the lowest such seat on a tie (D2)."""
    return starting_numbers.index(max(starting_numbers))


def setup(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the opening events: the deal, then the starting player (§2)."""
    tiles = tuple(rng.shuffle(SHUFFLE_LABEL, canonical_tiles()))
    racks = tuple(
        tiles[seat * RACK_SIZE : (seat + 1) * RACK_SIZE]
        for seat in range(state.players)
    )
    bag = tiles[state.players * RACK_SIZE :]
    numbers = tuple(starting_number(rack) for rack in racks)
    return (
        TilesDealt(
            racks=racks,
            rack_sizes=tuple(len(rack) for rack in racks),
            bag=bag,
            bag_size=len(bag),
        ),
        StartingPlayerChosen(starting_numbers=numbers, seat=starting_seat(numbers)),
    )
