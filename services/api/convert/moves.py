"""``Move`` -> the domain command of the game being played."""

from __future__ import annotations

from typing import Any

from tabletop.v1 import move_pb2

from domain.common.decision import malformed
from services.api.convert.registry import converter_for
from services.records import GameRecord


def command_from_request(record: GameRecord, move: move_pb2.Move, seat: int) -> Any:
    """Returns the command a ``Move`` asks for, or why it cannot be read."""
    converter = converter_for(record.table.game_type)
    member = move.WhichOneof("game")
    if member != converter.move_field:
        sent = f"move.{member}" if member else "move"
        return malformed(
            "GAME_TYPE_MISMATCH",
            f"This game is {record.table.game_type}; the move must set "
            f"move.{converter.move_field}, not {sent}.",
            "table/game_type",
            field=sent,
            gameType=record.table.game_type,
        )
    path = f"move.{member}"
    command = converter.move_from_proto(getattr(move, member), seat, path)
    if isinstance(command, list):
        first = command[0]
        return malformed(
            "MALFORMED_MOVE",
            f"{first.field}: {first.description}.",
            "table/move_format",
            field=first.field,
        )
    return command
