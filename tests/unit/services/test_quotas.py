"""CreateGame quotas per address: waiting tables and unfinished timed games."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from services.api.quotas import Held, TableQuotas
from tests.helpers import Aborted

WAITING = Held(waiting=True, finished=False)
STARTED = Held(waiting=False, finished=False)
FINISHED = Held(waiting=False, finished=True)


@dataclass
class Context:
    peer_name: str = "ipv4:203.0.113.9:4000"

    def peer(self) -> str:
        return self.peer_name

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise Aborted(status)


@dataclass
class Games:
    """What the kept folds and the store say of each game, and reads counted."""

    kept: dict[UUID, Held] = field(default_factory=dict)
    stored: dict[UUID, Held] = field(default_factory=dict)
    reads: int = 0

    def in_memory(self, game_id: UUID) -> Held | None:
        return self.kept.get(game_id)

    def in_store(self, game_id: UUID) -> Held | None:
        self.reads += 1
        return self.stored.get(game_id)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def quotas(games: Games, clock: Clock, waiting: int = 2, timed: int = 1) -> TableQuotas:
    return TableQuotas(
        waiting, timed, games.in_memory, games.in_store, clock=clock, max_tables=50
    )


def request(*, timed: bool = False, request_id: str = "") -> api.CreateGameRequest:
    game = game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE)
    if timed:
        game.turn_time_limit.seconds = 60
    return api.CreateGameRequest(game=game, request_id=request_id)


async def create(
    quota: TableQuotas,
    games: Games,
    create_request: api.CreateGameRequest,
    peer: str = "",
) -> UUID:
    """Opens a table within the quotas; returns its id (stored as waiting)."""
    game_id = uuid.uuid4()
    context = Context(peer) if peer else Context()
    async with quota.opening(context, create_request) as opened:
        games.stored[game_id] = WAITING
        opened(f"games/{game_id}")
    return game_id


def reason(aborted: Aborted) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    details = dict(aborted.status.trailing_metadata)["grpc-status-details-bin"]
    assert isinstance(details, bytes)
    info = error_details_pb2.ErrorInfo()
    status_pb2.Status.FromString(details).details[0].Unpack(info)
    return aborted.status.code, info.reason, dict(info.metadata)


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


def test_an_address_at_its_waiting_cap_is_refused_and_nothing_is_recorded() -> None:
    async def scenario() -> None:
        games, clock = Games(), Clock()
        quota = quotas(games, clock)
        await create(quota, games, request())
        await create(quota, games, request())
        with pytest.raises(Aborted) as refused:
            await create(quota, games, request())
        assert reason(refused.value) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "TOO_MANY_WAITING_TABLES",
            {"maxWaitingTables": "2"},
        )
        assert quota.held("203.0.113.9") == (2, 0)
        await create(quota, games, request(), peer="ipv4:198.51.100.1:1")

    run(scenario)


def test_a_table_that_started_frees_its_place_without_a_store_read() -> None:
    async def scenario() -> None:
        games, clock = Games(), Clock()
        quota = quotas(games, clock)
        first = await create(quota, games, request())
        await create(quota, games, request())
        games.kept[first] = STARTED
        reads = games.reads
        await create(quota, games, request())
        assert quota.held("203.0.113.9") == (2, 0)
        assert games.reads == reads + 1  # only the table not kept in memory

    run(scenario)


def test_at_the_cap_each_table_is_read_from_the_store_once_per_recheck() -> None:
    async def scenario() -> None:
        games, clock = Games(), Clock()
        quota = quotas(games, clock)
        first = await create(quota, games, request())
        await create(quota, games, request())
        for _ in range(5):
            with pytest.raises(Aborted):
                await create(quota, games, request())
        assert games.reads == 2
        games.stored[first] = STARTED  # through another server process
        with pytest.raises(Aborted):
            await create(quota, games, request())
        clock.now = 10.0
        await create(quota, games, request())

    run(scenario)


def test_a_timed_game_counts_until_it_finishes() -> None:
    async def scenario() -> None:
        games, clock = Games(), Clock()
        quota = quotas(games, clock, waiting=10, timed=1)
        timed = await create(quota, games, request(timed=True))
        games.kept[timed] = STARTED
        with pytest.raises(Aborted) as refused:
            await create(quota, games, request(timed=True))
        assert reason(refused.value)[1:] == (
            "TOO_MANY_TIMED_GAMES",
            {"maxTimedGames": "1"},
        )
        await create(quota, games, request())  # without a turn limit
        games.kept[timed] = FINISHED
        await create(quota, games, request(timed=True))

    run(scenario)


def test_a_retry_of_a_held_table_passes_at_the_cap() -> None:
    async def scenario() -> None:
        games, clock = Games(), Clock()
        quota = quotas(games, clock, waiting=1)
        retried = request(request_id="b3c1a6f0")
        first = await create(quota, games, retried)
        async with quota.opening(Context(), retried) as opened:
            opened(f"games/{first}")  # the same game comes back
        assert quota.held("203.0.113.9") == (1, 0)

    run(scenario)


def test_a_create_that_fails_records_nothing() -> None:
    async def scenario() -> None:
        games, clock = Games(), Clock()
        quota = quotas(games, clock, waiting=1)
        with pytest.raises(RuntimeError):
            async with quota.opening(Context(), request()):
                raise RuntimeError
        assert quota.held("203.0.113.9") == (0, 0)
        await create(quota, games, request())

    run(scenario)


def test_beyond_its_bound_the_ledger_forgets_the_least_recent_address() -> None:
    async def scenario() -> None:
        games, clock = Games(), Clock()
        quota = quotas(games, clock, waiting=2)
        for n in range(40):
            await create(quota, games, request(), peer=f"ipv4:192.0.2.{n}:1")
            await create(quota, games, request(), peer=f"ipv4:192.0.2.{n}:1")
        assert len(quota) <= 50
        assert quota.held("192.0.2.0") == (0, 0)
        assert quota.held("192.0.2.39") == (2, 0)

    run(scenario)
