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
  once; one more is answered ``503`` and closed before anything is read.

Both hold per server process; the counts live on the event loop.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from services.api.bridge import peer_of
from services.api.connections import client_of

# Sent to a connection over its address's cap, which is then closed.
_TOO_MANY_TEXT = b"Too many connections from your address: close some.\n"
_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\n"
    b"content-length: %d\r\n\r\n%s" % (len(_TOO_MANY_TEXT), _TOO_MANY_TEXT)
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


def guarded_protocol(admission: Admission) -> type[HttpToolsProtocol]:
    """Returns uvicorn's HTTP protocol with ``admission``'s rules added."""

    class Guarded(HttpToolsProtocol):
        _address: str | None = None
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            client = f"{self.client[0]}:{self.client[1]}" if self.client else ""
            address, _ = client_of(peer_of(client))
            if not admission.admit(address):
                transport.write(_TOO_MANY)
                transport.close()
                return
            self._address = address
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._address is not None:
                admission.release(self._address)
                self._address = None
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_message_complete(self) -> None:
            self._disarm()
            super().on_message_complete()

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(
                admission.request_seconds, self._too_slow
            )

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    return Guarded
