"""The store watch: the health service and the gate follow the event store.

``StoreWatch`` reports ``NOT_SERVING`` while the store does not answer, or
while it answers but cannot take a write (a full disk), so a load balancer
sends new clients elsewhere, and ``SERVING`` again once it can; meanwhile the
server's gate refuses calls at once (services/api/gate.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from grpc_health.v1 import health, health_pb2

from infra.store_probe import StoreProbe, probe_for
from services.api.gate import Gate
from services.games import GamesApp

log = logging.getLogger(__name__)

# How often the store is probed.
PROBE_SECONDS = 1.0
# Commits in a row that failed for the store (services/commits.py) before the
# watch calls it failing: one can be a blip, a few in a row are a disk that is
# full or a database that went away.
WRITE_FAILURES = 3


class StoreWatch:
    """Probes the event store every second; the health service reports the result.

    The watch is for those that decide where calls go (load balancers,
    orchestrators), which ask the health service, and for the server's gate,
    which refuses calls at once while the store is down. A probe runs in a
    thread, as every store access does, and uses the application's own
    connections, so ``SERVING`` means what a call will find.

    While serving, a read probes the store, and the group commit counts the
    commits that failed in a row: a full disk fails writes and serves reads,
    so ``WRITE_FAILURES`` of them turn the health ``NOT_SERVING`` as a failed
    read does. While not serving, no call reaches the store, so the probe
    itself writes (store_probe.py), and only a write that succeeds turns the
    health ``SERVING`` again. Once graceful shutdown began the health service
    ignores ``set``, and ``stop_server`` cancels the watch then as well.
    """

    def __init__(
        self,
        app: GamesApp,
        health_servicer: health.aio.HealthServicer,
        gate: Gate,
        services: Sequence[str],
        probe: StoreProbe | None = None,
    ) -> None:
        self.app = app
        self.health_servicer = health_servicer
        self.gate = gate
        self.services = services  # the names the health service reports
        self.probe = probe_for(app.recorder) if probe is None else probe
        self.serving = True  # create_server reports SERVING after the app's setup

    async def run(self) -> None:
        """Probes until cancelled; run it as a task on the server's loop."""
        while True:
            await asyncio.sleep(PROBE_SECONDS)
            await self.check()

    async def check(self) -> None:
        """Probes the store once; reports a change of state."""
        problem = await asyncio.to_thread(self._problem)
        healthy = problem is None
        if healthy == self.serving:
            return
        self.serving = self.gate.store_reachable = healthy
        if healthy:
            log.warning("event store writable again: health SERVING")
        else:
            log.warning("event store %s: health NOT_SERVING", problem)
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if healthy
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for service in self.services:
            await self.health_servicer.set(service, status)

    def _problem(self) -> str | None:
        """Returns what is wrong with the store, or None when it serves."""
        commits = self.app.commits
        if self.serving and commits.failing_writes >= WRITE_FAILURES:
            return f"failed {commits.failing_writes} commits in a row (disk full?)"
        try:
            self.probe(write=not self.serving)
        except Exception:  # any failure means the store cannot serve
            log.debug("event store probe failed", exc_info=True)
            return "unreachable" if self.serving else "still failing"
        if not self.serving:
            # The probe wrote: the failures counted before it are history.
            commits.failing_writes = 0
        return None
