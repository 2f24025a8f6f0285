"""Setup (spec §2, D1, D2, DESIGN §4): options, the deal and the starting player."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.common.decision import Accepted, Rejected, RejectionKind
from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.events import StartingPlayerChosen, TilesDealt, TurnScored
from domain.games.qwirkle.legal import legal_moves
from domain.games.qwirkle.model import (
    Color,
    Phase,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    Tile,
)
from domain.games.qwirkle.setup import (
    SHUFFLE_LABEL,
    canonical_tiles,
    check_config,
    initial_state,
    setup,
    starting_number,
    starting_seat,
)
from tests.factories import qwirkle_tiles

RNG = Rng(bytes(range(32)))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_two_to_six_players_are_accepted(players: int) -> None:
    # D1
    assert check_config(QwirkleConfig(), players) is None


@pytest.mark.parametrize("players", [0, 1, 7])
def test_other_player_counts_are_refused(players: int) -> None:
    refused = check_config(QwirkleConfig(), players)
    assert isinstance(refused, Rejected)
    assert (refused.reason, refused.kind) == (
        "PLAYER_COUNT_OUT_OF_RANGE",
        RejectionKind.MALFORMED,
    )
    assert refused.metadata["players"] == str(players)


def test_the_initial_state_has_nothing_dealt() -> None:
    state = initial_state(3, QwirkleConfig())
    assert (state.phase, dict(state.board), state.bag) == (Phase.SETUP, {}, ())
    assert state.racks == ((), (), ())
    assert state.scores == (0, 0, 0)
    assert RULES.to_move(state) == ()


def test_the_canonical_order_is_colour_then_shape_then_copy() -> None:
    tiles = canonical_tiles()
    assert len(tiles) == 108
    assert tiles[:4] == qwirkle_tiles(
        "red-circle", "red-circle", "red-circle", "red-crisscross"
    )
    assert tiles[18] == Tile(Color.ORANGE, Shape.CIRCLE)
    assert tiles[-1] == Tile(Color.PURPLE, Shape.CLOVER)
    assert set(Counter(tiles).values()) == {3}


@pytest.mark.parametrize("players", [2, 4, 6])
def test_racks_are_dealt_as_blocks_of_six_from_the_shuffled_tiles(players: int) -> None:
    events = setup(initial_state(players, QwirkleConfig()), RNG)
    shuffled = tuple(RNG.shuffle(SHUFFLE_LABEL, canonical_tiles()))
    dealt = events[0]
    assert isinstance(dealt, TilesDealt)
    assert dealt.racks == tuple(shuffled[6 * s : 6 * s + 6] for s in range(players))
    assert dealt.bag == shuffled[6 * players :]
    assert dealt.rack_sizes == (6,) * players
    assert dealt.bag_size == 108 - 6 * players


def test_the_shuffle_uses_the_documented_label() -> None:
    assert SHUFFLE_LABEL == "qwirkle/round-1/shuffle"


def test_setup_opens_the_first_move_for_the_starting_seat() -> None:
    state = initial_state(4, QwirkleConfig())
    events = setup(state, RNG)
    chosen = events[1]
    assert isinstance(chosen, StartingPlayerChosen)
    assert isinstance(events[0], TilesDealt)
    numbers = tuple(starting_number(rack) for rack in events[0].racks)
    assert chosen == StartingPlayerChosen(numbers, starting_seat(numbers))
    after = RULES.fold(state, events)
    assert (after.phase, after.to_move) == (Phase.FIRST_MOVE, chosen.seat)
    assert after.starting_numbers == numbers


@pytest.mark.parametrize(
    ("rack", "k"),
    [
        (("red-circle", "blue-square", "green-clover"), 1),
        (("red-circle", "red-circle", "red-square"), 2),
        (("red-circle", "blue-circle", "green-circle", "red-square"), 3),
        (("red-circle",) * 3 + ("blue-circle",) * 3, 2),
        (
            (
                "purple-circle",
                "purple-crisscross",
                "purple-diamond",
                "purple-square",
                "purple-starburst",
                "purple-clover",
            ),
            6,
        ),
    ],
)
def test_the_starting_number_counts_distinct_tiles_sharing_one_attribute(
    rack: tuple[str, ...], k: int
) -> None:
    # §2: a duplicate of a tile already counted does not count again.
    assert starting_number(qwirkle_tiles(*rack)) == k


def test_the_largest_starting_number_starts() -> None:
    assert starting_seat((1, 3, 2)) == 1


def test_a_tie_of_starting_numbers_goes_to_the_lowest_seat() -> None:
    # D2
    assert starting_seat((2, 3, 1, 3)) == 1
    assert starting_seat((2, 2)) == 0


def test_every_first_move_lays_exactly_k_tiles_covering_the_origin() -> None:
    state = initial_state(3, QwirkleConfig())
    state = RULES.fold(state, setup(state, RNG))
    seat = state.to_move
    k = state.starting_numbers[seat]
    moves = list(legal_moves(state, seat))
    assert moves
    for move in moves:
        assert isinstance(move, PlaceTiles)
        assert len(move.placements) == k
        assert any(p.cell == (0, 0) for p in move.placements)
    decision = RULES.decide(state, moves[0], RNG)
    assert isinstance(decision, Accepted)
    assert isinstance(decision.events[1], TurnScored)
    assert decision.events[1].points == (1 if k == 1 else k)
