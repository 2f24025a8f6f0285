"""One server span per call, and a clear refusal without the tracing extra."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from tabletop.v1 import game_pb2, game_service_pb2_grpc
from tabletop.v1 import game_service_pb2 as api

from infra.cli import main
from infra.server import create_server, stop_server
from infra.settings import Settings
from infra.tracing import traced
from services.feed import Feed
from services.games import GamesApp

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


@pytest.fixture
async def traced_server() -> AsyncIterator[tuple[Any, InMemorySpanExporter]]:
    """Yields a stub of an in-process server whose spans are kept in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    feed = Feed(app, heartbeat_seconds=1)
    settings = Settings(listen="127.0.0.1:0", reflection=False)
    observers = [traced(provider.get_tracer("test"))]
    running = await create_server(settings, app, feed, observers)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield game_service_pb2_grpc.GameServiceStub(channel), exporter
    finally:
        await channel.close()
        await stop_server(running, 1)
        app.close()


async def finished(
    exporter: InMemorySpanExporter, count: int
) -> tuple[ReadableSpan, ...]:
    """Returns the finished spans once there are ``count`` (or after 5 s)."""
    for _ in range(500):
        spans = exporter.get_finished_spans()
        if len(spans) >= count:
            break
        await asyncio.sleep(0.01)
    return tuple(spans)


def only(spans: tuple[ReadableSpan, ...], method: str) -> ReadableSpan:
    (span,) = [s for s in spans if s.name == f"tabletop.v1.GameService/{method}"]
    return span


async def test_every_call_is_a_server_span_with_its_method_code_and_game(
    traced_server: tuple[Any, InMemorySpanExporter],
) -> None:
    stub, exporter = traced_server
    created = await stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Ana",
        ),
        metadata=(("traceparent", PARENT),),
    )
    name = created.game.name
    with pytest.raises(grpc.aio.AioRpcError):
        await stub.GetGame(
            api.GetGameRequest(name=name),
            metadata=(("authorization", "Bearer not-a-seat"),),
        )

    # An abort sends its status at once: the client may hear it before the
    # server's span of that call has ended.
    spans = await finished(exporter, 2)
    create = only(spans, "CreateGame")
    assert create.kind is trace.SpanKind.SERVER
    assert create.attributes is not None
    assert create.attributes["rpc.system"] == "grpc"
    assert create.attributes["rpc.service"] == "tabletop.v1.GameService"
    assert create.attributes["rpc.method"] == "CreateGame"
    assert create.attributes["rpc.grpc.status_code"] == 0
    assert format(create.context.trace_id, "032x") == TRACE_ID  # the client's trace
    refused = only(spans, "GetGame")
    assert refused.attributes is not None
    assert refused.attributes["tabletop.game_id"] == name.removeprefix("games/")
    assert refused.attributes["rpc.grpc.status_code"] == 16  # UNAUTHENTICATED
    assert refused.attributes["tabletop.error_reason"] == "INVALID_CREDENTIALS"
    assert refused.status.status_code is trace.StatusCode.UNSET  # the client's fault
    assert "not-a-seat" not in str(refused.to_json())


def test_tracing_without_the_extra_exits_with_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda _name: None)
    argv = ["serve", "--database", "memory:", "--otel-endpoint", "http://otel:4317"]
    assert main(argv) == 2
    assert "pip install 'tabletop[tracing]'" in capsys.readouterr().err


def test_tracing_is_off_unless_an_endpoint_is_given() -> None:
    assert Settings.from_env({}).otel_endpoint is None
    environ = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4317"}
    assert Settings.from_env(environ).otel_endpoint == "http://otel:4317"
