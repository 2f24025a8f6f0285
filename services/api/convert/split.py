"""Split's departures from the converter's rules: cards by id, the score sheets."""

from __future__ import annotations

from tabletop.v1 import split_pb2

from domain.games.split import (
    RULES,
    Card,
    ChoosePenaltyTarget,
    Match,
    SplitPublic,
    SplitView,
    card_from_id,
)
from domain.games.split.scoring import total
from services.api.convert.base import Declaration
from services.api.convert.mapping import Mapper, Names, Shape
from services.api.errors import FieldViolation


def _card(message: split_pb2.SplitCard, path: str) -> Card | list[FieldViolation]:
    card = card_from_id(message.id)
    if card is None:
        return [FieldViolation(f"{path}.id", "must be a Split card id")]
    return card


def _sheets(public: SplitPublic, _: Names) -> list[split_pb2.SplitScoreSheet]:
    return [
        split_pb2.SplitScoreSheet(
            rows=rows, negatives=negatives, total=total(rows, negatives)
        )
        for rows, negatives in zip(public.marks, public.negatives, strict=True)
    ]


DECLARED = Declaration(
    RULES,
    Mapper(
        shapes={
            ChoosePenaltyTarget: Shape(renames={"target": "target_seat"}),
            Match: Shape(renames={"left": "left_stack", "right": "right_stack"}),
            SplitPublic: Shape(
                renames={"current": "current_player"},
                computed={
                    "pending_bonus": lambda p, _: p.pending and p.pending.type,
                    "pending_match_id": lambda p, _: p.pending and p.pending.match_id,
                    "score_sheets": _sheets,
                },
            ),
            SplitView: Shape(renames={"hands": "public_state.revealed_hands"}),
        },
        parsers={Card: _card},
        errors={"SplitMove.action": "set one Split action"},
    ),
)
