"""A server refuses by shape before its handler: nothing converted, loaded or stored."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any, cast

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import (
    game_pb2,
    game_service_pb2_grpc,
)
from tabletop.v1 import game_service_pb2 as api

from infra.server import create_server, stop_server
from infra.settings import Settings
from services.api import turns
from services.api.convert.moves import move_from_request
from services.api.limits import MALFORMED_CHARGE
from services.feed import Feed
from services.games import GamesApp
from tests.helpers import qwirkle_placements_message


@contextlib.asynccontextmanager
async def serving(app: GamesApp, settings: Settings) -> AsyncIterator[grpc.aio.Channel]:
    """Yields a channel to an in-process server of ``app``."""
    feed = Feed(app, heartbeat_seconds=1)
    running = await create_server(settings, app, feed)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield channel
    finally:
        await channel.close()
        await stop_server(running, 1)
        app.close()


def counted(counts: Counter[str], key: str, function: Any) -> Any:
    """Returns ``function``, counting its calls under ``key``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        counts[key] += 1
        return function(*args, **kwargs)

    return call


async def _qwirkle_table(stub: Any) -> tuple[str, str]:
    """Opens and starts a two-seat Qwirkle game; returns it and the mover's token."""
    created = await stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE, max_players=2),
            display_name="Ana",
        )
    )
    name = created.game.name
    joined = await stub.JoinGame(api.JoinGameRequest(name=name, display_name="Ben"))
    tokens = [created.seat_token, joined.seat_token]
    auth = (("authorization", f"Bearer {tokens[0]}"),)
    started = await stub.StartGame(api.StartGameRequest(name=name), metadata=auth)
    seat = int(started.game.current_player.rsplit("/", 1)[1])
    return name, tokens[seat]


def _reason(error: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    status = rpc_status.from_call(cast("grpc.Call", error))
    assert status is not None
    (packed,) = [
        d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)
    ]
    packed.Unpack(info)
    return info.reason


async def test_a_move_refused_by_shape_is_neither_converted_nor_its_game_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    counts: Counter[str] = Counter()
    convert = counted(counts, "converted", move_from_request)
    monkeypatch.setattr(turns, "move_from_request", convert)
    monkeypatch.setattr(app, "submit_move", counted(counts, "loaded", app.submit_move))
    settings = Settings(listen="127.0.0.1:0", reflection=False)
    async with serving(app, settings) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        name, token = await _qwirkle_table(stub)
        auth = (("authorization", f"Bearer {token}"),)
        # A move of a valid shape is converted and decided on the loaded game,
        # whether the rules accept it or not.
        with contextlib.suppress(grpc.aio.AioRpcError):
            await stub.SubmitMove(
                api.SubmitMoveRequest(name=name, move=qwirkle_placements_message(1)),
                metadata=auth,
            )
        assert counts["converted"] >= 1
        assert counts["loaded"] >= 1
        before = counts.copy()
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.SubmitMove(
                api.SubmitMoveRequest(
                    name=name, move=qwirkle_placements_message(4_000)
                ),
                metadata=auth,
            )
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert _reason(refused.value) == "TOO_MANY_VALUES"
        assert counts == before


async def test_a_request_refused_by_shape_still_costs_its_caller_the_rate() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    # Room for two refused calls (each costs MALFORMED_CHARGE) and a bucket
    # that refills only after some 17 minutes.
    settings = Settings(
        listen="127.0.0.1:0",
        reflection=False,
        rate_limit=0.001,
        rate_burst=MALFORMED_CHARGE + 1,
    )
    async with serving(app, settings) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        codes = []
        for _ in range(3):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.GetGame(api.GetGameRequest(name="games/" + "x" * 10_000))
            codes.append((refused.value.code(), _reason(refused.value)))
    assert codes == [
        (grpc.StatusCode.INVALID_ARGUMENT, "FIELD_TOO_LONG"),
        (grpc.StatusCode.INVALID_ARGUMENT, "FIELD_TOO_LONG"),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED"),
    ]
