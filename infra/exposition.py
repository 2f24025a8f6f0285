"""The HTTP endpoint Prometheus scrapes, for one server or a group of them.

A lone server serves its own registry. Under ``--processes N`` the servers
write their metrics to files in a directory the supervisor made
(``PROMETHEUS_MULTIPROC_DIR``, prometheus_client's multiprocess mode), and the
supervisor alone serves them, summed over the processes (decision S7).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"


def serve_metrics(
    listen: str, registry: Collector = REGISTRY
) -> tuple[WSGIServer, str]:
    """Serves ``registry`` on ``listen``; returns the server and its host:port."""
    host, _, port = listen.rpartition(":")
    bare = host.strip("[]")
    server, _thread = start_http_server(int(port), bare, registry=registry)
    bound = int(server.server_address[1])
    return server, f"{host}:{bound}"


@contextmanager
def multiprocess_directory() -> Iterator[str]:
    """Yields a fresh directory for the servers' metric files, set in the environment.

    Server processes started meanwhile inherit ``PROMETHEUS_MULTIPROC_DIR``
    and, importing prometheus_client with it set, write their metrics there.
    The directory is removed afterwards.
    """
    directory = tempfile.mkdtemp(prefix="tabletop-metrics-")
    previous = os.environ.get(MULTIPROCESS_ENV)
    os.environ[MULTIPROCESS_ENV] = directory
    try:
        yield directory
    finally:
        if previous is None:
            os.environ.pop(MULTIPROCESS_ENV, None)
        else:
            os.environ[MULTIPROCESS_ENV] = previous
        shutil.rmtree(directory, ignore_errors=True)


def aggregated(directory: str) -> CollectorRegistry:
    """Returns a registry of every server process's metrics, summed."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    return registry


def process_ended(directory: str, pid: int) -> None:
    """Forgets an ended server's live gauges (its counters still count)."""
    mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
