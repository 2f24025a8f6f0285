"""``tabletop.v1.GameService``: each RPC handed to the one module that serves it.

=========================================================  ==================
RPC                                                        handled in
=========================================================  ==================
CreateGame, JoinGame, StartGame                            ``tables.py``
LeaveGame, RemovePlayer, RotateInviteCode, ResignGame      ``seats.py``
SubmitMove, ListLegalMoves, SuggestMove                    ``turns.py``
UndoMove, ProposeUndo, RespondUndo                         ``undo.py``
GetGame, ListGames                                         ``listing.py``
GetGameRevision, ListGameEvents                            ``replay.py``
StreamGame                                                 ``stream.py``
ListGameTypes                                              ``catalogue.py``
=========================================================  ==================

A handler takes the application, the request and the caller's bearer token: it
reads the request fully into a call object (``services/calls.py``), calls one
use case and converts its answer for the caller. No game logic lives here. Use
cases are synchronous (the event store is), so each call runs in a worker thread
(``calls.py``) and the asyncio loop stays free for other calls.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, TypeAlias, TypeVar

from tabletop.v1 import game_service_pb2 as api
from tabletop.v1 import game_service_pb2_grpc

from services.api import (
    catalogue,
    listing,
    my_games,
    notifications,
    replay,
    seats,
    stream,
    tables,
    turns,
    undo,
)
from services.api.auth import bearer_token
from services.api.calls import Metadata, serve
from services.api.quotas import TableQuotas, table_quotas
from services.feed import Feed
from services.games import GamesApp
from services.notification_feed import notification_feed_for
from services.players_view import players_view_for

R = TypeVar("R")
T = TypeVar("T")
# Serves one RPC: (application, request, caller's bearer token) -> response.
Handler: TypeAlias = Callable[[GamesApp, R, str | None], T]


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """Play and watch games; every answer is redacted for its caller."""

    def __init__(
        self, app: GamesApp, feed: Feed, quotas: TableQuotas | None = None
    ) -> None:
        self.app = app
        self.feed = feed
        self.notices = notification_feed_for(players_view_for(app))
        self.quotas = table_quotas(app, 0, 0) if quotas is None else quotas

    async def CreateGame(  # noqa: N802 (gRPC method names)
        self, request: api.CreateGameRequest, context: Any
    ) -> api.CreateGameResponse:
        """Opens a table and seats the caller in seat 0, within its quotas."""
        async with self.quotas.opening(context, request) as opened:
            response = await self._serve(context, tables.create_game, request)
            opened(response.game.name)
        return response

    async def JoinGame(  # noqa: N802
        self, request: api.JoinGameRequest, context: Any
    ) -> api.JoinGameResponse:
        """Seats the caller at a table that has not started."""
        return await self._serve(context, tables.join_game, request)

    async def StartGame(  # noqa: N802
        self, request: api.StartGameRequest, context: Any
    ) -> api.StartGameResponse:
        """Starts a game for a seated caller."""
        return await self._serve(context, tables.start_game, request)

    async def LeaveGame(  # noqa: N802
        self, request: api.LeaveGameRequest, context: Any
    ) -> api.LeaveGameResponse:
        """Gives up the caller's seat before play begins."""
        return await self._serve(context, seats.leave_game, request)

    async def RemovePlayer(  # noqa: N802
        self, request: api.RemovePlayerRequest, context: Any
    ) -> api.RemovePlayerResponse:
        """The host removes another player's seat before play begins."""
        return await self._serve(context, seats.remove_player, request)

    async def RotateInviteCode(  # noqa: N802
        self, request: api.RotateInviteCodeRequest, context: Any
    ) -> api.RotateInviteCodeResponse:
        """Gives a private table a new invite code, for its host."""
        return await self._serve(context, seats.rotate_invite_code, request)

    async def ResignGame(  # noqa: N802
        self, request: api.ResignGameRequest, context: Any
    ) -> api.ResignGameResponse:
        """Resigns the caller's seat; the server's bot plays it on."""
        return await self._serve(context, seats.resign_game, request)

    async def SubmitMove(  # noqa: N802
        self, request: api.SubmitMoveRequest, context: Any
    ) -> api.SubmitMoveResponse:
        """Applies the caller's move if the rules accept it."""
        return await self._serve(context, turns.submit_move, request)

    async def ListLegalMoves(  # noqa: N802
        self, request: api.ListLegalMovesRequest, context: Any
    ) -> api.ListLegalMovesResponse:
        """Lists the moves the caller could make now."""
        return await self._serve(context, turns.list_legal_moves, request)

    async def SuggestMove(  # noqa: N802
        self, request: api.SuggestMoveRequest, context: Any
    ) -> api.SuggestMoveResponse:
        """Returns the bot's move for the caller's seat."""
        return await self._serve(context, turns.suggest_move, request)

    async def UndoMove(  # noqa: N802
        self, request: api.UndoMoveRequest, context: Any
    ) -> api.UndoMoveResponse:
        """Takes back the caller's last move alone, where the game allows it."""
        return await self._serve(context, undo.undo_move, request)

    async def ProposeUndo(  # noqa: N802
        self, request: api.ProposeUndoRequest, context: Any
    ) -> api.ProposeUndoResponse:
        """Asks the other players to allow taking back the caller's last move."""
        return await self._serve(context, undo.propose_undo, request)

    async def RespondUndo(  # noqa: N802
        self, request: api.RespondUndoRequest, context: Any
    ) -> api.RespondUndoResponse:
        """Records the caller's answer to an undo proposal."""
        return await self._serve(context, undo.respond_undo, request)

    async def GetGame(  # noqa: N802
        self, request: api.GetGameRequest, context: Any
    ) -> api.GetGameResponse:
        """Returns the game as the caller may see it."""
        return await self._serve(context, listing.get_game, request)

    async def ListGames(  # noqa: N802
        self, request: api.ListGamesRequest, context: Any
    ) -> api.ListGamesResponse:
        """Lists games, oldest first, as a spectator sees them."""
        return await self._serve(context, listing.list_games, request)

    async def ListMyGames(  # noqa: N802
        self, request: api.ListMyGamesRequest, context: Any
    ) -> api.ListMyGamesResponse:
        """Lists the signed-in caller's games, those to act in first."""
        return await self._serve(context, my_games.list_my_games, request)

    async def GetGameRevision(  # noqa: N802
        self, request: api.GetGameRevisionRequest, context: Any
    ) -> api.GetGameRevisionResponse:
        """Returns the game as it was at a revision, as the caller may see it."""
        return await self._serve(context, replay.get_game_revision, request)

    async def ListGameEvents(  # noqa: N802
        self, request: api.ListGameEventsRequest, context: Any
    ) -> api.ListGameEventsResponse:
        """Lists a game's events, redacted for the caller."""
        return await self._serve(context, replay.list_game_events, request)

    async def StreamGame(  # noqa: N802
        self, request: api.StreamGameRequest, context: Any
    ) -> AsyncIterator[api.StreamGameResponse]:
        """Sends the caller's live feed of a game."""
        async for item in stream.stream_game(self.app, self.feed, request, context):
            yield item

    async def StreamNotifications(  # noqa: N802
        self, request: api.StreamNotificationsRequest, context: Any
    ) -> AsyncIterator[api.StreamNotificationsResponse]:
        """Sends the signed-in caller's notifications as they are made."""
        heartbeat = self.feed.heartbeat_seconds
        async for item in notifications.stream_notifications(
            self.app, self.notices, heartbeat, request, context
        ):
            yield item

    async def ListGameTypes(  # noqa: N802
        self, request: api.ListGameTypesRequest, context: Any
    ) -> api.ListGameTypesResponse:
        """Lists the game types played here; needs no credentials."""
        del request, context
        return catalogue.game_types()

    async def _serve(self, context: Any, handler: Handler[R, T], request: R) -> T:
        """Runs ``handler`` for the caller off the event loop (``calls.serve``)."""
        app = self.app

        def call(request: R, metadata: Metadata) -> T:
            return handler(app, request, bearer_token(metadata))

        call.__name__ = handler.__name__  # names the handler in the log of a bug
        return await serve(context, call, request)
