"""Qwirkle bot: the placement that scores most; a trade only when nothing fits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.games.qwirkle.model import (
    END_BONUS,
    Cell,
    Command,
    ExchangeTiles,
    PlaceTiles,
    Tile,
    without,
)
from domain.games.qwirkle.scoring import score_placement
from domain.games.qwirkle.views import QwirkleView

NAME = "qwirkle"


def choose(view: QwirkleView, moves: Sequence[Command]) -> Command:
    """Returns the top-scoring placement, else the best exchange, else a pass."""
    board = {p.cell: p.tile for p in view.public.board}
    rack = () if view.private is None else view.private.rack
    bag_size = view.public.bag_size
    placements = [m for m in moves if isinstance(m, PlaceTiles)]
    if placements:
        return max(placements, key=lambda m: _placement_rank(board, m, rack, bag_size))
    exchanges = [m for m in moves if isinstance(m, ExchangeTiles)]
    if exchanges:
        return max(exchanges, key=lambda m: _exchange_rank(rack, m))
    return moves[0]


def placement_points(
    board: Mapping[Cell, Tile],
    move: PlaceTiles,
    rack: Sequence[Tile],
    bag_size: int,
) -> int:
    """Returns what a placement scores, the end bonus included (§5.1)."""
    points = score_placement(board, move.placements).points
    if bag_size == 0 and len(move.placements) == len(rack):
        points += END_BONUS
    return points


def _placement_rank(
    board: Mapping[Cell, Tile],
    move: PlaceTiles,
    rack: Sequence[Tile],
    bag_size: int,
) -> tuple[int, int]:
    """Ranks a placement by points, then by tiles laid (more fresh draws)."""
    return (placement_points(board, move, rack, bag_size), len(move.placements))


def line_potential(tiles: Sequence[Tile]) -> int:
    """Returns the most distinct tiles that share one colour or one shape."""
    kinds = set(tiles)
    groups = [{t for t in kinds if t.color is c} for c in {t.color for t in kinds}]
    groups += [{t for t in kinds if t.shape is s} for s in {t.shape for t in kinds}]
    return max((len(group) for group in groups), default=0)


def _exchange_rank(rack: Sequence[Tile], move: ExchangeTiles) -> tuple[int, int]:
    """Ranks an exchange: keep the best line-to-be, trade everything else."""
    kept = without(tuple(rack), move.tiles)
    return (line_potential(kept), len(move.tiles))
