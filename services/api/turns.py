"""The RPCs of a seat's turn: SubmitMove, ListLegalMoves and SuggestMove."""

from __future__ import annotations

from tabletop.v1 import game_service_pb2 as api

from domain.common.decision import Rejected, RejectionKind, reject
from services.api.convert.moves import move_from_request
from services.api.convert.registry import converter_for
from services.api.errors import ApiError, rejection_status
from services.api.mutations import accepted, expected_revision, seen_by_caller
from services.api.requests import (
    PageToken,
    decode_page_token,
    encode_page_token,
    identify,
    page_size,
    parse_game_name,
)
from services.calls import Call, SubmitMove
from services.games import GamesApp

_LISTING = "legal-moves"  # what a page token of ListLegalMoves lists


def submit_move(
    app: GamesApp, request: api.SubmitMoveRequest, token: str | None
) -> api.SubmitMoveResponse:
    """Applies the caller's move if the rules accept it.

    The move is read before its game is loaded; the use case gives it the
    caller's seat and checks that it is a move of that game. The game comes
    back in full unless the request asks for GAME_VIEW_BASIC.
    """
    game_id = parse_game_name(request.name)
    revision = expected_revision(request.expected_revision)
    call = Call(token, *identify(request, "SubmitMove", token), revision)
    move = move_from_request(request.move)
    applied = accepted(app.submit_move(SubmitMove(game_id, move, call)))
    full = request.view != api.GAME_VIEW_BASIC
    game, events = seen_by_caller(app, applied, token, full=full)
    return api.SubmitMoveResponse(game=game, events=events)


def list_legal_moves(
    app: GamesApp, request: api.ListLegalMovesRequest, token: str | None
) -> api.ListLegalMovesResponse:
    """Returns one page of the moves the caller's seat could make now."""
    game_id = parse_game_name(request.name)
    size = page_size(request.page_size, default=100, maximum=1000)
    resume = decode_page_token(request.page_token, _LISTING, request.name)
    start = resume.position if resume else 0
    legal = accepted(app.legal_moves(game_id, token))
    record = legal.record
    if resume is not None and resume.revision != record.revision:
        raise ApiError(rejection_status(_moved_on(record.revision, resume.revision)))
    moves, more = legal.page(start, size)
    converter = converter_for(record.table.game_type)
    response = api.ListLegalMovesResponse(revision=record.revision)
    for command in moves:
        move = response.moves.add()
        getattr(move, converter.move_field).CopyFrom(converter.move_to_proto(command))
    if more:
        after = PageToken(_LISTING, start + size, request.name, record.revision)
        response.next_page_token = encode_page_token(after)
    return response


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


def _moved_on(current: int, token_revision: int) -> Rejected:
    return reject(
        "REVISION_MISMATCH",
        f"The game moved on from revision {token_revision} to {current}; "
        "list the legal moves again from the first page.",
        "table/expected_revision",
        RejectionKind.STALE,
        currentRevision=current,
        tokenRevision=token_revision,
    )
