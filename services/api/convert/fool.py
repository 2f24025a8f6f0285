"""Fool!'s departures from the converter's rules: a wild card's colour is WILD."""

from __future__ import annotations

from tabletop.v1 import fool_pb2

from domain.games.fool import RULES, Card, Color, FoolView
from services.api.convert.base import Declaration
from services.api.convert.mapping import Mapper, Shape
from services.api.errors import FieldViolation

_WILD = fool_pb2.FOOL_COLOR_WILD
_COLOR_OF = {
    fool_pb2.FoolColor.Value(f"FOOL_COLOR_{color.name}"): color for color in Color
}


def _card(message: fool_pb2.FoolCard, path: str) -> Card | list[FieldViolation]:
    """Reads a card; whether it exists and is in the hand is for the rules."""
    if message.color != _WILD and message.color not in _COLOR_OF:
        return [FieldViolation(f"{path}.color", "must be a Fool! colour or WILD")]
    return Card(_COLOR_OF.get(message.color), message.value, message.copy)


DECLARED = Declaration(
    RULES,
    Mapper(
        shapes={
            Card: Shape(computed={"color": lambda card, _: card.color or "WILD"}),
            FoolView: Shape(renames={"hands": "public_state.revealed_hands"}),
        },
        parsers={Card: _card},
    ),
)
