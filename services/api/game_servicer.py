"""``tabletop.v1.GameService``: authenticate, convert, call the use case, map back.

No game logic lives here. Use cases are synchronous (the event store is), so each
call runs in a worker thread and the asyncio loop stays free for other calls.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc
from tabletop.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

from domain.common.decision import Rejected, RejectionKind, reject
from domain.common.seats import Seat, Spectator
from services.api import replay, seats, turns, undo
from services.api.auth import bearer_token
from services.api.calls import Metadata, serve
from services.api.catalogue import game_types
from services.api.convert.game import game_to_proto, player_name
from services.api.convert.moves import move_from_request
from services.api.convert.registry import converter_for, converter_for_proto
from services.api.errors import (
    ApiError,
    FieldViolation,
    bad_request,
    rejection_status,
)
from services.api.listing import listed, parse_filter
from services.api.mutations import (
    accepted,
    caller,
    expected_revision,
    seen_by_caller,
)
from services.api.quotas import TableQuotas, table_quotas
from services.api.requests import (
    PageToken,
    decode_page_token,
    encode_page_token,
    identify,
    identify_secret,
    page_size,
    parse_game_name,
)
from services.api.stream import stream_game
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.feed import Feed
from services.games import GamesApp, Seated, game_not_found
from services.records import GameRecord

log = logging.getLogger(__name__)


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """Play and watch games; every answer is redacted for its caller."""

    def __init__(
        self, app: GamesApp, feed: Feed, quotas: TableQuotas | None = None
    ) -> None:
        self.app = app
        self.feed = feed
        self.quotas = table_quotas(app, 0, 0) if quotas is None else quotas

    async def CreateGame(  # noqa: N802 (gRPC method names)
        self, request: game_service_pb2.CreateGameRequest, context: Any
    ) -> game_service_pb2.CreateGameResponse:
        """Opens a table and seats the caller in seat 0, within its quotas."""
        async with self.quotas.opening(context, request) as opened:
            response = await serve(context, self._create_game, request)
            opened(response.game.name)
        return response

    async def GetGame(  # noqa: N802
        self, request: game_service_pb2.GetGameRequest, context: Any
    ) -> game_service_pb2.GetGameResponse:
        """Returns the game as the caller may see it."""
        return await serve(context, self._get_game, request)

    async def ListGames(  # noqa: N802
        self, request: game_service_pb2.ListGamesRequest, context: Any
    ) -> game_service_pb2.ListGamesResponse:
        """Lists games, oldest first, as a spectator sees them."""
        return await serve(context, self._list_games, request)

    async def JoinGame(  # noqa: N802
        self, request: game_service_pb2.JoinGameRequest, context: Any
    ) -> game_service_pb2.JoinGameResponse:
        """Seats the caller at a table that has not started."""
        return await serve(context, self._join_game, request)

    async def StartGame(  # noqa: N802
        self, request: game_service_pb2.StartGameRequest, context: Any
    ) -> game_service_pb2.StartGameResponse:
        """Starts a game for a seated caller."""
        return await serve(context, self._start_game, request)

    async def LeaveGame(  # noqa: N802
        self, request: game_service_pb2.LeaveGameRequest, context: Any
    ) -> game_service_pb2.LeaveGameResponse:
        """Gives up the caller's seat before play begins."""
        return await serve(context, self._leave_game, request)

    async def RemovePlayer(  # noqa: N802
        self, request: game_service_pb2.RemovePlayerRequest, context: Any
    ) -> game_service_pb2.RemovePlayerResponse:
        """The host removes another player's seat before play begins."""
        return await serve(context, self._remove_player, request)

    async def RotateInviteCode(  # noqa: N802
        self, request: game_service_pb2.RotateInviteCodeRequest, context: Any
    ) -> game_service_pb2.RotateInviteCodeResponse:
        """Gives a private table a new invite code, for its host."""
        return await serve(context, self._rotate_invite_code, request)

    async def ResignGame(  # noqa: N802
        self, request: game_service_pb2.ResignGameRequest, context: Any
    ) -> game_service_pb2.ResignGameResponse:
        """Resigns the caller's seat; the server's bot plays it on."""
        return await serve(context, self._resign_game, request)

    async def SubmitMove(  # noqa: N802
        self, request: game_service_pb2.SubmitMoveRequest, context: Any
    ) -> game_service_pb2.SubmitMoveResponse:
        """Applies the caller's move if the rules accept it."""
        return await serve(context, self._submit_move, request)

    async def ListLegalMoves(  # noqa: N802
        self, request: game_service_pb2.ListLegalMovesRequest, context: Any
    ) -> game_service_pb2.ListLegalMovesResponse:
        """Lists the moves the caller could make now."""
        return await serve(context, self._list_legal_moves, request)

    async def SuggestMove(  # noqa: N802
        self, request: game_service_pb2.SuggestMoveRequest, context: Any
    ) -> game_service_pb2.SuggestMoveResponse:
        """Returns the bot's move for the caller's seat."""
        return await serve(context, self._suggest_move, request)

    async def UndoMove(  # noqa: N802
        self, request: game_service_pb2.UndoMoveRequest, context: Any
    ) -> game_service_pb2.UndoMoveResponse:
        """Takes back the caller's last move alone, where the game allows it."""
        return await serve(context, self._undo_move, request)

    async def ProposeUndo(  # noqa: N802
        self, request: game_service_pb2.ProposeUndoRequest, context: Any
    ) -> game_service_pb2.ProposeUndoResponse:
        """Asks the other players to allow taking back the caller's last move."""
        return await serve(context, self._propose_undo, request)

    async def RespondUndo(  # noqa: N802
        self, request: game_service_pb2.RespondUndoRequest, context: Any
    ) -> game_service_pb2.RespondUndoResponse:
        """Records the caller's answer to an undo proposal."""
        return await serve(context, self._respond_undo, request)

    async def StreamGame(  # noqa: N802
        self, request: game_service_pb2.StreamGameRequest, context: Any
    ) -> AsyncIterator[game_service_pb2.StreamGameResponse]:
        """Sends the caller's live feed of a game."""
        async for item in stream_game(self.app, self.feed, request, context):
            yield item

    async def GetGameRevision(  # noqa: N802
        self, request: game_service_pb2.GetGameRevisionRequest, context: Any
    ) -> game_service_pb2.GetGameRevisionResponse:
        """Returns the game as it was at a revision, as the caller may see it."""
        return await serve(context, self._get_game_revision, request)

    async def ListGameEvents(  # noqa: N802
        self, request: game_service_pb2.ListGameEventsRequest, context: Any
    ) -> game_service_pb2.ListGameEventsResponse:
        """Lists a game's events, redacted for the caller."""
        return await serve(context, self._list_game_events, request)

    async def ListGameTypes(  # noqa: N802
        self, request: game_service_pb2.ListGameTypesRequest, context: Any
    ) -> game_service_pb2.ListGameTypesResponse:
        """Lists the game types played here; needs no credentials."""
        del request, context
        return game_types()

    def _create_game(
        self, request: game_service_pb2.CreateGameRequest, metadata: Metadata
    ) -> game_service_pb2.CreateGameResponse:
        del metadata  # anybody may open a table
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
        if game.visibility not in game_pb2.Visibility.values():
            raise ApiError(
                bad_request(
                    "INVALID_VISIBILITY",
                    "game.visibility must be VISIBILITY_PUBLIC or "
                    "VISIBILITY_PRIVATE (unspecified: public).",
                    [FieldViolation("game.visibility", "unknown value")],
                )
            )
        seated = accepted(
            self.app.create_game(
                CreateGame(
                    converter.game_type,
                    config,
                    game.max_players,
                    request.display_name,
                    request.seed,
                    *identify_secret(request, "CreateGame", None),
                    turn_seconds=turns.turn_seconds(game),
                    private=game.visibility == game_pb2.VISIBILITY_PRIVATE,
                )
            )
        )
        return game_service_pb2.CreateGameResponse(
            **_seated_fields(seated), invite_code=seated.invite_code
        )

    def _join_game(
        self, request: game_service_pb2.JoinGameRequest, metadata: Metadata
    ) -> game_service_pb2.JoinGameResponse:
        del metadata  # the seat token is issued by this call
        game_id = parse_game_name(request.name)
        seated = accepted(
            self.app.join_game(
                JoinGame(
                    game_id,
                    request.display_name,
                    *identify_secret(request, "JoinGame", None),
                    request.invite_code,
                )
            )
        )
        return game_service_pb2.JoinGameResponse(**_seated_fields(seated))

    def _get_game(
        self, request: game_service_pb2.GetGameRequest, metadata: Metadata
    ) -> game_service_pb2.GetGameResponse:
        record = self._load(parse_game_name(request.name))
        viewer = caller(self.app, record, bearer_token(metadata))
        full = request.view != game_service_pb2.GAME_VIEW_BASIC
        return game_service_pb2.GetGameResponse(
            game=game_to_proto(record, viewer, full=full)
        )

    def _list_games(
        self, request: game_service_pb2.ListGamesRequest, metadata: Metadata
    ) -> game_service_pb2.ListGamesResponse:
        token = bearer_token(metadata)  # shows its own private tables, if any
        size = page_size(request.page_size, default=50, maximum=200)
        wanted = parse_filter(request.filter)
        page = decode_page_token(request.page_token, "games", request.filter)
        full = request.view == game_service_pb2.GAME_VIEW_FULL
        found = self.app.game_ids(page.position if page else 0, size)
        response = game_service_pb2.ListGamesResponse()
        for _, game_id in found:
            record = self.app.get_game(game_id)
            if record is None or not listed(self.app, record, token):
                continue
            game = game_to_proto(record, Spectator(), full=full)
            if wanted.keeps(game):
                response.games.append(game)
        if len(found) == size:
            last = PageToken("games", found[-1][0], request.filter)
            response.next_page_token = encode_page_token(last)
        return response

    def _start_game(
        self, request: game_service_pb2.StartGameRequest, metadata: Metadata
    ) -> game_service_pb2.StartGameResponse:
        game_id = parse_game_name(request.name)
        token = bearer_token(metadata)
        call = Call(token, *identify(request, "StartGame", token))
        applied = accepted(self.app.start_game(SeatRequest(game_id, call)))
        game, _ = seen_by_caller(self.app, applied, token)
        return game_service_pb2.StartGameResponse(game=game)

    def _submit_move(
        self, request: game_service_pb2.SubmitMoveRequest, metadata: Metadata
    ) -> game_service_pb2.SubmitMoveResponse:
        game_id = parse_game_name(request.name)
        token = bearer_token(metadata)
        revision = expected_revision(request.expected_revision)
        call = Call(token, *identify(request, "SubmitMove", token), revision)
        move = move_from_request(request.move)
        applied = accepted(self.app.submit_move(SubmitMove(game_id, move, call)))
        game, events = seen_by_caller(self.app, applied, token)
        return game_service_pb2.SubmitMoveResponse(game=game, events=events)

    def _list_legal_moves(
        self, request: game_service_pb2.ListLegalMovesRequest, metadata: Metadata
    ) -> game_service_pb2.ListLegalMovesResponse:
        game_id = parse_game_name(request.name)
        size = page_size(request.page_size, default=100, maximum=1000)
        record, moves = accepted(self.app.legal_moves(game_id, bearer_token(metadata)))
        token = decode_page_token(request.page_token, "legal-moves", request.name)
        if token is not None and token.revision != record.revision:
            raise ApiError(rejection_status(_moved_on(record.revision, token.revision)))
        start = token.position if token else 0
        converter = converter_for(record.table.game_type)
        response = game_service_pb2.ListLegalMovesResponse(revision=record.revision)
        # One move past the page tells whether another page follows.
        page = list(itertools.islice(moves, start, start + size + 1))
        for command in page[:size]:
            move = response.moves.add()
            getattr(move, converter.move_field).CopyFrom(
                converter.move_to_proto(command)
            )
        if len(page) > size:
            after = PageToken(
                "legal-moves", start + size, request.name, record.revision
            )
            response.next_page_token = encode_page_token(after)
        return response

    def _leave_game(
        self, request: game_service_pb2.LeaveGameRequest, metadata: Metadata
    ) -> game_service_pb2.LeaveGameResponse:
        return seats.leave_game(self.app, request, bearer_token(metadata))

    def _remove_player(
        self, request: game_service_pb2.RemovePlayerRequest, metadata: Metadata
    ) -> game_service_pb2.RemovePlayerResponse:
        return seats.remove_player(self.app, request, bearer_token(metadata))

    def _rotate_invite_code(
        self, request: game_service_pb2.RotateInviteCodeRequest, metadata: Metadata
    ) -> game_service_pb2.RotateInviteCodeResponse:
        return seats.rotate_invite_code(self.app, request, bearer_token(metadata))

    def _resign_game(
        self, request: game_service_pb2.ResignGameRequest, metadata: Metadata
    ) -> game_service_pb2.ResignGameResponse:
        return seats.resign_game(self.app, request, bearer_token(metadata))

    def _suggest_move(
        self, request: game_service_pb2.SuggestMoveRequest, metadata: Metadata
    ) -> game_service_pb2.SuggestMoveResponse:
        return turns.suggest_move(self.app, request, bearer_token(metadata))

    def _undo_move(
        self, request: game_service_pb2.UndoMoveRequest, metadata: Metadata
    ) -> game_service_pb2.UndoMoveResponse:
        return undo.undo_move(self.app, request, bearer_token(metadata))

    def _propose_undo(
        self, request: game_service_pb2.ProposeUndoRequest, metadata: Metadata
    ) -> game_service_pb2.ProposeUndoResponse:
        return undo.propose_undo(self.app, request, bearer_token(metadata))

    def _respond_undo(
        self, request: game_service_pb2.RespondUndoRequest, metadata: Metadata
    ) -> game_service_pb2.RespondUndoResponse:
        return undo.respond_undo(self.app, request, bearer_token(metadata))

    def _get_game_revision(
        self, request: game_service_pb2.GetGameRevisionRequest, metadata: Metadata
    ) -> game_service_pb2.GetGameRevisionResponse:
        return replay.get_game_revision(self.app, request, bearer_token(metadata))

    def _list_game_events(
        self, request: game_service_pb2.ListGameEventsRequest, metadata: Metadata
    ) -> game_service_pb2.ListGameEventsResponse:
        return replay.list_game_events(self.app, request, bearer_token(metadata))

    def _load(self, game_id: Any) -> GameRecord:
        record = self.app.get_game(game_id)
        if record is None:
            raise ApiError(rejection_status(game_not_found(game_id)))
        return record


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
