"""Rate limits through a real server: per seat token, and per address without one.

The server allows 2 calls a second with bursts of 3, so a test exhausts a
bucket in a few calls and waits at most half a second for the next one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import grpc
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, create_qwirkle, error_of, get
from tests.e2e.conftest import Server, start_server

BURST = 3


@pytest.fixture
def limited(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """Yields a server that allows 2 calls a second, bursts of 3, per caller."""
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "2")
    monkeypatch.setenv("TABLETOP_RATE_BURST", str(BURST))
    running = start_server(postgres_url, dev=True)
    yield running
    assert running.stop() == 0


def exhaust(call: Callable[[], Any]) -> grpc.RpcError:
    """Calls until the server refuses; returns the refusal."""
    for _ in range(BURST + 3):  # the bucket refills a little meanwhile
        try:
            call()
        except grpc.RpcError as error:
            return error
    msg = "the server never limited the calls"
    raise AssertionError(msg)


def retry_delay(error: grpc.RpcError) -> float:
    """Returns the RetryInfo delay of a refusal, in seconds."""
    status = rpc_status.from_call(cast("grpc.Call", error))
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            delay: duration_pb2.Duration = info.retry_delay
            return delay.seconds + delay.nanos / 1e9
    msg = "the refusal has no RetryInfo"
    raise AssertionError(msg)


def assert_rate_limited(error: grpc.RpcError, limited_by: str) -> float:
    """Checks a refusal is RATE_LIMITED with advice; returns the advised delay."""
    code, reason, metadata = error_of(error)
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    assert metadata["limitedBy"] == limited_by
    delay = retry_delay(error)
    assert 0 < delay <= 0.5 + 1e-3  # one call's refill at 2 a second
    details = cast("grpc.Call", error).details() or ""
    assert f"Retry in {metadata['retryDelayMillis']} ms" in details
    return delay


def test_a_token_over_its_limit_is_refused_and_nothing_is_stored(
    limited: Server,
) -> None:
    stub = limited.stub
    created = create_qwirkle(stub, "Ana")
    name = created.game.name
    joined = stub.JoinGame(api.JoinGameRequest(name=name, display_name="Ben"))
    ana, ben = created.seat_token, joined.seat_token
    before = get(stub, name, ben)

    refusal = exhaust(lambda: get(stub, name, ana))
    delay = assert_rate_limited(refusal, "credential")
    start = api.StartGameRequest(name=name)
    refused = exhaust(lambda: stub.StartGame(start, metadata=auth(ana), timeout=10))
    assert_rate_limited(refused, "credential")

    # Another seat's token has a bucket of its own; the start was not recorded.
    after = get(stub, name, ben)
    assert after.state == game_pb2.GAME_STATE_WAITING_FOR_PLAYERS
    assert after.revision == before.revision

    time.sleep(delay)
    started = stub.StartGame(start, metadata=auth(ana), timeout=10)
    assert started.game.state == game_pb2.GAME_STATE_IN_PROGRESS


def test_calls_without_a_token_are_limited_by_address_streams_included(
    limited: Server,
) -> None:
    stub = limited.stub
    name = create_qwirkle(stub, "Ana").game.name
    refusal = exhaust(lambda: stub.ListGameTypes(api.ListGameTypesRequest()))
    delay = assert_rate_limited(refusal, "client address")

    # Opening a stream is a call: refused while the address has none left.
    stream = stub.StreamGame(api.StreamGameRequest(name=name), timeout=10)
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(stream))
    assert_rate_limited(refused.value, "client address")

    time.sleep(delay)
    stream = stub.StreamGame(
        api.StreamGameRequest(name=name, snapshot_first=True), timeout=10
    )
    first = next(iter(stream))
    assert first.HasField("snapshot")
    stream.cancel()
