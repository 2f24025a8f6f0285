"""Turn time limits and bot moves through a real server: the timer fires, the bot moves.

A turn may not be shorter than 10 s (T16), too long to wait for in a test, so
the timeout runs through a server in this process on PostgreSQL whose store
reads a clock the test moves by hand, with its turn clock ticked by the test;
the limits are checked through the ``tabletop serve`` process.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import TYPE_CHECKING, TypeAlias

import grpc
import pytest
from google.protobuf import duration_pb2
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from domain.common.turn_timer import MIN_TURN_SECONDS
from infra.databases import persistence_env
from infra.event_store import ensure_schema
from infra.server import create_server, stop_server
from infra.settings import Settings
from services.feed import Feed
from services.games import GamesApp
from services.turns import TurnClock
from tests.e2e.client import auth, expect_error, get, seat_of, start_two_seats, submit
from tests.e2e.conftest import Server
from tests.playing import Clock

if TYPE_CHECKING:  # the async stub's type exists only in the generated stubs
    from tabletop.v1.game_service_pb2_grpc import GameServiceAsyncStub


def create_timed(
    stub: GameServiceStub, limit: duration_pb2.Duration
) -> api.CreateGameResponse:
    return stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_QWIRKLE, turn_time_limit=limit
            ),
            display_name="Ana",
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )


Clocked: TypeAlias = "tuple[GameServiceAsyncStub, GamesApp, Clock]"


@pytest.fixture
async def clocked(postgres_url: str) -> AsyncIterator[Clocked]:
    """Yields a stub of an in-process server whose store reads a hand-moved clock."""
    env = persistence_env(postgres_url)
    ensure_schema(env)
    clock = Clock()
    app = GamesApp(env, clock=clock)
    feed = Feed(app)
    running = await create_server(Settings(listen="127.0.0.1:0"), app, feed)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield GameServiceStub(channel), app, clock
    finally:
        await channel.close()
        await stop_server(running, 1)
        app.close()


async def test_when_a_turn_runs_out_the_bot_moves_for_the_seat(
    clocked: Clocked,
) -> None:
    stub, app, clock = clocked
    limit = duration_pb2.Duration(seconds=MIN_TURN_SECONDS)
    created = await stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_QWIRKLE, turn_time_limit=limit
            ),
            display_name="Ana",
        ),
        timeout=10,
    )
    name = created.game.name
    assert created.game.turn_time_limit.seconds == MIN_TURN_SECONDS
    joined = await stub.JoinGame(
        api.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    )
    tokens = [created.seat_token, joined.seat_token]
    started = (
        await stub.StartGame(
            api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
        )
    ).game
    first = seat_of(started.current_player)
    deadline = clock.now + timedelta(seconds=MIN_TURN_SECONDS)
    assert started.turn_deadline.ToDatetime().replace(tzinfo=deadline.tzinfo) == (
        deadline
    )
    turns = TurnClock(app)
    clock.advance(MIN_TURN_SECONDS - 1)
    assert await asyncio.to_thread(turns.tick) == []
    clock.advance(1)
    assert len(await asyncio.to_thread(turns.tick)) == 1
    events = (
        await stub.ListGameEvents(
            api.ListGameEventsRequest(parent=name, page_size=50), timeout=10
        )
    ).events
    kinds = [event.WhichOneof("event") for event in events]
    timed_out = kinds.index("turn_timed_out")
    assert kinds[timed_out + 1] == "move_played"
    assert events[timed_out].turn_timed_out.player == started.current_player
    bot_move = events[timed_out + 1]
    assert (bot_move.actor, bot_move.move_number) == (started.current_player, 1)
    assert seat_of(bot_move.actor) == first
    assert kinds[-1] == "turn_timer_started"  # the next seat's turn is timed too


def test_the_bot_suggests_a_legal_move_to_the_seat_to_move(server: Server) -> None:
    stub = server.stub
    name, tokens = start_two_seats(stub)
    game = get(stub, name)
    seat = seat_of(game.current_player)
    suggested = stub.SuggestMove(
        api.SuggestMoveRequest(name=name), metadata=auth(tokens[seat]), timeout=10
    )
    assert suggested.HasField("move")
    assert suggested.revision == game.revision
    reply = submit(stub, name, tokens[seat], suggested.move, suggested.revision)
    assert reply.game.move_count == 1
    waiting = stub.SuggestMove(
        api.SuggestMoveRequest(name=name), metadata=auth(tokens[seat]), timeout=10
    )
    assert not waiting.HasField("move")  # the other seat is to move now
    spectating = stub.SuggestMove(api.SuggestMoveRequest(name=name), timeout=10)
    assert not spectating.HasField("move")  # a spectator has no move either
    assert spectating.revision == waiting.revision


def test_a_turn_time_limit_out_of_range_is_refused_and_nothing_stored(
    server: Server,
) -> None:
    stub = server.stub
    before = len(stub.ListGames(api.ListGamesRequest(page_size=200), timeout=10).games)
    for limit in (
        duration_pb2.Duration(seconds=5),  # below the floor: a stalled game's flood
        duration_pb2.Duration(seconds=-5),
        duration_pb2.Duration(seconds=8 * 24 * 3600),
        duration_pb2.Duration(seconds=30, nanos=500_000_000),
    ):
        code, reason, _ = expect_error(create_timed, stub, limit)
        assert (code, reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_TURN_TIME_LIMIT",
        )
    after = len(stub.ListGames(api.ListGamesRequest(page_size=200), timeout=10).games)
    assert after == before
