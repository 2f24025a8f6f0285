"""ListMyGames: the signed-in caller's games, from the players' view.

The view (``services/my_games.py``) is kept from the event log by the players'
projection; a page is one indexed read. Names of signed-in seats are the
accounts' (``services/player_names.py``), like every other view's.
"""

from __future__ import annotations

from uuid import UUID

from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from services.api.auth import signed_in, signed_in_player
from services.api.convert.game import game_name
from services.api.convert.registry import converter_for
from services.api.requests import (
    decode_token_data,
    encode_token_data,
    foreign_page_token,
    page_size,
)
from services.games import GamesApp
from services.my_games import MyGameRow
from services.player_names import NAMES
from services.players_view import players_view_for

DEFAULT_PAGE, MAX_PAGE = 50, 200
_KIND = "my-games"
_STATES = {
    "WAITING_FOR_PLAYERS": game_pb2.GAME_STATE_WAITING_FOR_PLAYERS,
    "IN_PROGRESS": game_pb2.GAME_STATE_IN_PROGRESS,
    "FINISHED": game_pb2.GAME_STATE_FINISHED,
    "CLOSED": game_pb2.GAME_STATE_CLOSED,
}


def list_my_games(
    app: GamesApp, request: api.ListMyGamesRequest, token: str | None
) -> api.ListMyGamesResponse:
    """Returns a page of the caller's games, in the listing's order."""
    player = signed_in(app.sessions, token, "ListMyGames").player_id
    signed_in_player(app.sessions, token)  # a deleted player's token lists nothing
    size = page_size(request.page_size, DEFAULT_PAGE, MAX_PAGE)
    after = _decode(request.page_token, player)
    rows = players_view_for(app).page(player, after, size + 1)
    response = api.ListMyGamesResponse(games=[_game(row) for row in rows[:size]])
    if len(rows) > size:
        response.next_page_token = _encode(player, rows[size - 1].key)
    return response


def _game(row: MyGameRow) -> api.MyGame:
    name = game_name(row.game_id)
    game = api.MyGame(
        game=name,
        game_type=converter_for(row.game_type).proto_type,
        state=_STATES[row.status.value],
        player=f"{name}/players/{row.seat}",
        my_turn=row.my_turn,
        players_to_act=[f"{name}/players/{seat}" for seat in row.to_act],
        players=[
            game_pb2.Player(
                name=f"{name}/players/{seat}",
                display_name=NAMES.seat_name(entry.display_name, entry.player_id, seat),
                score=entry.score,
                seat=seat,
                resigned=entry.resigned,
            )
            for seat, entry in enumerate(row.seats)
        ],
        score=row.score,
        revision=row.revision,
    )
    game.update_time.FromDatetime(row.updated_at)
    return game


def _encode(player: UUID, key: tuple[int, int, str]) -> str:
    return encode_token_data([_KIND, str(player), *key])


def _decode(text: str, player: UUID) -> tuple[int, int, str] | None:
    """Returns where a page starts; a token of another listing is refused."""
    if not text:
        return None
    try:
        kind, owner, rank, activity, game = decode_token_data(text)
        key = (int(rank), int(activity), str(UUID(game)))
    except (ValueError, TypeError, OverflowError):  # OverflowError: Infinity
        raise foreign_page_token() from None
    if kind != _KIND or owner != str(player):
        raise foreign_page_token()
    return key
