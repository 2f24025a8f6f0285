"""Bots play whole games of every type against bots, through a real server."""

from __future__ import annotations

import socket
import threading
import time
import uuid

import grpc
import pytest
from tabletop.v1 import event_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from infra.bot_client import BotSeat, join_as_bot, play_bots, play_seat
from tests.e2e.client import (
    auth,
    create_qwirkle,
    get,
    legal_moves,
    seat_of,
    start_two_seats,
    submit,
    verified_export,
)
from tests.e2e.conftest import Server, start_server

GAMES = [
    (game_pb2.GAME_TYPE_QWIRKLE, 2),
    (game_pb2.GAME_TYPE_HUES_AND_CUES, 3),
    (game_pb2.GAME_TYPE_SPLIT, 2),
    (game_pb2.GAME_TYPE_GNOMING_A_ROUND, 3),
    (game_pb2.GAME_TYPE_FOOL, 4),
]
GAME_SECONDS = 30.0


@pytest.mark.parametrize(
    ("game_type", "players"), GAMES, ids=[game_pb2.GameType.Name(t) for t, _ in GAMES]
)
def test_bots_play_a_whole_game(
    server: Server, game_type: game_pb2.GameType, players: int
) -> None:
    stub = server.stub
    created = stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_type, max_players=players),
            display_name="Bot 0",
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )
    name = created.game.name
    seats = [BotSeat(stub, name, created.seat_token)]
    for number in range(1, players):
        joined, index = join_as_bot(stub, name, f"Bot {number}")
        assert index == number
        seats.append(joined)
    stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(seats[0].token), timeout=10
    )
    made = [0] * players
    errors: list[str] = []

    def run(index: int) -> None:
        try:
            made[index] = play_seat(seats[index])
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(f"seat {index}: {error!r}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GAME_SECONDS)
        assert not thread.is_alive(), "a bot is still playing"
    assert errors == []
    game = stub.GetGame(api.GetGameRequest(name=name), timeout=10).game
    assert game.state == game_pb2.GAME_STATE_FINISHED
    assert sum(made) == game.move_count > 0
    assert all(count > 0 for count in made)  # every bot played its part
    assert server.operator_token is not None
    report = verified_export(server.channel, name, server.operator_token)
    assert report.ok, report.render()


def test_a_bot_rides_out_a_server_restart(postgres_url: str) -> None:
    with socket.socket() as probe:  # a port both servers listen on, one by one
        probe.bind(("127.0.0.1", 0))
        listen = f"127.0.0.1:{probe.getsockname()[1]}"
    first = start_server(postgres_url, dev=False, listen=listen)
    created = create_qwirkle(first.stub)
    name = created.game.name
    bot, _ = join_as_bot(first.stub, name, "Bot")
    channel = grpc.insecure_channel(listen)  # the bot's own, as a process has
    bot = BotSeat(GameServiceStub(channel), name, bot.token)
    first.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(created.seat_token), timeout=10
    )
    made: list[int] = []
    thread = threading.Thread(target=lambda: made.append(play_seat(bot)))
    thread.start()
    ana = created.seat_token
    server = first
    try:
        for turn in range(200):
            if turn == 6:  # mid-game: the server restarts
                assert server.stop() == 0
                server = start_server(postgres_url, dev=False, listen=listen)
            if not _ana_moves(server, name, ana):
                break
        thread.join(GAME_SECONDS)
        assert not thread.is_alive(), "the bot did not come back"
    finally:
        channel.close()
        if server.process.poll() is None:
            server.stop()
    assert made, "the bot failed"
    assert made[0] > 3


def _ana_moves(server: Server, name: str, token: str) -> bool:
    """Waits for Ana's turn and plays it; False once the game is over."""
    deadline = time.monotonic() + GAME_SECONDS
    while True:
        game = get(server.stub, name)
        if game.state == game_pb2.GAME_STATE_FINISHED:
            return False
        if game.current_player.endswith("/0"):
            revision, moves = legal_moves(server.stub, name, token)
            submit(server.stub, name, token, moves[0], revision)
            return True
        assert time.monotonic() < deadline, "the bot does not move"
        time.sleep(0.02)


def test_a_bot_accepts_a_takeback_of_the_other_players_last_move(
    server: Server,
) -> None:
    name, (ana, bot) = start_two_seats(server.stub)
    if seat_of(get(server.stub, name).current_player) == 1:  # Ana moves last
        revision, moves = legal_moves(server.stub, name, bot)
        submit(server.stub, name, bot, moves[0], revision)
    revision, moves = legal_moves(server.stub, name, ana)
    moved = submit(server.stub, name, ana, moves[0], revision).game.revision
    server.stub.ProposeUndo(
        api.ProposeUndoRequest(
            name=name, expected_revision=moved, request_id=str(uuid.uuid4())
        ),
        metadata=auth(ana),
        timeout=10,
    )
    stop = play_bots([BotSeat(server.stub, name, bot)], 0)  # its turn, a proposal open
    try:
        deadline = time.monotonic() + GAME_SECONDS
        while (game := get(server.stub, name)).HasField("pending_undo"):
            assert time.monotonic() < deadline, "the bot does not answer"
            time.sleep(0.02)
    finally:
        stop.set()
    events = server.stub.ListGameEvents(
        api.ListGameEventsRequest(parent=name, page_size=1000), timeout=10
    ).events
    resolved = [e.undo_resolved for e in events if e.HasField("undo_resolved")]
    assert [r.outcome for r in resolved] == [event_pb2.UNDO_OUTCOME_ACCEPTED]
    assert events[-1].HasField("undo_resolved")  # the bot made no move after it
    assert seat_of(game.current_player) == 0  # Ana's move again
