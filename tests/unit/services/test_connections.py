"""Connection and stream caps per client: counted from the calls' peers."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from services.api.connections import ConnectionCounts, HeldOpen, client_of
from services.api.interception import Handler
from tests.helpers import Aborted


@dataclass
class Context:
    """The parts of a grpc.aio servicer context the caps use."""

    peer_name: str
    metadata: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def peer(self) -> str:
        return self.peer_name

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise Aborted(status)


def refusal(aborted: Aborted) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    details = dict(aborted.status.trailing_metadata)["grpc-status-details-bin"]
    assert isinstance(details, bytes)
    status = status_pb2.Status.FromString(details)
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return aborted.status.code, info.reason, dict(info.metadata)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("peer", "client"),
    [
        ("ipv4:203.0.113.7:51234", ("203.0.113.7", "51234")),
        ("ipv6:[2001:db8:1:2:3:4:5:6]:443", ("2001:db8:1:2::/64", "443")),
        ("ipv6:[::ffff:203.0.113.7]:80", ("203.0.113.7", "80")),
        ("unix:/run/tabletop.sock", ("unix:/run/tabletop.sock", "")),
        ("ipv4:not-an-address:1", ("ipv4:not-an-address:1", "")),
    ],
)
def test_a_client_is_its_ipv4_address_or_its_ipv6_network(
    peer: str, client: tuple[str, str]
) -> None:
    assert client_of(peer) == client


def test_a_connection_beyond_the_cap_is_refused_and_those_under_it_are_not() -> None:
    counts = ConnectionCounts(2, 30.0, clock=Clock())
    assert counts.enter("a", "1")
    assert counts.enter("a", "2")
    assert not counts.enter("a", "3")
    assert counts.enter("a", "1")  # a connection already counted
    assert counts.enter("b", "3")  # another address has its own cap


def test_a_connection_counts_until_the_window_after_its_last_call() -> None:
    clock = Clock()
    counts = ConnectionCounts(1, 30.0, clock=clock)
    assert counts.enter("a", "1")
    clock.now = 100.0  # a long call is still under way
    assert not counts.enter("a", "2")
    counts.leave("a", "1")
    clock.now = 129.0
    assert not counts.enter("a", "2")
    clock.now = 130.0  # the server closed the idle connection by now
    assert counts.enter("a", "2")
    assert len(counts) == 1


def test_beyond_the_tracked_bound_the_least_recent_address_is_forgotten() -> None:
    counts = ConnectionCounts(2, 30.0, clock=Clock(), max_tracked=3)
    counts.enter("old", "1")
    counts.enter("old", "2")
    counts.enter("new", "1")
    counts.enter("new", "2")
    assert len(counts) == 2
    counts.leave("old", "1")  # a call of a forgotten address ends: ignored
    assert counts.enter("old", "3")


async def open_stream(caps: HeldOpen, context: Context) -> contextlib.AsyncExitStack:
    guard = caps.guard_for("/tabletop.v1.GameService/StreamGame", STREAM)
    stack = contextlib.AsyncExitStack()
    await stack.enter_async_context(guard(context, None))
    return stack


STREAM: Handler = grpc.unary_stream_rpc_method_handler(
    lambda _request, _context: iter(())
)
UNARY: Handler = grpc.unary_unary_rpc_method_handler(lambda _request, _context: None)


def test_streams_are_capped_per_token_and_per_address() -> None:
    async def scenario() -> None:
        caps = HeldOpen(None, streams_per_address=3, streams_per_token=2)
        seat = Context("ipv4:198.51.100.1:1000", (("authorization", "Bearer t"),))
        spectator = Context("ipv4:198.51.100.1:1001")
        streams = [await open_stream(caps, seat) for _ in range(2)]
        with pytest.raises(Aborted) as refused:
            await open_stream(caps, seat)
        assert refusal(refused.value) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "TOO_MANY_STREAMS",
            {"limitedBy": "credential", "maxStreams": "2"},
        )
        streams.append(await open_stream(caps, spectator))
        with pytest.raises(Aborted) as refused:
            await open_stream(caps, spectator)
        assert refusal(refused.value)[2]["limitedBy"] == "client address"
        await streams.pop().aclose()  # an ended stream gives its place back
        streams.append(await open_stream(caps, spectator))
        for stream in streams:
            await stream.aclose()
        await (await open_stream(caps, seat)).aclose()

    asyncio.run(scenario())


def test_a_call_on_a_connection_beyond_the_cap_is_refused_before_its_handler() -> None:
    async def scenario() -> None:
        caps = HeldOpen(ConnectionCounts(1, 30.0), 0, 0)
        guard = caps.guard_for("/tabletop.v1.GameService/GetGame", UNARY)
        async with guard(Context("ipv4:192.0.2.1:1"), None):
            pass
        with pytest.raises(Aborted) as refused:
            async with guard(Context("ipv4:192.0.2.1:2"), None):
                pytest.fail("the handler ran")
        assert refusal(refused.value) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "TOO_MANY_CONNECTIONS",
            {"maxConnections": "1"},
        )

    asyncio.run(scenario())
