"""The rate limiter as an interceptor: which bucket each call is charged to."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from domain.games.qwirkle import QwirkleConfig
from services.api.limits import (
    MALFORMED_CHARGE,
    KnownTokens,
    RateLimiter,
    RateLimitInterceptor,
)
from services.calls import CreateGame, JoinGame
from services.games import GamesApp, Seated
from services.tokens import token_hash
from tests.helpers import Aborted

GET = "/tabletop.v1.GameService/GetGame"
CREATE = "/tabletop.v1.GameService/CreateGame"
PEER = "ipv4:203.0.113.9:40000"


class Context:
    """The parts of a grpc.aio servicer context the limiter reads."""

    def __init__(self, token: str | None, peer: str = PEER) -> None:
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._peer = peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise Aborted(status)


def still(rate: float, burst: int) -> RateLimiter:
    """Returns a limiter on a clock that never moves: a bucket never refills."""
    return RateLimiter(rate, burst, clock=lambda: 1000.0)


async def call(
    limits: RateLimitInterceptor, method: str, token: str | None, peer: str = PEER
) -> dict[str, str] | None:
    """Makes one call; returns the refusal's ErrorInfo metadata, or None if admitted."""
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(
        lambda request, _: request
    )
    guard = limits.guard_for(method, handler)
    try:
        async with guard(Context(token, peer), None):
            return None
    except Aborted as aborted:
        status = aborted.status
        assert status.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        details = dict(status.trailing_metadata)["grpc-status-details-bin"]
        assert isinstance(details, bytes)
        info = error_details_pb2.ErrorInfo()
        assert status_pb2.Status.FromString(details).details[0].Unpack(info)
        assert info.reason == "RATE_LIMITED"
        return dict(info.metadata)


async def test_a_made_up_token_per_call_is_charged_to_the_address() -> None:
    limits = RateLimitInterceptor(still(1, 3))
    admitted = [await call(limits, GET, f"made-up-{n}") for n in range(3)]
    assert admitted == [None] * 3
    refused = await call(limits, GET, "made-up-3")
    assert refused is not None
    assert (refused["limit"], refused["limitedBy"]) == ("calls", "client address")
    assert await call(limits, GET, None) is not None  # the same bucket
    assert await call(limits, GET, None, "ipv4:198.51.100.1:1") is None


async def test_a_token_the_store_saw_act_for_a_seat_has_its_own_bucket() -> None:
    limits = RateLimitInterceptor(still(1, 1))
    assert await call(limits, GET, "real") is None  # charged to the address
    assert await call(limits, GET, "real") is not None
    limits.known.learn(token_hash("real"))
    assert await call(limits, GET, "real") is None
    refused = await call(limits, GET, "real")
    assert refused is not None
    assert refused["limitedBy"] == "credential"


async def test_a_method_with_its_own_limit_counts_per_address_whatever_the_token() -> (
    None
):
    known = KnownTokens()
    known.learn(token_hash("real"))
    limits = RateLimitInterceptor(still(1, 100), known, {"CreateGame": still(0.5, 2)})
    assert [await call(limits, CREATE, t) for t in ("real", None)] == [None, None]
    refused = await call(limits, CREATE, "real")
    assert refused is not None
    assert refused["limit"] == "CreateGame"
    assert refused["limitedBy"] == "client address"
    assert (refused["callsPerSecond"], refused["burst"]) == ("0.5", "2")
    assert refused["retryDelayMillis"] == "2000"
    # Other methods, and other addresses, are not held back by it.
    assert await call(limits, GET, None) is None
    assert await call(limits, CREATE, None, "ipv4:198.51.100.1:1") is None


async def test_a_call_over_the_general_limit_is_not_charged_to_its_method() -> None:
    create = still(1, 1)
    limits = RateLimitInterceptor(still(1, 1), per_address={"CreateGame": create})
    assert await call(limits, GET, None) is None
    refused = await call(limits, CREATE, None)
    assert refused is not None
    assert refused["limit"] == "calls"
    assert create.admit(f"peer:{PEER.rsplit(':', 1)[0]}") == 0  # still full


def test_the_store_tells_the_limiter_of_every_token_it_issues() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    known = KnownTokens()
    app.authenticated.append(known.learn)
    created = app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada"))
    assert isinstance(created, Seated)
    joined = app.join_game(JoinGame(created.record.game_id, "Bo"))
    assert isinstance(joined, Seated)
    assert token_hash(created.token) in known
    assert token_hash(joined.token) in known
    assert len(known) == 2


def test_the_store_tells_the_limiter_of_every_token_that_acts_for_a_seat() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    created = app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada"))
    assert isinstance(created, Seated)
    known = KnownTokens()  # as a server that did not issue the token
    app.authenticated.append(known.learn)
    record = app.get_game(created.record.game_id)
    assert record is not None
    app.viewer_for(record, "made-up")
    assert len(known) == 0
    app.viewer_for(record, created.token)
    assert token_hash(created.token) in known
    app.close()


@pytest.mark.parametrize("size", [0, -1])
def test_known_tokens_need_room_for_one(size: int) -> None:
    with pytest.raises(ValueError, match="at least one"):
        KnownTokens(max_size=size)


class Malformed(Context):
    """A context whose call the handler refused with INVALID_ARGUMENT."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.INVALID_ARGUMENT


async def refused_as_malformed(limits: RateLimitInterceptor) -> None:
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(
        lambda request, _: request
    )
    with pytest.raises(RuntimeError, match="refused"):
        async with limits.guard_for(GET, handler)(Malformed(None), None):
            raise RuntimeError("refused")  # as the handler's abort raises


async def test_a_call_refused_as_malformed_costs_its_caller_many_calls() -> None:
    limits = RateLimitInterceptor(still(1, 2 * MALFORMED_CHARGE + 10))
    await refused_as_malformed(limits)
    await refused_as_malformed(limits)
    admitted = [await call(limits, GET, None) for _ in range(10)]
    assert admitted == [None] * 10
    assert await call(limits, GET, None) is not None


async def test_malformed_calls_leave_a_debt_of_at_most_one_burst() -> None:
    limiter = RateLimiter(10, 5, clock=lambda: 1000.0)
    assert limiter.admit("k") == 0
    limiter.charge("k", 100)
    assert limiter.admit("k") == pytest.approx((1 + 5) / 10)
