"""A game's converter, derived from its name, its rules and its overrides.

The game named ``hues_and_cues`` is ``GAME_TYPE_HUES_AND_CUES``; its members of
the shared oneofs are ``Game.hues_and_cues_config``, ``Move.hues_and_cues``,
``Game.hues_and_cues_view`` and ``GameEvent.hues_and_cues``; a command or an
event is the member of its game's ``action`` or ``event`` oneof named after
its class in snake case. Everything else is ``services.api.convert.mapping``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2, move_pb2

from domain.common.rules import GameRules
from services.api.convert.mapping import Mapper, Names, members, unset_oneof
from services.api.errors import FieldViolation


@dataclass(frozen=True, slots=True)
class Api:
    """The messages whose oneofs hold each game's members: ``tabletop.v1``'s."""

    game: Any = game_pb2.Game  # config and view
    move: Any = move_pb2.Move
    event: Any = event_pb2.GameEvent
    info: Any = game_type_pb2.GameTypeInfo  # details
    game_type: Any = game_pb2.GameType


@dataclass(frozen=True, slots=True)
class Declaration:
    """What a game's conversion declares beyond the rules: only its departures."""

    rules: GameRules[Any, Any, Any, Any]
    mapper: Mapper = field(default_factory=Mapper)
    # Commands whose ``action`` member is not their class name in snake case.
    renamed: Mapping[type, str] = field(default_factory=dict)
    api: Api = field(default_factory=Api)
    # The seat that takes the first turn, from the state after the opening
    # (``GameStarted.turn_order``); None: the one seat ``to_move`` names then.
    first_turn: Callable[[Any], int] | None = None


def _message(container: Any, member: str) -> Any:
    return GetMessageClass(container.DESCRIPTOR.fields_by_name[member].message_type)


def _no_names(seat: int) -> str:
    msg = f"a command names no player: {seat}"
    raise TypeError(msg)


class GameConverter:
    """How one game's domain values travel in ``tabletop.v1`` messages."""

    def __init__(self, declared: Declaration) -> None:
        rules, self.mapper, api = declared.rules, declared.mapper, declared.api
        self.game_type = rules.name
        self.proto_type: game_pb2.GameType = cast(
            "game_pb2.GameType",
            api.game_type.Value(f"GAME_TYPE_{rules.name.upper()}"),
        )
        self.config_field = f"{rules.name}_config"
        self.view_field = f"{rules.name}_view"
        self.move_field = self.event_field = rules.name
        self.display_name, self.options = rules.title, rules.options
        self.self_undo = rules.self_undo
        self.first_turn = declared.first_turn
        self._details = rules.details
        self._config_type = rules.config_type
        self._config = _message(api.game, self.config_field)
        self._view = _message(api.game, self.view_field)
        self._move = _message(api.move, self.move_field)
        self._event = _message(api.event, self.event_field)
        self._info = api.info
        self._commands = members(tuple(rules.commands.values()), declared.renamed)
        self._command_of = {member: cls for cls, member in self._commands.items()}
        self._events = members(tuple(rules.events.values()))

    def details(self) -> Message | None:
        """Returns the game's reference data (``GameTypeInfo.details``), if any."""
        if self._details is None:
            return None
        message = _message(self._info, self.move_field)()
        return self.mapper.fill(self._details(), message, _no_names)

    def config_from_proto(self, message: Any) -> Any | list[FieldViolation]:
        """Returns the table options, or why they do not read at all.

        ``check_config`` refuses options that read but make no sense.
        """
        return self.mapper.read(message, self._config_type, f"game.{self.config_field}")

    def config_to_proto(self, config: Any) -> Any:
        """Returns the table options message."""
        return self.mapper.fill(config, self._config(), _no_names)

    def move_from_proto(
        self, move: Any, seat: int, path: str
    ) -> Any | list[FieldViolation]:
        """Returns the command a move asks for, or what is wrong with it."""
        action = move.WhichOneof("action")
        if action is None:
            unset = unset_oneof(move, path, self.mapper.errors)
            return [unset] if unset else []
        return self.mapper.read(
            getattr(move, action), self._command_of[action], f"{path}.{action}", seat
        )

    def move_to_proto(self, command: Any) -> Any:
        """Returns the move message of a command (for ListLegalMoves)."""
        move = self._move()
        member = getattr(move, self._commands[type(command)])
        member.SetInParent()
        self.mapper.fill(command, member, _no_names)
        return move

    def view_to_proto(self, view: Any, names: Names) -> Any:
        """Returns the caller's view message."""
        return self.mapper.fill(view, self._view(), names)

    def event_to_proto(self, event: Any, names: Names) -> Any:
        """Returns a (redacted) event message of the game."""
        message = self._event()
        member = getattr(message, self._events[type(event)])
        member.SetInParent()
        self.mapper.fill(event, member, names)
        return message
