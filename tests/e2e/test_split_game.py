"""Three seats play Split to the end through the real server.

A spectator follows the whole game on ``StreamGame``; on the way a seat takes
back a move that drew and revealed nothing by itself (D21), a middle revision
is replayed, and the operator's export of the finished game verifies.
"""

from __future__ import annotations

import random

from tabletop.v1 import game_pb2, split_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import Spectator, auth
from tests.e2e.conftest import Server
from tests.e2e.playthrough import (
    by_action,
    check_the_finished_game,
    open_table,
    play_with_one_self_undo,
)


def test_three_seats_play_split_to_the_end_while_a_spectator_follows(
    server: Server,
) -> None:
    name, tokens = open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_SPLIT,
            split_config=split_pb2.SplitConfig(),
        ),
    )
    spectator = Spectator(server.stub, name)
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    chooser = random.Random(2026)
    undone = play_with_one_self_undo(
        server, name, tokens, by_action("split", chooser), "split"
    )
    assert undone == 1
    check_the_finished_game(server, name, spectator)
