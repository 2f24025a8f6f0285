"""What a server process reports about itself: metrics, log context, traces.

Each is on only when configured, and its modules (prometheus_client,
OpenTelemetry) are imported only then, so a plain ``tabletop serve`` starts as
lean as before and observes no call at all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from infra.settings import Settings
from services.api.observe import Observer
from services.games import GamesApp

log = logging.getLogger(__name__)


@dataclass
class Telemetry:
    """The observers of a server's calls, and what stops with the server."""

    observers: list[Observer] = field(default_factory=list)
    # host:port of the metrics endpoint this process serves, if it serves one.
    metrics_address: str | None = None
    _stops: list[Callable[[], object]] = field(default_factory=list)

    def announce(self) -> None:
        """Prints where this process serves its metrics, if it serves them."""
        if self.metrics_address is not None:
            announce_metrics(self.metrics_address)

    def stop(self) -> None:
        """Stops the metrics endpoint and sampling; flushes the spans."""
        for stop in reversed(self._stops):
            try:
                stop()
            except Exception:  # one failing must not keep the others running
                log.exception("stopping telemetry failed")
        self._stops.clear()


def announce_metrics(address: str) -> None:
    """Prints where the metrics are served, on its own line (tests read it).

    It follows the ``listening on`` line.
    """
    print(f"tabletop: metrics on http://{address}/metrics", flush=True)  # noqa: T201


def start_telemetry(settings: Settings, app: GamesApp) -> Telemetry:
    """Returns the telemetry ``settings`` ask for, started."""
    telemetry = Telemetry()
    if settings.log_format == "json":
        from infra.logs import call_context  # noqa: PLC0415 (only when asked for)

        telemetry.observers.append(call_context)
    if settings.metrics_listen is not None:
        _start_metrics(telemetry, settings.metrics_listen, settings.processes, app)
    if settings.otel_endpoint is not None:
        from infra.tracing import provider, traced  # noqa: PLC0415 (optional extra)

        traces = provider(settings.otel_endpoint)
        telemetry.observers.append(traced(traces.get_tracer("tabletop")))
        telemetry._stops.append(traces.shutdown)  # noqa: SLF001 (its own builder)
    return telemetry


def _start_metrics(
    telemetry: Telemetry, listen: str, processes: int, app: GamesApp
) -> None:
    from infra import metrics  # noqa: PLC0415 (only when asked for)

    telemetry.observers.append(metrics.observe)
    stops = telemetry._stops  # noqa: SLF001 (its own builder)
    if processes > 1:
        # One of a group: the supervisor serves the metrics (infra/processes.py).
        stops.append(metrics.sample_store(app))
        return
    from prometheus_client import REGISTRY  # noqa: PLC0415

    from infra.exposition import serve_metrics  # noqa: PLC0415

    collector = metrics.StoreCollector(app)
    REGISTRY.register(collector)
    stops.append(lambda: REGISTRY.unregister(collector))
    server, telemetry.metrics_address = serve_metrics(listen)
    stops.append(server.server_close)
    stops.append(server.shutdown)
