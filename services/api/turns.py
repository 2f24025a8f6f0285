"""Turn timers and bot moves in the API: the time limit on create, SuggestMove."""

from __future__ import annotations

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from services.api.convert.registry import converter_for
from services.api.errors import ApiError, FieldViolation, bad_request
from services.api.mutations import accepted
from services.api.requests import parse_game_name
from services.games import GamesApp


def turn_seconds(game: game_pb2.Game) -> int:
    """Returns a new game's turn time limit in seconds (0: none).

    Its range is the table's to check; a fraction of a second is refused here.
    """
    if not game.HasField("turn_time_limit"):
        return 0
    limit = game.turn_time_limit
    if limit.nanos:
        raise ApiError(
            bad_request(
                "INVALID_TURN_TIME_LIMIT",
                "game.turn_time_limit must be a whole number of seconds.",
                [FieldViolation("game.turn_time_limit", "has a fraction of a second")],
            )
        )
    return limit.seconds


def suggest_move(
    app: GamesApp, request: api.SuggestMoveRequest, token: str | None
) -> api.SuggestMoveResponse:
    """Returns the bot's move for the caller's seat, chosen from its own view."""
    game_id = parse_game_name(request.name)
    record, move = accepted(app.suggest_move(game_id, token))
    response = api.SuggestMoveResponse(revision=record.revision)
    if move is not None:
        converter = converter_for(record.table.game_type)
        getattr(response.move, converter.move_field).CopyFrom(
            converter.move_to_proto(move)
        )
    return response
