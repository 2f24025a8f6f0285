"""What every game's conversion module provides."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from google.protobuf.message import Message

from services.api.errors import FieldViolation

# Turns a seat index into its player resource name, games/{game}/players/{seat}.
Names: TypeAlias = Callable[[int], str]


@dataclass(frozen=True, slots=True)
class GameConverter:
    """How one game's domain values travel in ``tabletop.v1`` messages.

    The ``*_field`` names are the game's members of the shared oneofs:
    ``Game.config``, ``Move.game``, ``Game.view`` and ``GameEvent.event``.
    """

    game_type: str
    proto_type: int
    config_field: str
    move_field: str
    view_field: str
    event_field: str
    config_from_proto: Callable[[Any], Any]
    config_to_proto: Callable[[Any], Message]
    # (game's move message, acting seat, field path) -> command or violations
    move_from_proto: Callable[[Any, int, str], Any | list[FieldViolation]]
    move_to_proto: Callable[[Any], Message]
    view_to_proto: Callable[[Any, Names], Message]
    event_to_proto: Callable[[Any, Names], Message]
