"""The RPCs that open a table and start play: CreateGame, JoinGame and StartGame."""

from __future__ import annotations

from typing import Any

import grpc
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from domain.common.seats import Seat
from services.api.auth import signed_in_player
from services.api.convert.game import game_to_proto, player_name
from services.api.convert.registry import converter_for_proto
from services.api.errors import ApiError, FieldViolation, bad_request
from services.api.mutations import accepted, seen_by_caller
from services.api.requests import identify, identify_secret, parse_game_name
from services.calls import Call, CreateGame, JoinGame, SeatRequest
from services.games import GamesApp, Seated


def create_game(
    app: GamesApp, request: api.CreateGameRequest, token: str | None
) -> api.CreateGameResponse:
    """Opens a table and seats the caller in seat 0, as its host.

    Anybody may open a table: the seat token is issued here. A signed-in
    caller's seat is also bound to the account, whose sessions act for it.
    """
    player = signed_in_player(app.sessions, token)
    game = request.game
    converter = converter_for_proto(game.game_type)
    if converter is None:
        raise ApiError(
            bad_request(
                "UNKNOWN_GAME_TYPE",
                "game.game_type must name a game played here, e.g. QWIRKLE.",
                [FieldViolation("game.game_type", "unknown or unspecified")],
            )
        )
    member = game.WhichOneof("config")
    if member not in (None, converter.config_field):
        raise ApiError(_type_mismatch(f"game.{member}", converter.config_field))
    config = converter.config_from_proto(getattr(game, converter.config_field))
    if isinstance(config, list):  # a table option that does not read at all
        first = config[0]
        message = f"{first.field}: {first.description}."
        raise ApiError(bad_request("MALFORMED_CONFIG", message, config))
    private = _private(game)
    opening = CreateGame(
        converter.game_type,
        config,
        game.max_players,
        request.display_name,
        request.seed,
        *identify_secret(request, "CreateGame", None),
        turn_seconds=turn_seconds(game),
        private=private,
        player_id=player,
    )
    seated = accepted(app.create_game(opening))
    return api.CreateGameResponse(
        **_seated_fields(seated), invite_code=seated.invite_code
    )


def join_game(
    app: GamesApp, request: api.JoinGameRequest, token: str | None
) -> api.JoinGameResponse:
    """Seats the caller at a table that has not started (a signed-in caller
    as the account, like ``create_game``)."""
    player = signed_in_player(app.sessions, token)
    game_id = parse_game_name(request.name)
    request_id, fingerprint = identify_secret(request, "JoinGame", None)
    joining = JoinGame(
        game_id,
        request.display_name,
        request_id,
        fingerprint,
        request.invite_code,
        player_id=player,
    )
    seated = accepted(app.join_game(joining))
    return api.JoinGameResponse(**_seated_fields(seated))


def start_game(
    app: GamesApp, request: api.StartGameRequest, token: str | None
) -> api.StartGameResponse:
    """Starts the game for its host: deals and opens play."""
    game_id = parse_game_name(request.name)
    call = Call(token, *identify(request, "StartGame", token))
    applied = accepted(app.start_game(SeatRequest(game_id, call)))
    game, _ = seen_by_caller(app, applied, token)
    return api.StartGameResponse(game=game)


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


def _private(game: game_pb2.Game) -> bool:
    """Tells whether a new table is private (unspecified: public)."""
    if game.visibility not in game_pb2.Visibility.values():
        raise ApiError(
            bad_request(
                "INVALID_VISIBILITY",
                "game.visibility must be VISIBILITY_PUBLIC or "
                "VISIBILITY_PRIVATE (unspecified: public).",
                [FieldViolation("game.visibility", "unknown value")],
            )
        )
    return game.visibility == game_pb2.VISIBILITY_PRIVATE


def _seated_fields(seated: Seated) -> dict[str, Any]:
    record = seated.record
    return {
        "game": game_to_proto(record, Seat(seated.seat), full=True),
        "player": player_name(record.game_id, seated.seat),
        "seat_token": seated.token,
    }


def _type_mismatch(field: str, expected: str) -> grpc.Status:
    return bad_request(
        "GAME_TYPE_MISMATCH",
        f"{field} does not match the game's type; expected {expected}.",
        [FieldViolation(field, f"expected {expected}")],
        {"field": field, "expected": expected},
    )
