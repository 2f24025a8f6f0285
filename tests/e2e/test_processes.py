"""``tabletop serve --processes 2``: two servers on one port and one database."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tabletop.v1 import game_pb2, game_service_pb2_grpc

from tests.e2e.client import (
    Spectator,
    get,
    legal_moves,
    seat_of,
    start_two_seats,
    submit,
)
from tests.e2e.conftest import Server, start_server

CONNECTIONS = 6  # each a new TCP connection, spread by the kernel


@pytest.fixture
def group(postgres_url: str) -> Iterator[Server]:
    """Yields a server of two processes; its stop is checked by the tests."""
    running = start_server(postgres_url, dev=True, processes=2)
    yield running
    if running.process.poll() is None:
        running.stop()


def server_processes(pid: int) -> list[int]:
    """Returns the pids of the server processes a supervisor started."""
    listed = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [
        int(child)
        for child in listed
        if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()
    ]


def alive(pid: int) -> bool:
    """Returns whether a process still exists (and is not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_game_played_through_both_processes_reaches_every_stream_once(
    group: Server,
) -> None:
    channels = [grpc.insecure_channel(group.address) for _ in range(CONNECTIONS)]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    name, tokens = start_two_seats(stubs[0])
    spectators = [Spectator(stub, name) for stub in stubs]
    chooser = random.Random(5)
    current = get(stubs[0], name)
    moves = 0
    while current.state == game_pb2.GAME_STATE_IN_PROGRESS:
        stub = stubs[moves % CONNECTIONS]  # every move on another connection
        seat = seat_of(current.current_player)
        revision, options = legal_moves(stub, name, tokens[seat])
        move = chooser.choice(options)
        current = submit(stub, name, tokens[seat], move, revision).game
        moves += 1
    final = {get(stub, name).revision for stub in stubs}
    assert final == {current.revision}
    for spectator in spectators:
        items = spectator.finish()
        revisions = [i.event.revision for i in items if i.HasField("event")]
        assert revisions == sorted(set(revisions))  # in order, none twice
        assert revisions[-1] == current.revision
        assert spectator.code == grpc.StatusCode.OK
    for channel in channels:
        channel.close()
    assert moves > 10


def test_sigterm_stops_every_server_process(group: Server) -> None:
    servers = server_processes(group.process.pid)
    assert len(servers) == 2
    assert all(alive(pid) for pid in servers)
    assert group.stop() == 0
    assert not any(alive(pid) for pid in servers)


def test_a_server_process_that_dies_stops_the_group(group: Server) -> None:
    servers = server_processes(group.process.pid)
    os.kill(servers[0], 9)
    assert group.process.wait(timeout=30) == 1
    group.channel.close()
    assert not any(alive(pid) for pid in servers)


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_server_or_group_on_the_group_s_port_is_refused_in_one_line(
    group: Server, postgres_url: str, processes: str
) -> None:
    # The group's listeners share the port with each other only (SO_REUSEPORT).
    refused = subprocess.run(  # noqa: S603 (our own CLI)
        [
            *(sys.executable, "-m", "infra.cli", "serve", "--listen", group.address),
            *("--database", postgres_url, "--processes", processes),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode != 0
    line = (
        f"tabletop: {group.address} is in use: is a server already running? "
        "(--listen HOST:PORT picks another)"
    )
    assert refused.stderr.splitlines() == [line]
    assert group.process.poll() is None
