"""Three seats play Gnoming A Round to the end through the real server.

A spectator follows the whole game on ``StreamGame``; on the way a seat takes
back a move that revealed nothing by itself (D25), a middle revision is
replayed, and the operator's export of the finished game verifies.
"""

from __future__ import annotations

import random
import uuid

from tabletop.v1 import game_pb2, gnoming_a_round_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import Spectator, auth
from tests.e2e.conftest import Server
from tests.e2e.playthrough import check_the_finished_game, play_with_one_self_undo

SEED = bytes(range(32))
NAMES = ("Ana", "Ben", "Cy")


def _open_table(server: Server) -> tuple[str, list[str]]:
    created = server.stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_GNOMING_A_ROUND,
                gnoming_a_round_config=gnoming_a_round_pb2.GnomingARoundConfig(),
            ),
            display_name=NAMES[0],
            seed=SEED,
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )
    name, tokens = created.game.name, [created.seat_token]
    for display_name in NAMES[1:]:
        joined = server.stub.JoinGame(
            api.JoinGameRequest(name=name, display_name=display_name), timeout=10
        )
        tokens.append(joined.seat_token)
    return name, tokens


def test_three_seats_play_gnoming_a_round_to_the_end_while_a_spectator_follows(
    server: Server,
) -> None:
    name, tokens = _open_table(server)
    spectator = Spectator(server.stub, name)
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    chooser = random.Random(2026)
    undone = play_with_one_self_undo(
        server, name, tokens, chooser.choice, "gnoming_a_round"
    )
    assert undone == 1
    check_the_finished_game(server, name, spectator)
