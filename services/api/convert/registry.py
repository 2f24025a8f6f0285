"""Game type -> its converter, for every game of ``domain.games.registry``.

A game's departures from the converter's rules are declared in the module of
this package named after the game (``DECLARED``); a game that declares none
needs no module here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from tabletop.v1 import game_pb2

from domain.games.registry import GAMES
from services.api.convert.base import Declaration, GameConverter


def _declared(name: str) -> Declaration:
    try:
        module = importlib.import_module(f"services.api.convert.{name}")
    except ModuleNotFoundError as missing:
        if missing.name != f"services.api.convert.{name}":
            raise
        return Declaration(GAMES[name])
    declared: Declaration = module.DECLARED
    return declared


CONVERTERS: Mapping[str, GameConverter] = {
    name: GameConverter(_declared(name)) for name in GAMES
}
_BY_PROTO = {converter.proto_type: converter for converter in CONVERTERS.values()}


def converter_for(game_type: str) -> GameConverter:
    """Returns the converter of a game type played by this server."""
    return CONVERTERS[game_type]


def converter_for_proto(proto_type: game_pb2.GameType) -> GameConverter | None:
    """Returns the converter for a ``GameType`` enum value, None if unknown."""
    return _BY_PROTO.get(proto_type)
