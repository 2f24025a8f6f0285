"""The terminal client's feed when its seat is given up before its stream opens."""

from __future__ import annotations

import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.terminal.connection import connect, with_token
from infra.terminal.feed import follow
from tests.e2e.client import auth, get
from tests.e2e.conftest import Server
from tests.e2e.playthrough import open_table

pytestmark = pytest.mark.e2e


def test_a_seat_removed_before_the_stream_opens_is_told_by_the_events(
    server: Server,
) -> None:
    game = game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE, max_players=3)
    name, (ana, ben) = open_table(server, game, ("Ana", "Ben"))
    revision = get(server.stub, name).revision
    server.stub.RemovePlayer(
        api.RemovePlayerRequest(name=f"{name}/players/1"), metadata=auth(ana)
    )
    connection = with_token(connect(server.address), ben)
    feed = follow(connection, name, revision)
    try:
        item = feed.items.get(timeout=20)
    finally:
        feed.stop()
    assert item.kind == "events", item.message
    left = [e.player_left for e in item.events if e.HasField("player_left")]
    assert [(p.player, p.removed) for p in left] == [(f"{name}/players/1", True)]
