"""The store watch: the health service and the gate follow the event store.

``StoreWatch`` reports ``NOT_SERVING`` while the store does not answer, so a
load balancer sends new clients elsewhere during a database outage, and
``SERVING`` again once it does; meanwhile the server's gate refuses calls at
once (services/api/gate.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from eventsourcing.postgres import PostgresRecorder
from grpc_health.v1 import health, health_pb2

from services.api.gate import Gate
from services.games import GamesApp

log = logging.getLogger(__name__)

# How often the store is probed, and how long a probe may wait for a connection.
PROBE_SECONDS = 1.0
PROBE_TIMEOUT_SECONDS = 2.0


class StoreWatch:
    """Probes the event store every second; the health service reports the result.

    The watch is for those that decide where calls go (load balancers,
    orchestrators), which ask the health service, and for the server's gate,
    which refuses calls at once while the store is down. A probe runs in a
    thread, as every store access does, and takes a connection from the
    application's own pool, so ``SERVING`` means what a call will find. Once
    graceful shutdown began the health service ignores ``set``, and
    ``stop_server`` cancels the watch then as well.
    """

    def __init__(
        self,
        app: GamesApp,
        health_servicer: health.aio.HealthServicer,
        gate: Gate,
        services: Sequence[str],
    ) -> None:
        self.app = app
        self.health_servicer = health_servicer
        self.gate = gate
        self.services = services  # the names the health service reports
        self.serving = True  # create_server reports SERVING after the app's setup

    async def run(self) -> None:
        """Probes until cancelled; run it as a task on the server's loop."""
        while True:
            await asyncio.sleep(PROBE_SECONDS)
            reachable = await asyncio.to_thread(self._probe)
            if reachable != self.serving:
                self.serving = self.gate.store_reachable = reachable
                if reachable:
                    log.warning("event store reachable again: health SERVING")
                else:
                    log.warning("event store unreachable: health NOT_SERVING")
                status = (
                    health_pb2.HealthCheckResponse.SERVING
                    if reachable
                    else health_pb2.HealthCheckResponse.NOT_SERVING
                )
                for service in self.services:
                    await self.health_servicer.set(service, status)

    def _probe(self) -> bool:
        """Returns whether the store answers a trivial query within the timeout."""
        recorder = self.app.recorder
        try:
            if isinstance(recorder, PostgresRecorder):
                pool = recorder.datastore.pool
                if not self.serving:
                    # After an outage every pooled connection is broken: drop
                    # them before calls are let through again.
                    pool.check()
                with pool.connection(timeout=PROBE_TIMEOUT_SECONDS) as connection:
                    connection.execute("SELECT 1")
            else:
                recorder.max_notification_id()
        except Exception:  # any failure means unreachable
            log.debug("event store probe failed", exc_info=True)
            return False
        return True
