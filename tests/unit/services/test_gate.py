"""The gate: calls refused while the store is down or the server drains."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from services.api.gate import Gate
from tests.helpers import Aborted

SUBMIT = "/tabletop.v1.GameService/SubmitMove"
STREAM = "/tabletop.v1.GameService/StreamGame"
HEALTH = "/grpc.health.v1.Health/Check"


class Context:
    """The parts of a grpc.aio servicer context the gate uses."""

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise Aborted(status)


class Details(grpc.HandlerCallDetails):
    """The details of a call of one method."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


def reason_of(aborted: Aborted) -> tuple[grpc.StatusCode, str, bool]:
    """Returns the code, ErrorInfo reason and whether RetryInfo came with it."""
    status = aborted.status
    details = dict(status.trailing_metadata)["grpc-status-details-bin"]
    assert isinstance(details, bytes)
    decoded = status_pb2.Status.FromString(details)
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    assert decoded.details[0].Unpack(info)
    return status.code, info.reason, decoded.details[1].Unpack(retry)


async def handler_for(
    gate: Gate, method: str, behavior: Callable[[Any, Any], Awaitable[str]]
) -> grpc.RpcMethodHandler[Any, Any]:
    """Returns ``behavior`` as the gate serves it."""

    async def continuation(
        _: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        return grpc.unary_unary_rpc_method_handler(behavior)

    handler = await gate.intercept_service(continuation, Details(method))
    assert handler is not None
    return handler


async def run(handler: grpc.RpcMethodHandler[Any, Any], request: str) -> Any:
    """Calls a unary handler as the server would, with a fake context."""
    behavior: Any = handler.unary_unary
    return await behavior(request, Context())


async def echo(request: Any, _: Any) -> str:
    return f"served {request}"


async def test_an_open_gate_serves_and_counts_the_call_while_it_runs() -> None:
    gate = Gate()
    seen: list[int] = []

    async def behavior(request: Any, _: Any) -> str:
        seen.append(gate.in_flight)
        return f"served {request}"

    handler = await handler_for(gate, SUBMIT, behavior)
    assert await run(handler, "move") == "served move"
    assert (seen, gate.in_flight) == ([1], 0)


async def test_while_the_store_is_down_calls_are_refused_with_retry_advice() -> None:
    gate = Gate()
    gate.store_reachable = False
    handler = await handler_for(gate, SUBMIT, echo)
    with pytest.raises(Aborted) as refused:
        await run(handler, "move")
    assert reason_of(refused.value) == (
        grpc.StatusCode.UNAVAILABLE,
        "STORE_UNAVAILABLE",
        True,
    )
    assert gate.in_flight == 0


async def test_draining_refuses_new_calls_and_waits_for_those_under_way() -> None:
    gate = Gate()
    release = asyncio.Event()

    async def slow(request: Any, _: Any) -> str:
        await release.wait()
        return f"served {request}"

    handler = await handler_for(gate, SUBMIT, slow)
    under_way = asyncio.create_task(run(handler, "first"))
    await asyncio.sleep(0)
    draining = asyncio.create_task(gate.drain(quiet_seconds=0, within_seconds=5))
    await asyncio.sleep(0.05)
    assert not draining.done()  # the call under way holds the stop
    with pytest.raises(Aborted) as refused:
        await run(handler, "second")
    assert reason_of(refused.value) == (
        grpc.StatusCode.UNAVAILABLE,
        "SERVER_SHUTTING_DOWN",
        True,
    )
    release.set()
    assert await under_way == "served first"
    assert await draining is True


async def test_draining_gives_up_after_its_limit_with_a_call_still_under_way() -> None:
    gate = Gate()

    async def stuck_call(request: Any, _: Any) -> str:
        await asyncio.sleep(60)
        return f"served {request}"

    handler = await handler_for(gate, SUBMIT, stuck_call)
    stuck = asyncio.create_task(run(handler, "move"))
    await asyncio.sleep(0)
    assert await gate.drain(quiet_seconds=0, within_seconds=0.05) is False
    assert gate.in_flight == 1
    stuck.cancel()


async def test_draining_waits_until_no_call_came_for_the_quiet_time() -> None:
    now = [0.0]
    gate = Gate(clock=lambda: now[0])
    handler = await handler_for(gate, SUBMIT, echo)
    gate.draining = True
    now[0] = 10.0
    with pytest.raises(Aborted):
        await run(handler, "late")
    now[0] = 10.1
    drain = asyncio.create_task(gate.drain(quiet_seconds=0.25, within_seconds=5))
    await asyncio.sleep(0.03)
    assert not drain.done()  # a call came 0.1 s ago
    now[0] = 10.3
    assert await drain is True


async def test_health_checks_pass_the_gate_whatever_its_state() -> None:
    gate = Gate()
    gate.store_reachable = False
    gate.draining = True
    handler = await handler_for(gate, HEALTH, echo)
    assert await run(handler, "check") == "served check"


async def test_a_client_that_keeps_calling_holds_the_stop_only_briefly() -> None:
    now = [0.0]
    gate = Gate(clock=lambda: now[0])
    handler = await handler_for(gate, SUBMIT, echo)
    drain = asyncio.create_task(
        gate.drain(quiet_seconds=0.25, within_seconds=10, settle_seconds=2)
    )
    await asyncio.sleep(0)  # the gate closes
    for step in range(1, 40):  # a refused call every 0.1 s, for 3.9 s
        now[0] = step * 0.1
        with pytest.raises(Aborted):
            await run(handler, "again")
        await asyncio.sleep(0.02)
        if drain.done():
            break
    assert await drain is True
    assert 2.0 <= now[0] < 2.5
