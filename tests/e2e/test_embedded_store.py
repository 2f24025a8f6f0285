"""The embedded SQLite store: one server per file, at a path the operator can see."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import health_status, start_two_seats
from tests.e2e.conftest import start_server

pytestmark = pytest.mark.e2e

RUN_SECONDS = 60  # for a refused server to exit, or a stopped one to stop
LISTENING = re.compile(r"listening on ([\d.]+):(\d+)")


def finished(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Returns the output of a process that must exit; kills one that does not."""
    try:
        return process.communicate(timeout=RUN_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"the server did not exit: {out!r} {err!r}")


def serve(database: str, cwd: Path, *extra: str) -> subprocess.Popen[str]:
    """Starts ``tabletop serve`` on a free port, stdout and stderr piped."""
    command = [sys.executable, "-m", "infra.cli", "serve", "--listen", "127.0.0.1:0"]
    return subprocess.Popen(  # noqa: S603 (our own CLI)
        [*command, "--database", database, *extra],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_second_server_on_the_same_sqlite_file_is_refused(tmp_path: Path) -> None:
    database = tmp_path / "games.sqlite3"
    first = start_server(f"sqlite:///{database}", dev=False)
    try:
        name, _ = start_two_seats(first.stub)
        second = serve(f"sqlite:///{database}", tmp_path)
        out, err = finished(second)
        assert second.returncode == 2, (out, err)
        assert "listening" not in out
        assert f"cannot use database {database}" in err
        assert f"another tabletop server (pid {first.process.pid}) is using it" in err
        assert "Traceback" not in err
        # The first server never noticed.
        assert health_status(first.channel) == health_pb2.HealthCheckResponse.SERVING
        assert first.stub.GetGame(api.GetGameRequest(name=name)).game.name == name
    finally:
        assert first.stop() == 0
    # Its stop released the file: a new server may take it over.
    again = start_server(f"sqlite:///{database}", dev=False)
    try:
        assert again.stub.GetGame(api.GetGameRequest(name=name)).game.name == name
    finally:
        assert again.stop() == 0


def test_the_server_logs_the_absolute_path_of_a_relative_sqlite_file(
    tmp_path: Path,
) -> None:
    server = serve("sqlite:///var/games.sqlite3", tmp_path, "--log-level", "INFO")
    assert server.stdout is not None
    listening = LISTENING.search(server.stdout.readline())
    assert listening is not None
    # Once it answers, its loop runs: SIGTERM then stops it gracefully.
    with grpc.insecure_channel(f"{listening[1]}:{listening[2]}") as channel:
        assert health_status(channel) == health_pb2.HealthCheckResponse.SERVING
    server.send_signal(signal.SIGTERM)
    _, err = finished(server)
    assert server.returncode == 0, err
    expected = tmp_path.resolve() / "var" / "games.sqlite3"
    assert f"(database SQLite file {expected}" in err
    assert expected.exists()


def test_a_sqlite_url_with_a_host_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    server = serve("sqlite://var/x.sqlite3", tmp_path)
    out, err = finished(server)
    assert server.returncode == 2, (out, err)
    assert "sqlite:///var/x.sqlite3" in err
    assert "sqlite:////abs/path" in err
    assert list(tmp_path.iterdir()) == []
