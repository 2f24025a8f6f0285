"""``tabletop serve --metrics-listen``: what Prometheus scrapes from a real server."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tabletop.v1 import game_service_pb2_grpc

from tests.e2e.client import (
    Spectator,
    expect_error,
    get,
    legal_moves,
    seat_of,
    start_two_seats,
    submit,
)
from tests.e2e.conftest import Server, start_server

GAME_SERVICE = "tabletop.v1.GameService"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(server: Server) -> Samples:
    """Returns every sample the metrics endpoint serves, by name and labels."""
    assert server.metrics_url is not None
    with urllib.request.urlopen(server.metrics_url, timeout=5) as reply:  # noqa: S310
        text = reply.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """Returns the sum of the samples of ``name`` whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def play(
    stub: game_service_pb2_grpc.GameServiceStub, moves: int
) -> tuple[str, str, str]:
    """Plays ``moves`` moves of a new game; returns it, the seat to move's token
    and the other's."""
    name, tokens = start_two_seats(stub)
    for _ in range(moves):
        seat = seat_of(get(stub, name).current_player)
        revision, options = legal_moves(stub, name, tokens[seat])
        submit(stub, name, tokens[seat], options[0], revision)
    seat = seat_of(get(stub, name).current_player)
    return name, tokens[seat], tokens[1 - seat]


def open_streams_become(server: Server, count: float) -> Samples:
    """Scrapes until the open-streams gauge reads ``count``; returns the samples."""
    deadline = time.monotonic() + 5
    while True:
        samples = scrape(server)
        if value(samples, "tabletop_open_streams") == count:
            return samples
        assert time.monotonic() < deadline, samples
        time.sleep(0.05)


@pytest.fixture
def metered(postgres_url: str) -> Iterator[Server]:
    """Yields a server on PostgreSQL that serves metrics."""
    running = start_server(postgres_url, dev=True, metrics=True)
    yield running
    assert running.stop() == 0


def test_moves_refusals_latencies_streams_and_the_pool_are_measured(
    metered: Server,
) -> None:
    name, mover, idle = play(metered.stub, 3)
    _, options = legal_moves(metered.stub, name, mover)
    code, reason, _ = expect_error(submit, metered.stub, name, idle, options[0])
    spectator = Spectator(metered.stub, name)

    samples = open_streams_become(metered, 1)
    assert value(samples, "tabletop_moves_accepted_total", game_type="qwirkle") == 3
    refused = {"method": "SubmitMove", "code": code.name, "reason": reason}
    assert value(samples, "tabletop_refusals_total", **refused) == 1
    ok_moves = {"service": GAME_SERVICE, "method": "SubmitMove", "code": "OK"}
    assert value(samples, "tabletop_rpc_duration_seconds_count", **ok_moves) == 3
    assert value(samples, "tabletop_rpc_duration_seconds_bucket", le="10.0") == (
        value(samples, "tabletop_rpc_duration_seconds_count")
    )
    assert value(samples, "tabletop_rpc_handled_total", method="SubmitMove") == 4
    assert value(samples, "tabletop_db_pool_size") >= 1
    assert value(samples, "tabletop_db_pool_waiting") == 0
    assert ("tabletop_db_pool_available", frozenset()) in samples
    assert value(samples, "tabletop_commit_appends_total") >= 3

    spectator.call.cancel()
    spectator.finish()
    samples = open_streams_become(metered, 0)
    ended = {"method": "StreamGame", "code": "CANCELLED"}
    assert value(samples, "tabletop_rpc_handled_total", **ended) == 1


def test_no_label_names_a_game_or_a_token(metered: Server) -> None:
    name, mover, idle = play(metered.stub, 1)
    expect_error(get, metered.stub, name, "not-a-seat-token")
    secrets = (name.removeprefix("games/"), mover, idle, "not-a-seat-token")
    labels = {v for (_, ls), _ in scrape(metered).items() for _, v in ls}
    assert not [v for v in labels for secret in secrets if secret in v]


def test_a_group_of_processes_serves_its_metrics_summed(postgres_url: str) -> None:
    group = start_server(postgres_url, dev=True, processes=2, metrics=True)
    try:
        channels = [grpc.insecure_channel(group.address) for _ in range(4)]
        stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
        for stub in stubs:  # each a new connection, spread over both processes
            play(stub, 1)
        spectator = Spectator(stubs[0], start_two_seats(stubs[1])[0])
        samples = open_streams_become(group, 1)
        assert value(samples, "tabletop_moves_accepted_total") == 4
        assert value(samples, "tabletop_rpc_handled_total", method="StartGame") == 5
        assert value(samples, "tabletop_db_pool_size") >= 2  # one pool each
        spectator.call.cancel()
        spectator.finish()
        for channel in channels:
            channel.close()
    finally:
        assert group.stop() == 0
