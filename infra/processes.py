"""Several server processes on one port, sharing one database.

A Python process runs its calls under one interpreter lock, so one server uses
about one core however many threads it has. ``tabletop serve --processes N``
starts N server processes listening on the same port (``SO_REUSEPORT``: the
kernel spreads new connections among them). They share nothing but the
database, as servers behind a load balancer would: each keeps its own games and
its own live feed, a move made through one reaches the streams of the others
through the database, and two of them racing for one revision are settled by
the store (one append wins, the other command is decided again).

This process only supervises: it holds the port until every server listens,
forwards SIGINT and SIGTERM to them and waits for their graceful stop. When one
server dies the others are stopped too, so that whatever supervises the group
(systemd, a container runtime) restarts it whole. With ``--metrics-listen``
the servers write their metrics to files in a directory of the supervisor's,
which alone serves them, summed (decision S7).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import queue
import signal
import socket
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

from infra.logs import configure
from infra.settings import Settings, SettingsError, listen_error
from infra.telemetry import announce_metrics

log = logging.getLogger(__name__)

READY_SECONDS = 60.0  # for every server to listen


def serve_processes(settings: Settings, log_level: str) -> int:
    """Runs ``settings.processes`` servers until SIGINT or SIGTERM.

    Returns the exit status: 0 after a requested stop, 1 when a server failed.
    An address that does not bind is refused with ``SettingsError``.
    """
    with ExitStack() as stack:
        metrics = (
            stack.enter_context(_metrics_directory())
            if settings.metrics_listen is not None
            else None
        )
        return _supervise(settings, log_level, metrics, stack)


def _supervise(
    settings: Settings, log_level: str, metrics: str | None, stack: ExitStack
) -> int:
    """Starts the servers and waits for them; see ``serve_processes``."""
    host, _, wanted = settings.listen.rpartition(":")
    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    with (
        _reserved(host, int(wanted), "--listen") as port,
        _reserved_http(settings) as http,
    ):
        shared = replace(settings, listen=f"{host}:{port}", http_listen=http)
        children = [
            context.Process(
                target=_child, args=(shared, log_level, ready), name=f"tabletop-{n}"
            )
            for n in range(1, settings.processes + 1)
        ]
        for child in children:
            child.start()
        try:
            started = [ready.get(timeout=READY_SECONDS) for _ in children]
        except queue.Empty:
            started = [None]
    if None in started:
        log.error("not every server process started; stopping them")
        _stop(children)
        return 1
    print(  # noqa: T201
        f"tabletop: listening on {host}:{port} ({len(children)} processes)",
        flush=True,
    )
    if http is not None:
        _announce_http(http)
    if metrics is not None and settings.metrics_listen is not None:
        try:
            _serve_metrics(settings.metrics_listen, metrics, stack)
        except SettingsError:  # taken since the start was checked
            _stop(children)
            raise
    return _wait(children, metrics)


def _wait(children: Sequence[BaseProcess], metrics: str | None) -> int:
    """Forwards SIGINT and SIGTERM; returns once every server has ended."""
    stopping = False

    def forward(_signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.is_alive():
                child.terminate()  # SIGTERM: each server stops gracefully

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, forward)
    status = 0
    running = list(children)
    while running:
        ended = wait([child.sentinel for child in running])
        for child in [c for c in running if c.sentinel in ended]:
            child.join()
            running.remove(child)
            if metrics is not None and child.pid is not None:
                _process_ended(metrics, child.pid)
            if not stopping:
                log.error("%s exited (%s), stopping", child.name, child.exitcode)
                stopping = True
                status = 1
                _stop(running)
    return status


@contextmanager
def _metrics_directory() -> Iterator[str]:
    from infra.exposition import multiprocess_directory  # noqa: PLC0415 (if asked)

    with multiprocess_directory() as directory:
        yield directory


def _serve_metrics(listen: str, directory: str, stack: ExitStack) -> None:
    """Serves the servers' metrics, summed, until the supervisor ends."""
    from infra.exposition import aggregated, serve_metrics  # noqa: PLC0415

    try:
        server, address = serve_metrics(listen, aggregated(directory))
    except OSError as error:
        raise listen_error(listen, "--metrics-listen", error) from None
    stack.callback(server.server_close)
    stack.callback(server.shutdown)
    announce_metrics(address)


def _process_ended(directory: str, pid: int) -> None:
    from infra.exposition import process_ended  # noqa: PLC0415

    process_ended(directory, pid)


def _child(settings: Settings, log_level: str, ready: Any) -> None:
    """Runs one server; puts its port on ``ready``, or None if it cannot start."""
    configure(log_level, settings.log_format, process_name=True)
    from infra.server import serve  # noqa: PLC0415 (a child imports the server)

    try:
        asyncio.run(serve(settings, ready=ready.put))
    except BaseException:
        ready.put(None)
        raise


@contextmanager
def _reserved(host: str, port: int, flag: str) -> Iterator[int]:
    """Holds ``port`` (a free one for 0) while the servers bind it; yields it.

    A port that does not bind is refused with ``SettingsError`` naming ``flag``.
    """
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            held.bind((bare, port))
        except OSError as error:
            raise listen_error(f"{host}:{port}", flag, error) from None
        yield int(held.getsockname()[1])


@contextmanager
def _reserved_http(settings: Settings) -> Iterator[str | None]:
    """Holds the HTTP port as ``_reserved`` does; yields its ``host:port``."""
    if settings.http_listen is None:
        yield None
        return
    host, _, wanted = settings.http_listen.rpartition(":")
    with _reserved(host, int(wanted), "--http-listen") as port:
        yield f"{host}:{port}"


def _announce_http(listen: str) -> None:
    from infra.http_api import announce_http  # noqa: PLC0415 (only if asked)

    host, _, port = listen.rpartition(":")
    announce_http(host, int(port))


def _stop(children: Sequence[BaseProcess]) -> None:
    for child in children:
        if child.is_alive():
            child.terminate()
    for child in children:
        child.join()
