"""What one client may hold open on the HTTP port, and how long a request may take.

uvicorn leaves a connection open for as long as its client likes before a
request arrives whole: silent after connecting, or sending its headers or body
a byte at a time. A few thousand such connections from one address would take
every file the server may open. So the HTTP port's connections are uvicorn's
with two rules added (``guarded_protocol``):

- a request must arrive whole (headers and body) within ``request_seconds`` of
  the connection opening or of its first byte; otherwise the connection is
  closed. A response under way (a ``StreamGame`` stream) is not limited, and a
  connection between requests is closed by uvicorn's keep-alive timeout;
- one client address (an IPv6 /64, as on the gRPC port:
  services/api/connections.py) holds at most ``per_address`` connections at
  once; one more is answered ``503`` and closed before anything is read;
- a request's head (its request line and headers) holds at most
  ``MAX_HEAD_BYTES`` and ``MAX_HEADERS`` headers: uvicorn keeps all of it until
  the head ends, so a larger one is answered ``431`` and its connection closed.

Both hold per server process; the counts live on the event loop.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from services.api.bridge import peer_of
from services.api.connections import client_of

# A request's line and headers: a browser's are a few KiB at most.
MAX_HEAD_BYTES = 64 * 1024
MAX_HEADERS = 100


def _answer(status: bytes, text: bytes) -> bytes:
    return (
        b"HTTP/1.1 %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (status, len(text), text)
    )


_HEAD_TOO_LARGE = _answer(
    b"431 Request Header Fields Too Large",
    b"The request's line and headers are over %d KiB or %d headers.\n"
    % (MAX_HEAD_BYTES // 1024, MAX_HEADERS),
)
# Sent to a connection over its address's cap, which is then closed.
_TOO_MANY = _answer(
    b"503 Service Unavailable",
    b"Too many connections from your address: close some.\n",
)


class Admission:
    """The open connections of each client address, against a cap."""

    def __init__(self, per_address: int, request_seconds: float) -> None:
        self.per_address = per_address  # 0: no cap
        self.request_seconds = request_seconds
        self.open: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        """Counts a new connection of ``address``, unless it is over the cap."""
        if self.per_address and self.open[address] >= self.per_address:
            return False
        self.open[address] += 1
        return True

    def release(self, address: str) -> None:
        """Forgets one connection of ``address``."""
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol with an ``Admission``'s rules added."""

    admission: Admission  # set by guarded_protocol

    _address: str | None = None
    _deadline: asyncio.TimerHandle | None = None
    _in_head = True  # reading a request's line and headers
    _head_bytes = 0
    _headers = 0
    _heads = 0  # heads read whole on this connection
    _messages = 0  # requests read whole on this connection

    def data_received(self, data: bytes) -> None:
        heads, messages = self._heads, self._messages
        super().data_received(data)
        # A chunk in which no head ended and no request ended is all head (a
        # head that ends in a chunk, or starts after a request that ends in it,
        # is at most that chunk: asyncio reads 256 KiB at most). Counting a
        # chunk whose first bytes ended a request's body would take that body
        # for a head.
        if self._in_head and heads == self._heads and messages == self._messages:
            self._head_bytes += len(data)
        if self._head_bytes > MAX_HEAD_BYTES or self._headers > MAX_HEADERS:
            self._refuse_head()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers += 1
        if self._headers <= MAX_HEADERS:
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._heads += 1
        if self._headers <= MAX_HEADERS:
            super().on_headers_complete()

    def _refuse_head(self) -> None:
        if not self.transport.is_closing():
            self.transport.write(_HEAD_TOO_LARGE)
            self.transport.close()

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        client = f"{self.client[0]}:{self.client[1]}" if self.client else ""
        address, _ = client_of(peer_of(client))
        if not self.admission.admit(address):
            transport.write(_TOO_MANY)
            transport.close()
            return
        self._address = address
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address is not None:
            self.admission.release(self._address)
            self._address = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        self._messages += 1
        self._disarm()
        self._in_head, self._head_bytes, self._headers = True, 0, 0
        if not self.transport.is_closing():
            super().on_message_complete()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(
            self.admission.request_seconds, self._too_slow
        )

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def close_if_arriving(self) -> None:
        """Closes the connection if a request is still arriving on it.

        On a graceful stop: such a request would hold the stop up until its
        deadline, and no answer could be given to it anyway.
        """
        if self._deadline is not None:
            self._too_slow()


def guarded_protocol(admission: Admission) -> type[HttpToolsProtocol]:
    """Returns uvicorn's HTTP protocol with ``admission``'s rules added."""
    return type("Guarded", (GuardedProtocol,), {"admission": admission})
