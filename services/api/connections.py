"""Caps on what one client holds open: connections with calls, and streams.

gRPC Python shows the application calls, not connections: each call names its
peer (``ipv4:203.0.113.7:51234``), and the port tells the client's connections
apart. A connection counts for its address from its first call until
``window_seconds`` after its last call ended: by then the server has closed it
as idle (``grpc.max_connection_idle_ms``, infra/server.py). A call on a
connection beyond the address's cap is refused with ``RESOURCE_EXHAUSTED``
(``TOO_MANY_CONNECTIONS``) before its handler runs, so such a connection gets
nothing done and is closed as idle in turn; connections that never call are
left to that idle close alone.

Open ``StreamGame`` calls count for their address, and those that present a
seat token for that token as well; beyond either cap a new stream is refused
with ``RESOURCE_EXHAUSTED`` (``TOO_MANY_STREAMS``). The address cap holds
whatever tokens a client collects; the token cap keeps one seat from taking
its address's whole share.

An IPv6 client is counted by its /64 network: one subscriber usually holds a
whole /64, and could otherwise give each connection its own address. The
counts are per server process and kept on the event loop (no lock), and are
bounded: beyond ``max_tracked`` connections the least recently active address
is forgotten, and a stream count is dropped once the stream ends.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from services.api.auth import bearer_token, credential_key
from services.api.errors import ApiError, resource_exhausted
from services.api.interception import Guard, GuardingInterceptor, Handler
from services.sessions import Sessions

# Connections remembered in all, ~150 bytes each: at most ~15 MB.
DEFAULT_MAX_TRACKED = 100_000
# gRPC closes an idle connection within about a tenth either side of its idle
# time (measured: 2.8 to 3.3 s for 3 s); counted until surely closed.
IDLE_MARGIN = 1.2
# Peers whose parsed client address is kept (a peer is one connection).
PEERS_PARSED = 4096


@functools.lru_cache(maxsize=PEERS_PARSED)
def client_of(peer: str) -> tuple[str, str]:
    """Returns a gRPC peer's client address (an IPv6 /64) and its port.

    ``ipv4:1.2.3.4:5678`` gives (``1.2.3.4``, ``5678``); ``ipv6:[2001:db8::1]:80``
    gives (``2001:db8::/64``, ``80``); a peer of another kind is its own
    client, with no port. Every call of a connection names the same peer, so
    the answers of the most recent peers are kept (parsing one costs a call
    about 10 µs).
    """
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return peer, ""
    host, _, port = rest.rpartition(":")
    try:
        parsed = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return peer, ""
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped), port
        return str(ipaddress.IPv6Network((parsed, 64), strict=False)), port
    return str(parsed), port


@dataclass(slots=True)
class _Connection:
    calls: int = 0  # under way
    last: float = 0.0  # when the last call ended


class ConnectionCounts:
    """The connections each address made calls on lately, up to ``limit`` each."""

    def __init__(
        self,
        limit: int,
        window_seconds: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_tracked: int = DEFAULT_MAX_TRACKED,
    ) -> None:
        if limit < 1 or window_seconds <= 0 or max_tracked < limit:
            msg = "connection counts need a positive limit and window"
            raise ValueError(msg)
        self.limit = limit
        self._window = window_seconds
        self._clock = clock
        self._max_tracked = max_tracked
        self._tracked = 0
        self._addresses: OrderedDict[str, dict[str, _Connection]] = OrderedDict()

    def enter(self, address: str, port: str) -> bool:
        """Counts a call starting on a connection; returns False beyond the cap."""
        connections = self._addresses.get(address)
        if connections is None:
            connections = self._addresses[address] = {}
        else:
            self._addresses.move_to_end(address)
        connection = connections.get(port)
        if connection is None:
            if len(connections) >= self.limit:
                self._forget_closed(connections)
                if len(connections) >= self.limit:
                    return False
            connection = connections[port] = _Connection()
            self._tracked += 1
            self._bound()
        connection.calls += 1
        return True

    def leave(self, address: str, port: str) -> None:
        """Counts a call on a connection ending."""
        connection = self._addresses.get(address, {}).get(port)
        if connection is not None:  # None: its address was forgotten meanwhile
            connection.calls -= 1
            connection.last = self._clock()

    def __len__(self) -> int:
        return self._tracked

    def _forget_closed(self, connections: dict[str, _Connection]) -> None:
        """Drops the connections idle for the window: the server closed them."""
        since = self._clock() - self._window
        for port in [
            port
            for port, connection in connections.items()
            if connection.calls == 0 and connection.last <= since
        ]:
            del connections[port]
            self._tracked -= 1

    def _bound(self) -> None:
        while self._tracked > self._max_tracked:
            _, forgotten = self._addresses.popitem(last=False)
            self._tracked -= len(forgotten)


def connection_counts(limit: int, idle_seconds: float) -> ConnectionCounts | None:
    """Returns counts capped at ``limit`` per address (None for 0: no cap).

    ``idle_seconds`` is the server's idle time, after which it closes a
    connection without calls.
    """
    if limit == 0:
        return None
    return ConnectionCounts(limit, idle_seconds * IDLE_MARGIN)


class HeldOpen(GuardingInterceptor):
    """Refuses calls on connections, and streams, beyond their client's caps.

    A cap of 0 is no cap.
    """

    def __init__(
        self,
        connections: ConnectionCounts | None,
        streams_per_address: int,
        streams_per_token: int,
        sessions: Sessions | None = None,
    ) -> None:
        self._connections = connections
        # Verifies access tokens: a player's streams count together.
        self.sessions = sessions
        self._per_address = streams_per_address
        self._per_token = streams_per_token
        self._streams: Counter[str] = Counter()

    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the connection check, and for a stream the stream caps too."""
        del method
        return self._stream if handler.unary_stream is not None else self._call

    @contextlib.asynccontextmanager
    async def _call(self, context: Any, _request: Any) -> AsyncIterator[None]:
        address, port = client_of(context.peer())
        async with self._connection(context, address, port):
            yield

    @contextlib.asynccontextmanager
    async def _stream(self, context: Any, _request: Any) -> AsyncIterator[None]:
        address, port = client_of(context.peer())
        async with self._connection(context, address, port):
            keys = [(address, "client address", self._per_address)]
            token = _token(context)
            counted = credential_key(token, self.sessions) if token else None
            if counted is not None:
                keys.append((*counted, self._per_token))
            for key, names, cap in keys:
                if cap and self._streams[key] >= cap:
                    await context.abort_with_status(_too_many_streams(names, cap))
            self._streams.update(key for key, _, _ in keys)
            try:
                yield
            finally:
                self._streams.subtract(key for key, _, _ in keys)
                for key, _, _ in keys:
                    if self._streams[key] <= 0:
                        del self._streams[key]

    @contextlib.asynccontextmanager
    async def _connection(
        self, context: Any, address: str, port: str
    ) -> AsyncIterator[None]:
        counts = self._connections
        # The HTTP port counts its connections as they open and close
        # (infra/http_connections.py): a call knows it by this attribute.
        if counts is None or not port or getattr(context, "connection_counted", False):
            yield
            return
        if not counts.enter(address, port):
            await context.abort_with_status(_too_many_connections(counts.limit))
        try:
            yield
        finally:
            counts.leave(address, port)


def _token(context: Any) -> str | None:
    """Returns the call's bearer token; a malformed header counts as none."""
    try:
        return bearer_token(context.invocation_metadata())
    except ApiError:
        return None  # the handler refuses it


def _too_many_connections(limit: int) -> grpc.Status:
    return resource_exhausted(
        "TOO_MANY_CONNECTIONS",
        f"Too many connections from this client address: at most {limit} may "
        "make calls at once. Make calls on a connection already open, or close "
        "one; a connection without calls is closed after a short idle time.",
        {"maxConnections": str(limit)},
    )


def _too_many_streams(names: str, limit: int) -> grpc.Status:
    return resource_exhausted(
        "TOO_MANY_STREAMS",
        f"Too many streams (StreamGame, StreamNotifications) open for this "
        f"{names}: at most {limit}. "
        "Cancel a stream no longer needed before opening another.",
        {"limitedBy": names, "maxStreams": str(limit)},
    )
