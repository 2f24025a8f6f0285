"""After a player's deletion: no notification of theirs is made or pushed, the
players' view holds nothing of theirs, and their access token lists nothing."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest
from psycopg import sql
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc, game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, expect_error
from tests.e2e.test_notifications import (
    Gateway,
    _eventually,
    _serve,
    _sign_in,
    gateway,
    secret_file,
)
from tests.pg import connect

pytestmark = pytest.mark.e2e
__all__ = ["gateway", "secret_file"]  # the fixtures this module uses


def _rows_of(url: str, player: str) -> int:
    schema = url.rsplit("schema=", 1)[1]
    count = 0
    with connect() as db:
        for table in ("tabletop_my_games", "tabletop_outbox"):
            statement = sql.SQL("SELECT count(*) FROM {}.{} WHERE player_id = %s")
            found = db.execute(
                statement.format(sql.Identifier(schema), sql.Identifier(table)),
                (player,),
            ).fetchone()
            assert found is not None
            count += int(str(found[0]))
    return count


def test_a_deleted_player_is_told_nothing_more_and_listed_nowhere(
    postgres_url: str, gateway: Gateway, secret_file: Path
) -> None:
    server = _serve(postgres_url, gateway, secret_file)
    try:
        stub = server.stub
        zelda, ben = _sign_in(server, "Zelda"), _sign_in(server, "Ben")
        z, b = zelda.access_token, ben.access_token
        game = stub.CreateGame(
            api.CreateGameRequest(
                game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE)
            ),
            metadata=auth(z),
        ).game.name
        stub.JoinGame(api.JoinGameRequest(name=game), metadata=auth(b))
        stub.StartGame(api.StartGameRequest(name=game), metadata=auth(z))
        auth_service_pb2_grpc.AuthServiceStub(server.channel).DeletePlayer(
            auth_api.DeletePlayerRequest(name="players/me"), metadata=auth(z)
        )
        stub.ResignGame(api.ResignGameRequest(name=game), metadata=auth(b))
        finished = {(ben.player.name, "GAME_FINISHED")}

        def told() -> set[tuple[str, str]]:
            with gateway.lock:
                return {
                    (item["player"], item["kind"])
                    for item in gateway.received
                    if item["kind"] == "GAME_FINISHED"
                }

        _eventually(lambda: finished <= told(), shown=told)
        time.sleep(0.5)  # nothing more comes
        assert told() == finished
        assert _rows_of(postgres_url, zelda.player.name.split("/")[1]) == 0
        for call, request in (
            (stub.ListMyGames, api.ListMyGamesRequest()),
            (
                lambda r, **kw: next(iter(stub.StreamNotifications(r, **kw))),
                api.StreamNotificationsRequest(),
            ),
        ):
            code, reason, _ = expect_error(call, request, metadata=auth(z))
            assert (code, reason) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "PLAYER_NOT_FOUND",
            )
    finally:
        assert server.stop() == 0
