"""Deleting a player whose games change while they are given up, and a made-up
ListMyGames page token, in memory."""

from __future__ import annotations

import base64
import secrets
import uuid
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as api

from domain.common.decision import Rejected
from services import erasure
from services.api.errors import ApiError
from services.api.my_games import list_my_games
from services.api.requests import encode_token_data
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SentMove, SubmitMove
from services.credentials import credentials_for
from services.games import GamesApp, Seated
from services.personal import keys_for
from services.player_names import NAMES
from services.players import Players, SignedIn
from services.players_view import players_view_for
from services.projection import PlayersProjection
from services.sessions import SessionKey, Sessions
from tests.playing import Clock


def ok(result: Any) -> Any:
    assert not isinstance(result, Rejected), result
    return result


@pytest.fixture
def app(clock: Clock) -> GamesApp:
    return GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=clock)


@pytest.fixture
def players(app: GamesApp, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Players:
    sessions = Sessions(SessionKey.generate(), clock=clock)
    players = Players(app, sessions, keys_for(app), credentials_for(app), None, clock)
    app.sessions = sessions
    monkeypatch.setattr(NAMES, "lookup", players.display_name)
    return players


def sign_in(players: Players, name: str) -> SignedIn:
    device = base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")
    signed = players.sign_in_with_device(device, name, None)
    assert isinstance(signed, SignedIn), signed
    return signed


def move(app: GamesApp, game_id: uuid.UUID, tokens: list[str]) -> None:
    """Plays the first legal move of the seat to move."""
    record = app.get_game(game_id)
    assert record is not None
    seat = record.rules.to_move(record.table.game)[0]
    legal = next(iter(record.rules.legal_moves(record.table.game, seat)))
    ok(
        app.submit_move(
            SubmitMove(game_id, SentMove("qwirkle", legal), Call(tokens[seat]))
        )
    )


def test_a_deletion_resigns_a_game_that_moved_ahead_of_the_listing_meanwhile(
    app: GamesApp, players: Players, monkeypatch: pytest.MonkeyPatch
) -> None:
    zelda, ben = sign_in(players, "Zelda"), sign_in(players, "Ben")
    games: dict[uuid.UUID, list[str]] = {}
    for _ in range(2):
        opened: Seated = ok(
            app.create_game(
                CreateGame(
                    "qwirkle", None, 2, "", player_id=str(zelda.account.player_id)
                )
            )
        )
        game_id = opened.record.game_id
        joined: Seated = ok(
            app.join_game(JoinGame(game_id, "", player_id=str(ben.account.player_id)))
        )
        games[game_id] = [opened.token, joined.token]
        ok(app.start_game(SeatRequest(game_id, Call(opened.token))))
        record = app.get_game(game_id)
        assert record is not None
        if record.rules.to_move(record.table.game)[0] == 0:
            move(app, game_id, games[game_id])  # Ben's turn in both
    view = players_view_for(app)
    projection = PlayersProjection(app, view)
    projection.tick()

    class Busy:
        """The view, while Ben moves in a game the deletion has not yet given
        up (the projection keeping up): Zelda's turn there moves it ahead in
        her listing."""

        moved = False

        def _moves(self, listed: set[uuid.UUID]) -> None:
            if not self.moved:
                self.moved = True
                other = min(set(games) - listed or set(games))
                move(app, other, games[other])
                projection.tick()

        def page(self, *args: Any) -> Any:
            rows = view.page(*args)
            self._moves({row.game_id for row in rows})
            return rows

        def unfinished(self, player: uuid.UUID) -> list[uuid.UUID]:
            found = view.unfinished(player)
            self._moves(set())
            return found

    monkeypatch.setattr(erasure, "PAGE", 1, raising=False)  # a page each
    monkeypatch.setattr(erasure, "players_view_for", lambda _app: Busy())
    session = players.sessions.verify(zelda.access.token)
    assert session is not None
    assert erasure.delete_player(app, players, session, zelda.access.token) is None
    for game_id in games:
        record = app.get_game(game_id)
        assert record is not None
        assert 0 in record.table.resigned, game_id


def test_a_made_up_page_token_of_an_endless_rank_is_refused(
    app: GamesApp, players: Players
) -> None:
    ana = sign_in(players, "Ana")
    owner = str(ana.account.player_id)
    token = encode_token_data(["my-games", owner, float("inf"), 0, str(uuid.uuid4())])
    with pytest.raises(ApiError) as caught:
        list_my_games(app, api.ListMyGamesRequest(page_token=token), ana.access.token)
    assert caught.value.status.code is grpc.StatusCode.INVALID_ARGUMENT
