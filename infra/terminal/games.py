"""The games this client knows, and what a server says it plays.

One naming rule ties a game's names together. Its name, ``hues_and_cues`` (the
name of its rules on the server), is ``GAME_TYPE_HUES_AND_CUES`` in the
``GameType`` enum, the ``hues_and_cues`` member of ``Move.game`` and of
``GameEvent.event``, ``hues_and_cues_config`` in ``Game.config``,
``hues_and_cues_view`` in ``Game.view``, and ``hues-and-cues`` on the command
line. The games the client knows offline are the values of the generated enum;
what a server plays, with display names and player counts, is its
``ListGameTypes`` answer (a ``Catalogue``), asked once per connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from tabletop.v1 import game_pb2, game_type_pb2

ENUM_PREFIX = "GAME_TYPE_"
CONFIG_SUFFIX = "_config"
VIEW_SUFFIX = "_view"

# GameType value -> the game's name, for every game type these stubs define.
NAMES: Mapping[int, str] = MappingProxyType(
    {
        value.number: value.name.removeprefix(ENUM_PREFIX).lower()
        for value in game_pb2.GameType.DESCRIPTOR.values
        if value.number != game_pb2.GAME_TYPE_UNSPECIFIED
    }
)


def name_of(game_type: int) -> str:
    """Returns the name of a game type, empty when these stubs do not define it."""
    return NAMES.get(game_type, "")


def enum_name(name: str) -> str:
    """Returns the ``GameType`` value name of a game: ``GAME_TYPE_HUES_AND_CUES``."""
    return f"{ENUM_PREFIX}{name.upper()}"


def config_member(name: str) -> str:
    """Returns the ``Game.config`` member of a game: ``hues_and_cues_config``."""
    return f"{name}{CONFIG_SUFFIX}"


def view_member(name: str) -> str:
    """Returns the ``Game.view`` member of a game: ``hues_and_cues_view``."""
    return f"{name}{VIEW_SUFFIX}"


def spelled(name: str) -> str:
    """Returns a game's name as the command line takes it: ``hues-and-cues``."""
    return name.replace("_", "-")


def key(text: str) -> str:
    """Returns the name a typed game means: ``Hues and Cues``, ``Fool!``, ``split``."""
    return "_".join(text.strip().lower().rstrip("!").replace("-", " ").split())


def info_name(info: game_type_pb2.GameTypeInfo) -> str:
    """Returns the name of a game type a server plays, known to these stubs or not.

    A game type newer than the stubs is named by its ``Game.config`` member.
    """
    known = name_of(info.game_type)
    if known:
        return known
    return (
        info.config_field.removesuffix(CONFIG_SUFFIX) or f"game_type_{info.game_type}"
    )


def display_name(game_type: int, info: game_type_pb2.GameTypeInfo | None) -> str:
    """Returns a game type's display name, from the server's catalogue if it has one."""
    if info is not None and info.display_name:
        return info.display_name
    name = name_of(game_type)
    return name.replace("_", " ").title() if name else f"Game type {game_type}"


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The game types a server plays, as its ``ListGameTypes`` lists them."""

    game_types: tuple[game_type_pb2.GameTypeInfo, ...] = ()

    def info(self, game_type: int) -> game_type_pb2.GameTypeInfo | None:
        """Returns what the server says of a game type, None if it does not play it."""
        for info in self.game_types:
            if info.game_type == game_type:
                return info
        return None

    def display_name(self, game_type: int) -> str:
        """Returns the game type's display name, as the server gives it."""
        return display_name(game_type, self.info(game_type))

    def find(self, text: str) -> game_type_pb2.GameTypeInfo | None:
        """Returns the game type a typed name or display name means, None if none."""
        wanted = key(text)
        for info in self.game_types:
            if wanted in (info_name(info), key(info.display_name)):
                return info
        return None

    def spelled_names(self) -> list[str]:
        """Returns the names the command line takes, in the server's order."""
        return [spelled(info_name(info)) for info in self.game_types]
