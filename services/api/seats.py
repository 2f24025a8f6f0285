"""The RPCs of who sits at a table: LeaveGame, RemovePlayer, RotateInviteCode
and ResignGame (docs/tables.md)."""

from __future__ import annotations

from tabletop.v1 import game_service_pb2 as api

from domain.common.seats import Spectator
from services.api.convert.game import event_to_proto, game_to_proto
from services.api.mutations import accepted, seen_by_caller
from services.api.requests import (
    identify,
    identify_secret,
    parse_game_name,
    parse_player_name,
)
from services.calls import Call, RemovePlayer, RotateInviteCode, SeatRequest
from services.games import GamesApp


def leave_game(
    app: GamesApp, request: api.LeaveGameRequest, token: str | None
) -> api.LeaveGameResponse:
    """Gives up the caller's seat; the answer shows the table as a spectator."""
    game_id = parse_game_name(request.name)
    call = Call(token, *identify(request, "LeaveGame", token))
    applied = accepted(app.leave_game(SeatRequest(game_id, call)))
    record = applied.record  # the caller's token acts for no seat any more
    return api.LeaveGameResponse(
        game=game_to_proto(record, Spectator(), full=True),
        events=[event_to_proto(record, e, Spectator()) for e in applied.events],
    )


def remove_player(
    app: GamesApp, request: api.RemovePlayerRequest, token: str | None
) -> api.RemovePlayerResponse:
    """The host removes another player's seat before play begins."""
    game_id, seat = parse_player_name(request.name)
    call = Call(token, *identify(request, "RemovePlayer", token))
    applied = accepted(app.remove_player(RemovePlayer(game_id, seat, call)))
    game, events = seen_by_caller(app, applied, token)
    return api.RemovePlayerResponse(game=game, events=events)


def rotate_invite_code(
    app: GamesApp, request: api.RotateInviteCodeRequest, token: str | None
) -> api.RotateInviteCodeResponse:
    """Gives a private table a new invite code, returned to its host alone."""
    game_id = parse_game_name(request.name)
    request_id, fingerprint = identify_secret(request, "RotateInviteCode", token)
    rotate = RotateInviteCode(game_id, token, request_id, fingerprint)
    invited = accepted(app.rotate_invite(rotate))
    game, _ = seen_by_caller(app, invited.applied, token)
    return api.RotateInviteCodeResponse(game=game, invite_code=invited.invite_code)


def resign_game(
    app: GamesApp, request: api.ResignGameRequest, token: str | None
) -> api.ResignGameResponse:
    """Resigns the caller's seat; the server's bot plays it from now on."""
    game_id = parse_game_name(request.name)
    call = Call(token, *identify(request, "ResignGame", token))
    applied = accepted(app.resign(SeatRequest(game_id, call)))
    game, events = seen_by_caller(app, applied, token)
    return api.ResignGameResponse(game=game, events=events)
