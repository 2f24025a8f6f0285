"""Admits calls while the server can serve them, and counts those under way.

Two states close the gate, each answered at once with ``UNAVAILABLE`` and
retry advice, before a handler runs, so nothing is done or stored:

* the event store does not answer, or answers but keeps failing writes (a
  full disk) (``STORE_UNAVAILABLE``): ``StoreWatch`` in infra/store_watch.py
  probes it. Tried, a call would wait for a connection in each of the storage
  library's ten attempts (about 12 s) and outlast a mobile client's deadline
  rather than advise a retry, or fail to store its move after deciding it;
* the server is shutting down (``SERVER_SHUTTING_DOWN``): graceful shutdown
  closes the gate, waits until the calls under way have finished and no new
  one came for a moment, and only then stops the gRPC server. Stopping it at
  once would end the calls gRPC had received but not yet handed to a handler
  with ``CANCELLED`` (grpc/grpc#41785), which a client cannot tell from a call
  it cancelled itself.

Health checks and reflection pass whatever the state: a load balancer must
still learn that the server is ``NOT_SERVING``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from services.api.errors import unavailable
from services.api.interception import Guard, GuardingInterceptor, Handler


class Gate(GuardingInterceptor):
    """The server's admission state; one per server, changed on its event loop."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.store_reachable = True
        self.draining = False
        self.in_flight = 0  # calls admitted and not finished yet
        self._clock = clock
        self._last_arrival = clock()

    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the gate's check, the same for every method."""
        del method, handler
        return self._admitted

    @contextlib.asynccontextmanager
    async def _admitted(self, context: Any, _request: Any) -> AsyncIterator[None]:
        self._last_arrival = self._clock()
        if self.draining:
            await context.abort_with_status(
                unavailable(
                    "The server is shutting down; retry on another server.",
                    reason="SERVER_SHUTTING_DOWN",
                )
            )
        if not self.store_reachable:
            await context.abort_with_status(
                unavailable("The game store is unavailable; retry shortly.")
            )
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1

    async def drain(
        self,
        quiet_seconds: float,
        within_seconds: float,
        settle_seconds: float = 2.0,
    ) -> bool:
        """Closes the gate; waits for the calls under way and a quiet moment.

        Returns whether the server went quiet within ``within_seconds``: no
        call under way, and none refused for ``quiet_seconds``, so clients
        that were about to call have heard that they must go elsewhere. A
        client that keeps calling cannot hold the stop longer than
        ``settle_seconds`` once nothing is under way.
        """
        self.draining = True
        give_up = self._clock() + within_seconds
        idle_since: float | None = None
        while True:
            now = self._clock()
            if self.in_flight:
                idle_since = None
            else:
                idle_since = now if idle_since is None else idle_since
                quiet = now - self._last_arrival >= quiet_seconds
                if quiet or now - idle_since >= settle_seconds:
                    return True
            if now >= give_up:
                return False
            await asyncio.sleep(min(0.01, give_up - now))
