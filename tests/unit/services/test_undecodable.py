"""Requests that do not decode: refused after every guard, logged through a throttle."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from tabletop.v1 import game_service_pb2 as api

from services.api.errors import unavailable
from services.api.interception import ThrottledLog, Undecodable, guarded
from tests.helpers import Aborted

SUBMIT = "/tabletop.v1.GameService/SubmitMove"
GARBAGE = b"\xff\xff\xff"


class Context:
    """The parts of a grpc.aio servicer context a refusal uses."""

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5000"

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise Aborted(status)


class Recorder:
    """A guard that notes the requests it sees, and may refuse them."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.seen: list[Any] = []
        self.refuse = refuse

    @contextlib.asynccontextmanager
    async def __call__(self, context: Any, request: Any) -> AsyncIterator[None]:
        self.seen.append(request)
        if self.refuse:
            await context.abort_with_status(unavailable("closed"))
        yield


def reason_of(aborted: Aborted) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    status = aborted.status
    details = dict(status.trailing_metadata)["grpc-status-details-bin"]
    assert isinstance(details, bytes)
    info = error_details_pb2.ErrorInfo()
    assert status_pb2.Status.FromString(details).details[0].Unpack(info)
    return status.code, info.reason, dict(info.metadata)


handled: list[Any] = []


async def serve_move(request: Any, _: Any) -> api.SubmitMoveResponse:
    handled.append(request)
    return api.SubmitMoveResponse()


async def stream_game(request: Any, _: Any) -> AsyncIterator[api.StreamGameResponse]:
    handled.append(request)
    yield api.StreamGameResponse()


def unary(guard: Recorder) -> grpc.RpcMethodHandler[Any, Any]:
    handler = grpc.unary_unary_rpc_method_handler(
        serve_move,
        request_deserializer=api.SubmitMoveRequest.FromString,
        response_serializer=api.SubmitMoveResponse.SerializeToString,
    )
    return guarded(handler, guard, SUBMIT)


def test_the_deserializer_gives_undecodable_instead_of_raising() -> None:
    deserialize = unary(Recorder()).request_deserializer
    assert deserialize is not None
    assert isinstance(deserialize(GARBAGE), Undecodable)
    valid = api.SubmitMoveRequest(name="games/x").SerializeToString()
    assert deserialize(valid) == api.SubmitMoveRequest(name="games/x")


async def test_an_undecodable_request_is_refused_after_the_guards() -> None:
    guard, handled[:] = Recorder(), []
    handler = unary(guard)
    behavior: Any = handler.unary_unary
    deserialize = handler.request_deserializer
    assert deserialize is not None
    with pytest.raises(Aborted) as refused:
        await behavior(deserialize(GARBAGE), Context())
    code, reason, metadata = reason_of(refused.value)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNDECODABLE_REQUEST")
    assert metadata == {
        "method": "tabletop.v1.GameService/SubmitMove",
        "requestType": "tabletop.v1.SubmitMoveRequest",
    }
    assert "not a valid tabletop.v1.SubmitMoveRequest" in refused.value.status.details
    # The guards (the rate limiter) saw the call, with an empty request of its
    # type in place of the bytes, so none of them trips over them.
    assert guard.seen == [api.SubmitMoveRequest()]
    assert handled == []


async def test_a_guard_that_refuses_wins_over_the_undecodable_refusal() -> None:
    behavior: Any = unary(Recorder(refuse=True)).unary_unary
    with pytest.raises(Aborted) as refused:
        await behavior(Undecodable("bad"), Context())
    assert refused.value.status.code == grpc.StatusCode.UNAVAILABLE


async def test_an_undecodable_stream_request_is_refused_before_the_handler() -> None:
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.unary_stream_rpc_method_handler(
        stream_game, request_deserializer=api.StreamGameRequest.FromString
    )
    guard, handled[:] = Recorder(), []
    wrapped = guarded(handler, guard, "/tabletop.v1.GameService/StreamGame")
    deserialize = wrapped.request_deserializer
    assert deserialize is not None
    assert isinstance(deserialize(GARBAGE), Undecodable)
    behavior: Any = wrapped.unary_stream
    with pytest.raises(Aborted) as refused:
        async for _ in behavior(Undecodable("bad"), Context()):
            pass
    assert reason_of(refused.value)[1] == "UNDECODABLE_REQUEST"
    assert (len(guard.seen), handled) == (1, [])


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Later:
    """Keeps the callbacks a throttle schedules, for the test to run."""

    def __init__(self) -> None:
        self.scheduled: list[tuple[float, Callable[[], None]]] = []

    def __call__(self, delay: float, callback: Callable[[], None]) -> None:
        self.scheduled.append((delay, callback))


def test_a_flood_is_one_line_then_one_summary_per_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock, later = Clock(), Later()
    throttle = ThrottledLog(logging.getLogger("t"), 1.0, clock=clock, later=later)
    with caplog.at_level(logging.WARNING, "t"):
        for n in range(500):
            clock.now += 0.001
            throttle.event(f"event {n}")
        assert [r.getMessage() for r in caplog.records] == ["event 0"]
        assert len(later.scheduled) == 1  # one timer, however many events
        delay, flush = later.scheduled.pop()
        assert delay == pytest.approx(1.0 - 0.001)  # set by the second event
        clock.now = 100.002 + delay  # when the timer fires
        flush()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[1].startswith("499 more like this in the last 1.0 s")
    assert lines[1].endswith("the latest: event 499")


def test_after_a_quiet_interval_the_next_event_is_logged_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock, later = Clock(), Later()
    throttle = ThrottledLog(logging.getLogger("t"), 1.0, clock=clock, later=later)
    with caplog.at_level(logging.WARNING, "t"):
        throttle.event("first")
        clock.now += 0.5
        throttle.event("second")  # counted
        clock.now += 0.5
        later.scheduled.pop()[1]()  # the summary of "second"
        clock.now += 0.5
        throttle.event("third")  # within a second of the summary: counted
        clock.now += 0.5
        later.scheduled.pop()[1]()
        clock.now += 5
        throttle.event("fourth")
        later.scheduled.clear()
        throttle.flush()  # nothing pending: no line
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "first"
    assert lines[1].startswith("1 more like this")
    assert lines[1].endswith("the latest: second")
    assert lines[2].startswith("1 more like this")
    assert lines[2].endswith("the latest: third")
    assert lines[3] == "fourth"
    assert len(lines) == 4
