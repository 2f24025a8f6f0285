"""A real ``tabletop serve`` process on a loopback port, PostgreSQL behind it."""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import grpc
import pytest
from grpc_health.v1 import health_pb2
from tabletop.v1 import game_service_pb2_grpc

from tests.e2e.client import health_status
from tests.pg import fresh_schema

_LISTENING = re.compile(r"listening on ([\d.]+):(\d+)")
_METRICS = re.compile(r"metrics on (http://\S+)")
_HTTP = re.compile(r"http on (http://[\d.:]+)/")


@dataclass
class Server:
    """A running server process and a channel to it."""

    process: subprocess.Popen[str]
    address: str
    channel: grpc.Channel
    stub: game_service_pb2_grpc.GameServiceStub
    operator_token: str | None = None
    metrics_url: str | None = None  # with start_server(metrics=True)
    http_url: str | None = None  # with start_server(http=True): http://host:port

    def stop(self) -> int:
        """Stops the server with SIGTERM; returns its exit status."""
        self.channel.close()
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)


def start_server(
    database: str,
    *,
    dev: bool,
    heartbeat_seconds: float | None = None,
    operator_token: str | None = None,
    processes: int = 1,
    metrics: bool = False,
    http: bool = False,
    listen: str = "127.0.0.1:0",
    signing_key_file: str | None = None,
    options: Sequence[str] = (),
) -> Server:
    """Starts ``tabletop serve`` on a free loopback port and waits until it serves.

    ``operator_token`` reaches the server through ``TABLETOP_OPERATOR_TOKEN``,
    never the command line. With ``metrics`` the server serves Prometheus
    metrics on another free port too (``Server.metrics_url``). Without
    ``signing_key_file`` (``--signing-key-file``) the server signs exports with
    an ephemeral key. With ``http`` it serves the HTTP port (the web page, and
    the API over Connect and gRPC-Web) on a free port too (``Server.http_url``).
    ``options`` are more of ``serve``'s flags.
    """
    command = [sys.executable, "-m", "infra.cli", "serve", "--listen", listen]
    command += ["--database", database, "--log-level", "WARNING"]
    if dev:
        command.append("--dev")
    if heartbeat_seconds is not None:
        command += ["--heartbeat-seconds", str(heartbeat_seconds)]
    if processes > 1:
        command += ["--processes", str(processes)]
    if metrics:
        command += ["--metrics-listen", "127.0.0.1:0"]
    if http:
        command += ["--http-listen", "127.0.0.1:0"]
    if signing_key_file is not None:
        command += ["--signing-key-file", signing_key_file]
    command += options
    env = os.environ.copy()
    env.pop("TABLETOP_OPERATOR_TOKEN", None)
    if operator_token is not None:
        env["TABLETOP_OPERATOR_TOKEN"] = operator_token
    process = subprocess.Popen(  # noqa: S603 (our own CLI)
        command,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = _LISTENING.search(line)
    if found is None:
        process.kill()
        pytest.fail(f"server did not start: {line!r}")
    address = f"{found.group(1)}:{found.group(2)}"
    http_url = None
    if http:  # printed on the line after the address
        http_line = _HTTP.search(process.stdout.readline())
        assert http_line is not None
        http_url = http_line.group(1)
    metrics_url = None
    if metrics:  # printed after the addresses
        metrics_line = _METRICS.search(process.stdout.readline())
        assert metrics_line is not None
        metrics_url = metrics_line.group(1)
    channel = grpc.insecure_channel(address)
    _wait_until_serving(channel)
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    return Server(
        process, address, channel, stub, operator_token, metrics_url, http_url
    )


def _wait_until_serving(channel: grpc.Channel, seconds: float = 20) -> None:
    """Waits until the server's health check answers SERVING."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if health_status(channel) == health_pb2.HealthCheckResponse.SERVING:
                return
        except grpc.RpcError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.05)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """Yields the URL of an empty PostgreSQL schema."""
    with fresh_schema() as url:
        yield url


@pytest.fixture
def server(postgres_url: str) -> Iterator[Server]:
    """Yields a development-mode server on PostgreSQL with an operator credential."""
    running = start_server(postgres_url, dev=True, operator_token=secrets.token_hex(16))
    yield running
    assert running.stop() == 0
