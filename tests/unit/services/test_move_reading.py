"""A ``Move`` is read before its game is loaded; the use case checks its game."""

from __future__ import annotations

from tabletop.v1 import move_pb2, qwirkle_pb2

from domain.common.decision import Rejected
from domain.games.qwirkle import PlaceTiles
from services.api.convert.moves import move_from_request
from services.api.convert.registry import CONVERTERS
from services.calls import SentMove
from tests.helpers import qwirkle_placements_message


def test_each_games_moves_are_sent_in_the_member_named_after_its_type() -> None:
    # The use case's GAME_TYPE_MISMATCH names the members after the game types.
    for converter in CONVERTERS.values():
        assert converter.move_field == converter.game_type


def test_a_move_reads_as_its_games_command_for_seat_0() -> None:
    sent = move_from_request(qwirkle_placements_message(1))
    assert sent.game_type == "qwirkle"
    assert isinstance(sent.command, PlaceTiles)
    assert sent.command.seat == 0  # the use case gives it the caller's seat


def test_a_move_of_no_game_names_none() -> None:
    assert move_from_request(move_pb2.Move()) == SentMove(None, None)


def test_a_move_that_does_not_read_carries_its_refusal_and_its_game() -> None:
    tile = qwirkle_pb2.QwirkleTile(
        color=qwirkle_pb2.QWIRKLE_COLOR_RED, shape=qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE
    )
    without_coordinate = qwirkle_pb2.QwirklePlacement(tile=tile)
    move = move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            place_tiles=qwirkle_pb2.QwirklePlaceTiles(placements=[without_coordinate])
        )
    )
    sent = move_from_request(move)
    assert sent.game_type == "qwirkle"
    assert isinstance(sent.command, Rejected)
    assert sent.command.reason == "MALFORMED_MOVE"
    assert sent.command.metadata["field"].startswith("move.qwirkle.place_tiles")
