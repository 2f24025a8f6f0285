"""``Move`` -> the move a request sends, read before its game is loaded."""

from __future__ import annotations

from tabletop.v1 import move_pb2

from domain.common.decision import malformed
from services.api.convert.registry import CONVERTERS
from services.calls import SentMove

# The converter of each member of the ``Move.game`` oneof.
_BY_MEMBER = {converter.move_field: converter for converter in CONVERTERS.values()}


def move_from_request(move: move_pb2.Move) -> SentMove:
    """Returns the game a ``Move`` is for and its command for seat 0.

    The use case gives the command the caller's seat once the game is loaded,
    and refuses a move of another game (or of none) first. A move whose member
    does not read as a command carries why (``MALFORMED_MOVE``) instead.
    """
    member = move.WhichOneof("game")
    converter = _BY_MEMBER.get(member) if member else None
    if member is None or converter is None:
        return SentMove(None, None)
    command = converter.move_from_proto(getattr(move, member), 0, f"move.{member}")
    if isinstance(command, list):
        first = command[0]
        command = malformed(
            "MALFORMED_MOVE",
            f"{first.field}: {first.description}.",
            "table/move_format",
            field=first.field,
        )
    return SentMove(converter.game_type, command)
