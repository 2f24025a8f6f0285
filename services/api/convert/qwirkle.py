"""Qwirkle's departures from the converter's rules: a tile's cell is ``at``."""

from __future__ import annotations

from typing import Any

from domain.games.qwirkle import RULES, Pass, Placement, QwirkleView, Tile
from services.api.convert.base import Declaration
from services.api.convert.mapping import Mapper, Shape
from services.api.errors import FieldViolation


def _placement(message: Any, path: str) -> Placement | list[FieldViolation]:
    """Reads a placement: its tile and its cell are required before anything."""
    for required in ("tile", "at"):
        if not message.HasField(required):
            return [FieldViolation(f"{path}.{required}", "is required")]
    tile = MAPPER.read(message.tile, Tile, f"{path}.tile")
    return (
        tile if isinstance(tile, list) else Placement(tile, message.at.x, message.at.y)
    )


MAPPER = Mapper(
    shapes={
        Placement: Shape(renames={"x": "at.x", "y": "at.y"}),
        QwirkleView: Shape(renames={"racks": "public_state.revealed_racks"}),
    },
    parsers={Placement: _placement},
    errors={
        "QwirkleTile.color": "must be a Qwirkle colour",
        "QwirkleTile.shape": "must be a Qwirkle shape",
    },
)
DECLARED = Declaration(RULES, MAPPER, renamed={Pass: "pass_turn"})
