"""Bots play whole games of every type against bots, through a real server."""

from __future__ import annotations

import threading
import uuid

import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.bot_client import BotSeat, join_as_bot, play_seat
from tests.e2e.client import auth, verified_export
from tests.e2e.conftest import Server

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
