"""Deleting a player through a real server: seats given up, personal data gone,
games still replayed and verified."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from psycopg import sql
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc, game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, expect_error, legal_moves, verified_export
from tests.e2e.conftest import Server, start_server
from tests.pg import connect, fresh_schema

pytestmark = pytest.mark.e2e

NAME = "Zelda Quintessa"  # found nowhere once she is deleted


@pytest.fixture
def served() -> Iterator[tuple[Server, str]]:
    with fresh_schema() as url:
        running = start_server(
            url,
            dev=True,
            operator_token=secrets.token_hex(16),
            options=["--sign-in-rate-limit", "0"],
        )
        yield running, url
        assert running.stop() == 0


def _device() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")


def _sign_in(players: Any, device: str, name: str) -> Any:
    request = auth_api.SignInWithDeviceRequest(device_id=device, display_name=name)
    return players.SignInWithDevice(request, timeout=10)


def _create(stub: Any, token: str) -> str:
    request = api.CreateGameRequest(
        game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE), display_name="x"
    )
    name: str = stub.CreateGame(request, metadata=auth(token), timeout=10).game.name
    return name


def _stored_text(url: str) -> str:
    """Returns every value of every table of the server's schema, as text."""
    schema = url.rsplit("schema=", 1)[1]
    found: list[str] = []
    with connect() as db:
        tables = db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (schema,),
        ).fetchall()
        for (table,) in tables:
            statement = sql.SQL("SELECT * FROM {}.{}").format(
                sql.Identifier(schema), sql.Identifier(str(table))
            )
            for row in db.execute(statement).fetchall():
                for value in row:
                    text = (
                        bytes(value).decode("utf-8", "replace")
                        if isinstance(value, bytes | memoryview)
                        else str(value)
                    )
                    found.append(text)
    return "\n".join(found)


def test_a_deleted_player_is_gone_from_every_view_and_from_the_database(
    served: tuple[Server, str],
) -> None:
    server, url = served
    stub = server.stub
    players = auth_service_pb2_grpc.AuthServiceStub(server.channel)
    device = _device()
    zelda = _sign_in(players, device, NAME).session
    ben = _sign_in(players, _device(), "Ben").session
    z, b = zelda.access_token, ben.access_token
    waiting = _create(stub, z)
    game = _create(stub, z)
    stub.JoinGame(api.JoinGameRequest(name=game, display_name="x"), metadata=auth(b))
    stub.StartGame(api.StartGameRequest(name=game), metadata=auth(z))
    for _ in range(2):
        current = stub.GetGame(api.GetGameRequest(name=game)).game.current_player
        mover = z if current.endswith("/0") else b
        _, moves = legal_moves(stub, game, mover)
        stub.SubmitMove(
            api.SubmitMoveRequest(name=game, move=moves[0]), metadata=auth(mover)
        )
    assert (
        stub.GetGame(api.GetGameRequest(name=game)).game.players[0].display_name == NAME
    )
    assert NAME not in _stored_text(url)

    players.DeletePlayer(
        auth_api.DeletePlayerRequest(name="players/me"), metadata=auth(z), timeout=30
    )

    # The seats: the waiting table left (and closed), the game resigned.
    seen = stub.GetGame(api.GetGameRequest(name=game), metadata=auth(b)).game
    assert seen.players[0].display_name == "deleted player 1"
    assert seen.players[0].resigned
    closed = stub.GetGame(api.GetGameRequest(name=waiting)).game
    assert closed.state == game_pb2.GAME_STATE_CLOSED
    # Replay and the live feed show the deleted player too.
    past = stub.GetGameRevision(
        api.GetGameRevisionRequest(name=f"{game}/revisions/3")
    ).snapshot
    assert past.players[0].display_name == "deleted player 1"
    joined = next(
        event.player_joined
        for event in stub.ListGameEvents(api.ListGameEventsRequest(parent=game)).events
        if event.HasField("player_joined")
    )
    assert joined.display_name == "deleted player 1"
    stream = stub.StreamGame(
        api.StreamGameRequest(name=game, snapshot_first=True), timeout=10
    )
    first = next(iter(stream))
    stream.cancel()
    assert first.snapshot.players[0].display_name == "deleted player 1"
    # The record still verifies, and holds nothing of hers.
    assert server.operator_token is not None
    assert verified_export(server.channel, game, server.operator_token).ok
    stored = _stored_text(url)
    assert NAME not in stored
    assert device not in stored
    # Her account and her access token are gone; her device starts anew.
    code, reason, _ = expect_error(
        players.GetPlayer,
        auth_api.GetPlayerRequest(name="players/me"),
        metadata=auth(z),
    )
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "PLAYER_NOT_FOUND")
    code, reason, _ = expect_error(_create, stub, z)
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "PLAYER_NOT_FOUND")
    code, reason, _ = expect_error(
        players.RefreshSession,
        auth_api.RefreshSessionRequest(refresh_token=zelda.refresh_token),
    )
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "INVALID_REFRESH_TOKEN")
    again = _sign_in(players, device, "Z")
    assert again.created
    assert again.session.player.name != zelda.player.name
    # The others play on: the server's bot plays her seat.
    current = stub.GetGame(api.GetGameRequest(name=game)).game.current_player
    if current.endswith("/1"):
        _, moves = legal_moves(stub, game, b)
        stub.SubmitMove(
            api.SubmitMoveRequest(name=game, move=moves[0]), metadata=auth(b)
        )


def test_deleting_needs_a_recent_session_of_ones_own(
    served: tuple[Server, str],
) -> None:
    server, _ = served
    players = auth_service_pb2_grpc.AuthServiceStub(server.channel)
    zelda = _sign_in(players, _device(), NAME).session
    ben = _sign_in(players, _device(), "Ben").session
    code, reason, _ = expect_error(
        players.DeletePlayer,
        auth_api.DeletePlayerRequest(name=zelda.player.name),
        metadata=auth(ben.access_token),
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYER_NAME")
    players.SignOut(auth_api.SignOutRequest(refresh_token=zelda.refresh_token))
    code, reason, _ = expect_error(
        players.DeletePlayer,
        auth_api.DeletePlayerRequest(name="players/me"),
        metadata=auth(zelda.access_token),
    )
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "SESSION_NOT_RECENT")
    assert (
        players.GetPlayer(
            auth_api.GetPlayerRequest(name="players/me"),
            metadata=auth(zelda.access_token),
        ).player.display_name
        == NAME
    )
