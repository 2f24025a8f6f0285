"""Qwirkle's departures from the converter's rules: a tile's cell is ``at``."""

from __future__ import annotations

from domain.games.qwirkle import RULES, Pass, Placement, QwirkleView
from services.api.convert.base import Declaration
from services.api.convert.mapping import Mapper, Shape

DECLARED = Declaration(
    RULES,
    Mapper(
        shapes={
            Placement: Shape(renames={"x": "at.x", "y": "at.y"}),
            QwirkleView: Shape(renames={"racks": "public_state.revealed_racks"}),
        },
        errors={
            "QwirkleTile.color": "must be a Qwirkle colour",
            "QwirkleTile.shape": "must be a Qwirkle shape",
        },
    ),
    renamed={Pass: "pass_turn"},
)
