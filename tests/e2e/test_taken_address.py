"""A second ``tabletop serve`` on what a running one holds: one line, no start."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.e2e.conftest import Server, start_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def first() -> Iterator[Server]:
    """Yields a server holding a gRPC, an HTTP and a metrics port."""
    running = start_server("memory:", dev=False, http=True, metrics=True)
    yield running
    assert running.stop() == 0


def serve(*options: str) -> subprocess.CompletedProcess[str]:
    """Runs a second ``tabletop serve``, which must end by itself."""
    return subprocess.run(  # noqa: S603 (our own CLI)
        [sys.executable, "-m", "infra.cli", "serve", "--database", "memory:", *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def host_port(url: str | None) -> str:
    """Returns the ``host:port`` of an ``http://host:port[/path]`` URL."""
    assert url is not None
    return url.removeprefix("http://").split("/", 1)[0]


def assert_refused(refused: subprocess.CompletedProcess[str], taken: str) -> None:
    """Checks the exit status and the one line that names the address and flag."""
    assert refused.returncode != 0
    assert "Traceback" not in refused.stderr
    lines = refused.stderr.splitlines()
    assert len(lines) == 1, refused.stderr
    assert lines[0].startswith(f"tabletop: {taken} is in use:"), lines[0]
    assert refused.stdout == ""


@pytest.mark.parametrize(
    ("flag", "others"),
    [
        ("--listen", ()),
        ("--http-listen", ("--listen", "127.0.0.1:0")),
        ("--metrics-listen", ("--listen", "127.0.0.1:0")),
    ],
)
def test_a_taken_address_is_refused_in_one_line(
    first: Server, flag: str, others: Sequence[str]
) -> None:
    taken = {
        "--listen": first.address,
        "--http-listen": host_port(first.http_url),
        "--metrics-listen": host_port(first.metrics_url),
    }[flag]
    refused = serve(*others, flag, taken)
    assert_refused(refused, taken)
    assert f"({flag} HOST:PORT picks another)" in refused.stderr
    assert first.process.poll() is None  # the first one serves on


def test_a_group_on_a_taken_address_is_refused_in_one_line(first: Server) -> None:
    # The database is never reached: the address is checked first.
    options = ("--processes", "2", "--database", "postgresql://nobody@127.0.0.1/x")
    refused = serve("--listen", first.address, *options)
    assert_refused(refused, first.address)


def test_a_second_server_on_the_same_sqlite_file_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    running = start_server(database, dev=False)
    try:
        refused = serve("--listen", "127.0.0.1:0", "--database", database)
    finally:
        assert running.stop() == 0
    assert refused.returncode == 2
    lines = refused.stderr.splitlines()
    assert len(lines) == 1, refused.stderr
    assert lines[0].startswith("tabletop: cannot use database "), lines[0]
    assert f"(pid {running.process.pid})" in lines[0]
