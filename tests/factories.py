"""Tiny state builders for tests. Qwirkle helpers are named ``qwirkle_*``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from domain.games.qwirkle.model import (
    Color,
    Phase,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    State,
    Tile,
    frozen_board,
)


def qwirkle_tile(name: str) -> Tile:
    """Returns the tile named ``"<colour>-<shape>"``, e.g. ``"red-circle"``."""
    color, shape = name.split("-")
    return Tile(Color(color), Shape(shape))


def qwirkle_tiles(*names: str) -> tuple[Tile, ...]:
    """Returns the tiles named, in order."""
    return tuple(qwirkle_tile(name) for name in names)


def qwirkle_placements(*cells: tuple[str, int, int]) -> tuple[Placement, ...]:
    """Returns placements from ``(tile name, x, y)`` triples."""
    return tuple(Placement(qwirkle_tile(name), x, y) for name, x, y in cells)


def qwirkle_place(seat: int, *cells: tuple[str, int, int]) -> PlaceTiles:
    """Returns a ``PlaceTiles`` command from ``(tile name, x, y)`` triples."""
    return PlaceTiles(seat=seat, placements=qwirkle_placements(*cells))


def qwirkle_state(
    *,
    board: Iterable[tuple[str, int, int]] = (),
    racks: Iterable[Iterable[str]] = ((), ()),
    bag: Iterable[str] = (),
    scores: Iterable[int] | None = None,
    to_move: int = 0,
    phase: Phase = Phase.TURN,
    starting_numbers: Iterable[int] | None = None,
    exchanges: int = 0,
) -> State:
    """Returns a state with the given grid, racks (one per seat) and bag, top first.

    Tile conservation does not hold for such a state: rules tests need only the
    tiles that matter.
    """
    rack_tiles = tuple(qwirkle_tiles(*rack) for rack in racks)
    players = len(rack_tiles)
    return State(
        players=players,
        config=QwirkleConfig(),
        phase=phase,
        board=frozen_board({p.cell: p.tile for p in qwirkle_placements(*board)}),
        racks=rack_tiles,
        bag=qwirkle_tiles(*bag),
        scores=tuple(scores) if scores is not None else (0,) * players,
        to_move=to_move,
        starting_numbers=(
            tuple(starting_numbers) if starting_numbers is not None else (1,) * players
        ),
        exchanges=exchanges,
        end_reason=None,
    )


# The grid of spec §5.3 after the first move (4 points).
QWIRKLE_EXAMPLE_GRID: tuple[tuple[str, int, int], ...] = (
    ("green-clover", 0, 0),
    ("green-square", 1, 0),
    ("green-circle", 2, 0),
    ("green-diamond", 3, 0),
)

# Tiles that only seat 1 and the bag hold in ``qwirkle_turn_state``.
QWIRKLE_SECRET_TILES = ("purple-starburst", "orange-crisscross", "yellow-clover")


def qwirkle_turn_state(
    *,
    phase: Phase = Phase.TURN,
    racks: tuple[tuple[Tile, ...], ...] | None = None,
    bag: tuple[Tile, ...] | None = None,
    exchanges: int = 0,
) -> State:
    """Returns the §5.3 grid with seat 0 to move and a few secret tiles around."""
    secret = QWIRKLE_SECRET_TILES
    state = qwirkle_state(
        board=QWIRKLE_EXAMPLE_GRID,
        racks=(
            ("red-circle", "blue-circle", "red-square", "red-circle"),
            (secret[0], secret[1]),
        ),
        bag=(secret[2], "blue-diamond", "blue-square"),
        phase=phase,
        exchanges=exchanges,
    )
    return replace(
        state,
        racks=state.racks if racks is None else racks,
        bag=state.bag if bag is None else bag,
    )


def qwirkle_first_move_state() -> State:
    """Returns a state waiting for seat 0's first move, with k = 2."""
    secret = QWIRKLE_SECRET_TILES
    return qwirkle_state(
        racks=(("red-circle", "red-square", "blue-clover"), (secret[0],)),
        bag=(secret[1], secret[2], *["green-diamond"] * 4),
        phase=Phase.FIRST_MOVE,
        starting_numbers=(2, 1),
    )


def qwirkle_empty_bag_state() -> State:
    """Returns the §5.3 grid, an empty bag, and seat 0 unable to place."""
    racks = (qwirkle_tiles("purple-starburst"), qwirkle_tiles("red-circle"))
    return qwirkle_turn_state(racks=racks, bag=())
