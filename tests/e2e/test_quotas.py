"""Per-address quotas of ``CreateGame`` through a real server process.

One address may hold a few tables waiting for players and open a few games
with turn time limits; beyond that ``CreateGame`` is refused and nothing is
stored. A table stops counting as waiting once it has started.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import duration_pb2
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, expect_error
from tests.e2e.conftest import Server, start_server

MAX_WAITING = 2
MAX_TIMED = 1
TURN_LIMIT = duration_pb2.Duration(seconds=60)


@pytest.fixture
def quota_server(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Server]:
    """Yields a server allowing 2 waiting tables and 1 timed game per address."""
    monkeypatch.setenv("TABLETOP_MAX_WAITING_TABLES", str(MAX_WAITING))
    monkeypatch.setenv("TABLETOP_MAX_TIMED_GAMES", str(MAX_TIMED))
    running = start_server(postgres_url, dev=True)
    yield running
    assert running.stop() == 0


def create_request(*, timed: bool = False) -> api.CreateGameRequest:
    game = game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE)
    if timed:
        game.turn_time_limit.CopyFrom(TURN_LIMIT)
    return api.CreateGameRequest(
        game=game, display_name="Ana", request_id=str(uuid.uuid4())
    )


def stored_games(server: Server) -> int:
    reply = server.stub.ListGames(api.ListGamesRequest(page_size=50), timeout=10)
    return len(reply.games)


def seat_and_start(server: Server, created: api.CreateGameResponse) -> None:
    name = created.game.name
    server.stub.JoinGame(api.JoinGameRequest(name=name, display_name="Ben"), timeout=10)
    server.stub.StartGame(
        api.StartGameRequest(name=name),
        metadata=auth(created.seat_token),
        timeout=10,
    )


def test_an_address_cannot_hold_more_waiting_tables_than_its_cap(
    quota_server: Server,
) -> None:
    stub = quota_server.stub
    first = stub.CreateGame(create_request(), timeout=10)
    second_request = create_request()
    second = stub.CreateGame(second_request, timeout=10)
    code, reason, metadata = expect_error(stub.CreateGame, create_request(), timeout=10)
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason == "TOO_MANY_WAITING_TABLES"
    assert metadata == {"maxWaitingTables": str(MAX_WAITING)}
    assert stored_games(quota_server) == MAX_WAITING
    # A retry of a table the address already holds still gets its answer.
    again = stub.CreateGame(second_request, timeout=10)
    assert (again.game.name, again.seat_token) == (
        second.game.name,
        second.seat_token,
    )
    # Once one of its tables has started, the address may open another.
    seat_and_start(quota_server, first)
    stub.CreateGame(create_request(), timeout=10)
    assert stored_games(quota_server) == MAX_WAITING + 1


def test_an_address_cannot_open_more_games_with_turn_limits_than_its_cap(
    quota_server: Server,
) -> None:
    stub = quota_server.stub
    timed = stub.CreateGame(create_request(timed=True), timeout=10)
    seat_and_start(quota_server, timed)  # no longer waiting, still open
    code, reason, metadata = expect_error(
        stub.CreateGame, create_request(timed=True), timeout=10
    )
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason == "TOO_MANY_TIMED_GAMES"
    assert metadata == {"maxTimedGames": str(MAX_TIMED)}
    assert stored_games(quota_server) == 1
    stub.CreateGame(create_request(), timeout=10)  # without a turn limit
