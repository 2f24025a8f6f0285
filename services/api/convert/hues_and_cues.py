"""Hues and Cues' departures from the converter's rules.

A square travels as its name with its row and column, a cue card with its
squares, points as one entry per player, and a guess as its piece; the view is
one flat message, the secret part set only for those who may see it. A square
is read from its name alone, in the one spelling the server writes (D30):
``h15``, ``H 15`` and ``H015`` are refused, naming the spelling to use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.v1 import hues_and_cues_pb2 as pb

from domain.games.hues_and_cues import (
    CARDS,
    RULES,
    CardDrawn,
    DeckShuffled,
    GuessPlaced,
    HuesAndCuesPublic,
    HuesAndCuesSecret,
    HuesAndCuesView,
    PieceScored,
    Square,
    parse_square,
    square_named,
)
from services.api.convert.base import Declaration
from services.api.convert.mapping import Mapper, Shape
from services.api.errors import FieldViolation

# D30: what a square's name must be, said to a client that sends another.
NAME_FORM = (
    "must name a square from A1 to P30 as the server writes it: a capital "
    "letter A to P, then a number 1 to 30 without a leading zero (H15)"
)
_PIECE = {
    "seat": "piece.player",
    "guess_no": "piece.guess_no",
    "square": "piece.square",
}


def _square(message: pb.HuesAndCuesSquare, path: str) -> Square | list[FieldViolation]:
    square = square_named(message.id)
    if square is not None:
        return square
    meant = parse_square(message.id)
    hint = "" if meant is None else f"; {message.id!r} is written {meant}"
    return [FieldViolation(f"{path}.id", f"{NAME_FORM}{hint}")]


def _card(card_id: str | None) -> Mapping[str, Any] | None:
    return (
        None if card_id is None else {"id": card_id, "squares": CARDS[card_id].squares}
    )


DECLARED = Declaration(
    RULES,
    Mapper(
        shapes={
            DeckShuffled: Shape(renames={"cards": "card_ids"}),
            CardDrawn: Shape(computed={"card": lambda e, _: _card(e.card_id)}),
            GuessPlaced: Shape(renames=_PIECE),
            PieceScored: Shape(renames=_PIECE),
            HuesAndCuesView: Shape(renames={"public": "", "secret": ""}),
            HuesAndCuesPublic: Shape(
                renames={"last_scored": "last_round"},
                computed={"cue_giver": lambda p, _: p.cue_giver if p.round else None},
            ),
            HuesAndCuesSecret: Shape(computed={"card": lambda s, _: _card(s.card_id)}),
        },
        parsers={Square: _square},
        errors={"HuesAndCuesMove.action": "set one Hues and Cues action"},
    ),
)
