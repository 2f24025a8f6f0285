"""The undo RPCs: UndoMove, ProposeUndo and RespondUndo (DESIGN §6)."""

from __future__ import annotations

from tabletop.v1 import game_service_pb2 as api

from services.api.errors import ApiError, FieldViolation, bad_request
from services.api.mutations import accepted, expected_revision, seen_by_caller
from services.api.requests import identify, parse_game_name
from services.calls import Call, RespondUndo, SeatRequest
from services.games import GamesApp


def undo_move(
    app: GamesApp, request: api.UndoMoveRequest, token: str | None
) -> api.UndoMoveResponse:
    """Takes back the caller's own last move, where the game allows it alone."""
    game_id = parse_game_name(request.name)
    call = Call(
        token,
        *identify(request, "UndoMove", token),
        expected_revision(request.expected_revision),
    )
    applied = accepted(app.undo_move(SeatRequest(game_id, call)))
    game, events = seen_by_caller(app, applied, token)
    return api.UndoMoveResponse(game=game, events=events)


def propose_undo(
    app: GamesApp, request: api.ProposeUndoRequest, token: str | None
) -> api.ProposeUndoResponse:
    """Asks the other players to let the caller take back their last move."""
    game_id = parse_game_name(request.name)
    call = Call(
        token,
        *identify(request, "ProposeUndo", token),
        expected_revision(request.expected_revision),
    )
    applied = accepted(app.propose_undo(SeatRequest(game_id, call)))
    game, events = seen_by_caller(app, applied, token)
    return api.ProposeUndoResponse(game=game, events=events)


def respond_undo(
    app: GamesApp, request: api.RespondUndoRequest, token: str | None
) -> api.RespondUndoResponse:
    """Records the caller's answer to an open undo proposal."""
    game_id = parse_game_name(request.name)
    if request.vote == api.UNDO_VOTE_UNSPECIFIED:
        raise ApiError(
            bad_request(
                "INVALID_VOTE",
                "vote must be UNDO_VOTE_ACCEPT or UNDO_VOTE_REJECT.",
                [FieldViolation("vote", "must be set")],
            )
        )
    call = Call(token, *identify(request, "RespondUndo", token))
    accept = request.vote == api.UNDO_VOTE_ACCEPT
    answer = RespondUndo(game_id, request.proposal_id, accept=accept, call=call)
    applied = accepted(app.respond_undo(answer))
    game, events = seen_by_caller(app, applied, token)
    return api.RespondUndoResponse(game=game, events=events)
