"""What every game's conversion module provides."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeAlias, TypeVar, cast

from google.protobuf.message import Message
from tabletop.v1 import game_pb2

from services.api.errors import FieldViolation

P = TypeVar("P", bound=int)
K = TypeVar("K", bound=Enum)

# Turns a seat index into its player resource name, games/{game}/players/{seat}.
Names: TypeAlias = Callable[[int], str]


@dataclass(frozen=True, slots=True)
class Option:
    """A table option as ``ListGameTypes`` describes it."""

    field: str  # the field of the game's config message
    description: str
    default_value: str


@dataclass(frozen=True, slots=True)
class GameConverter:
    """How one game's domain values travel in ``tabletop.v1`` messages.

    The ``*_field`` names are the game's members of the shared oneofs:
    ``Game.config``, ``Move.game``, ``Game.view`` and ``GameEvent.event``.
    """

    game_type: str
    proto_type: game_pb2.GameType
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
    # What ``ListGameTypes`` says about the game.
    display_name: str
    options: tuple[Option, ...]
    self_undo: str  # which moves UndoMove takes back, in plain words
    # Reference data for drawing the game, the ``GameTypeInfo.details`` member
    # named ``move_field``; None when the game needs none.
    details: Callable[[], Message] | None = None


def enum_map(proto_enum: type[P], prefix: str, members: Iterable[K]) -> dict[K, P]:
    """Maps domain enum members to the proto enum values named ``prefix + name``."""
    # A proto enum's ``Value`` is typed as returning a plain int; the value is a
    # member of ``proto_enum`` all the same.
    lookup = cast("Any", proto_enum)
    return {member: cast("P", lookup.Value(prefix + member.name)) for member in members}
