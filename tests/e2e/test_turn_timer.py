"""Turn time limits and bot moves through a real server: the timer fires, the bot moves.

The timer waits in real time here (a one-second limit); the same behaviour
with a hand-moved clock is in tests/unit/services/test_turns.py.
"""

from __future__ import annotations

import time
import uuid

import grpc
from google.protobuf import duration_pb2
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from tests.e2e.client import auth, expect_error, get, seat_of, start_two_seats, submit
from tests.e2e.conftest import Server

WAIT_SECONDS = 20.0  # for the clock to fire: it ticks every second


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


def test_when_a_turn_runs_out_the_bot_moves_for_the_seat(server: Server) -> None:
    stub = server.stub
    created = create_timed(stub, duration_pb2.Duration(seconds=1))
    name = created.game.name
    assert created.game.turn_time_limit.seconds == 1
    joined = stub.JoinGame(
        api.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    )
    tokens = [created.seat_token, joined.seat_token]
    started = stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    ).game
    first = seat_of(started.current_player)
    assert started.HasField("turn_deadline")
    deadline = time.monotonic() + WAIT_SECONDS
    while get(stub, name).move_count == 0:
        assert time.monotonic() < deadline, "the turn never timed out"
        time.sleep(0.1)
    events = stub.ListGameEvents(
        api.ListGameEventsRequest(parent=name, page_size=50), timeout=10
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
    code, reason, _ = expect_error(
        stub.SuggestMove, api.SuggestMoveRequest(name=name), timeout=10
    )
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_CREDENTIALS")


def test_a_turn_time_limit_out_of_range_is_refused_and_nothing_stored(
    server: Server,
) -> None:
    stub = server.stub
    before = len(stub.ListGames(api.ListGamesRequest(page_size=200), timeout=10).games)
    for limit in (
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
