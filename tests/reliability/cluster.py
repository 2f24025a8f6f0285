"""A private, throwaway PostgreSQL cluster that a test may stop and start at will.

The outage test stops its database; the machine's shared server (which other
tests use at the same time) must never be the one stopped. So the test gets a
cluster of its own, made as ``.ci/ensure-postgres`` makes one: ``initdb`` with
trust authentication into a temporary directory, ``pg_ctl`` on a free loopback
port, run as user ``postgres`` when we are root (``initdb`` refuses root), and
durability off (the data is thrown away).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

PASSWORD = "postgres"  # ignored by trust authentication; the library wants one


def _bindir() -> Path:
    """Returns the directory of initdb and pg_ctl, or fails the test saying why."""
    if "PG_BINDIR" in os.environ:
        return Path(os.environ["PG_BINDIR"])
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).parent
    debian = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
        reverse=True,
    )
    for candidate in debian:
        if (candidate / "pg_ctl").exists() and (candidate / "initdb").exists():
            return candidate
    pytest.fail(
        "initdb and pg_ctl not found (PATH, $PG_BINDIR, /usr/lib/postgresql/*/bin): "
        "install the PostgreSQL server (apt-get install postgresql)"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """A cluster in a temporary directory; ``remove`` stops it and deletes it."""

    def __init__(self) -> None:
        self.bindir = _bindir()
        self.root = os.geteuid() == 0
        self.base = Path(tempfile.mkdtemp(prefix="tabletop-outage-"))
        if self.root:
            shutil.chown(self.base, "postgres", "postgres")
        self.data = self.base / "data"
        self.port = _free_port()
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust")

    def environ(self) -> dict[str, str]:
        """Returns the ``POSTGRES_*`` variables that point tests.pg at the cluster."""
        return {
            "POSTGRES_HOST": "127.0.0.1",
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": PASSWORD,
            "POSTGRES_DBNAME": "postgres",
        }

    def url(self, schema: str) -> str:
        """Returns the URL of a schema of the cluster's ``postgres`` database."""
        return (
            f"postgresql://postgres:{PASSWORD}@127.0.0.1:{self.port}/postgres"
            f"?schema={schema}"
        )

    def start(self) -> None:
        """Starts the cluster; returns once it accepts connections."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.base} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        log = str(self.base / "server.log")
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", log, "-w", "-t", "30",
            "-o", options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stops the cluster at once: sessions are cut, nothing is waited for."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        """Stops the cluster if it runs and deletes its directory."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.base, ignore_errors=True)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if self.root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(  # noqa: S603 (PostgreSQL's own programs)
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
