"""Rate limits through a real server: per known seat token, per address otherwise.

The server allows 2 calls a second with bursts of 3, so a test exhausts a
bucket in a few calls and waits at most half a second for the next one. A
token gets a bucket of its own only once the server has seen it act for a
seat; until then (and a made-up token always) it shares its address's bucket.
``CreateGame``, ``JoinGame`` and ``ListGames`` have stricter buckets per
address on top (``per_method``: 2 calls in a burst, one every 2 s after).
"""

from __future__ import annotations

import secrets
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
METHOD_BURST = 2


@pytest.fixture
def limited(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """Yields a server that allows 2 calls a second, bursts of 3, per caller."""
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "2")
    monkeypatch.setenv("TABLETOP_RATE_BURST", str(BURST))
    running = start_server(postgres_url, dev=True)
    yield running
    assert running.stop() == 0


@pytest.fixture
def per_method(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """Yields a server whose create, join and list limits are 0.5/s, bursts of 2."""
    for kind in ("CREATE", "JOIN", "LIST"):
        monkeypatch.setenv(f"TABLETOP_{kind}_RATE_LIMIT", "0.5")
        monkeypatch.setenv(f"TABLETOP_{kind}_RATE_BURST", str(METHOD_BURST))
    running = start_server(postgres_url, dev=True)
    yield running
    assert running.stop() == 0


def exhaust(call: Callable[[], Any], burst: int = BURST) -> grpc.RpcError:
    """Calls until the server refuses; returns the refusal."""
    for _ in range(burst + 3):  # the bucket refills a little meanwhile
        try:
            call()
        except grpc.RpcError as error:
            return error
    msg = "the server never limited the calls"
    raise AssertionError(msg)


def politely(call: Callable[[], Any]) -> Any:
    """Calls, waiting as advised while the call is rate limited; returns the reply."""
    for _ in range(10):
        try:
            return call()
        except grpc.RpcError as error:
            if error_of(error)[1] != "RATE_LIMITED":
                raise
            time.sleep(retry_delay(error))
    msg = "the call was refused ten times though it waited as advised"
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


def assert_rate_limited(
    error: grpc.RpcError,
    limited_by: str,
    limit: str = "calls",
    per_second: float = 2,
) -> float:
    """Checks a refusal is RATE_LIMITED with advice; returns the advised delay."""
    code, reason, metadata = error_of(error)
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    assert (metadata["limitedBy"], metadata["limit"]) == (limited_by, limit)
    delay = retry_delay(error)
    assert 0 < delay <= 1 / per_second + 1e-3  # one call's refill
    details = cast("grpc.Call", error).details() or ""
    assert f"Retry in {metadata['retryDelayMillis']} ms" in details
    return delay


def test_a_token_over_its_limit_is_refused_and_nothing_is_stored(
    limited: Server,
) -> None:
    stub = limited.stub
    created = politely(lambda: create_qwirkle(stub, "Ana"))
    name = created.game.name
    join = api.JoinGameRequest(name=name, display_name="Ben")
    joined = politely(lambda: stub.JoinGame(join, timeout=10))
    ana, ben = created.seat_token, joined.seat_token
    # Each token acts for its seat once (charged to the address), and is known
    # from then on: it has a bucket of its own.
    before = politely(lambda: get(stub, name, ben))
    politely(lambda: get(stub, name, ana))

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


def test_a_made_up_token_per_call_shares_the_addresss_bucket(
    limited: Server,
) -> None:
    stub = limited.stub

    def made_up() -> None:
        token = secrets.token_urlsafe(24)  # a new one every call
        stub.ListGameTypes(api.ListGameTypesRequest(), metadata=auth(token))

    refusal = exhaust(made_up)
    assert_rate_limited(refusal, "client address")
    # The address's own calls are refused too: it is one bucket.
    with pytest.raises(grpc.RpcError) as refused:
        stub.ListGameTypes(api.ListGameTypesRequest())
    assert_rate_limited(refused.value, "client address")


def _game_count(server: Server) -> int:
    listed = server.stub.ListGames(api.ListGamesRequest(page_size=200), timeout=10)
    return len(listed.games)


def test_create_game_is_limited_per_address_whatever_the_token(
    per_method: Server,
) -> None:
    stub = per_method.stub
    assert _game_count(per_method) == 0

    refusal = exhaust(
        lambda: stub.CreateGame(
            api.CreateGameRequest(
                game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
                display_name="Cy",
            ),
            metadata=auth(secrets.token_urlsafe(24)),
            timeout=10,
        ),
        METHOD_BURST,
    )
    assert_rate_limited(refusal, "client address", "CreateGame", 0.5)
    assert "CreateGame" in (cast("grpc.Call", refusal).details() or "")
    assert _game_count(per_method) == METHOD_BURST
    # Other methods keep the general limit.
    assert stub.ListGameTypes(api.ListGameTypesRequest(), timeout=10).game_types


def test_join_game_is_limited_per_address(per_method: Server) -> None:
    stub = per_method.stub
    name = create_qwirkle(stub, "Ana").game.name

    def join() -> None:
        request = api.JoinGameRequest(name=name, display_name="Ben")
        stub.JoinGame(request, timeout=10)

    refusal = exhaust(join, METHOD_BURST)
    assert_rate_limited(refusal, "client address", "JoinGame", 0.5)
    assert len(get(stub, name).players) == 1 + METHOD_BURST


def test_list_games_is_limited_per_address_even_for_a_known_token(
    per_method: Server,
) -> None:
    stub = per_method.stub
    created = create_qwirkle(stub, "Ana")
    get(stub, created.game.name, created.seat_token)  # the token is known now

    def list_games() -> None:
        request = api.ListGamesRequest(page_size=200)
        stub.ListGames(request, metadata=auth(created.seat_token), timeout=10)

    refusal = exhaust(list_games, METHOD_BURST)
    assert_rate_limited(refusal, "client address", "ListGames", 0.5)
