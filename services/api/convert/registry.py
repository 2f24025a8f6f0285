"""Game type -> its proto conversions."""

from __future__ import annotations

from collections.abc import Mapping

from tabletop.v1 import game_pb2

from services.api.convert import fool, gnoming_a_round, hues_and_cues, qwirkle, split
from services.api.convert.base import GameConverter

CONVERTERS: Mapping[str, GameConverter] = {
    converter.game_type: converter
    for converter in (
        qwirkle.CONVERTER,
        hues_and_cues.CONVERTER,
        fool.CONVERTER,
        gnoming_a_round.CONVERTER,
        split.CONVERTER,
    )
}
_BY_PROTO = {converter.proto_type: converter for converter in CONVERTERS.values()}


def converter_for(game_type: str) -> GameConverter:
    """Returns the converter of a game type played by this server."""
    return CONVERTERS[game_type]


def converter_for_proto(proto_type: game_pb2.GameType) -> GameConverter | None:
    """Returns the converter for a ``GameType`` enum value, None if unknown."""
    return _BY_PROTO.get(proto_type)
