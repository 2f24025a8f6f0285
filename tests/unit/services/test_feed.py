"""The live feed's fan-out on the in-memory and SQLite stores, and its server wiring.

The in-memory store wakes the library's subscription in process; SQLite has no
subscription, so the feed hears this process's appends. Both must deliver each
event once, in order, to the listeners of its game.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, TypeAlias
from uuid import UUID

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_service_pb2, game_service_pb2_grpc

from domain.games.qwirkle import RULES, QwirkleConfig
from infra.server import Running, create_server, stop_server
from infra.settings import Settings
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.feed import Feed
from services.game_feed import (
    FeedClosedError,
    GameFeed,
    Listener,
    SlowConsumerError,
)
from services.games import Applied, GamesApp, Seated
from services.records import GameRecord, RecordedEvent, fold
from tests.helpers import SEED
from tests.playing import sent_move

STORES = ["memory", "sqlite"]
WAIT = 5.0  # seconds a test waits for something that should take milliseconds


@pytest.fixture(params=STORES)
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GamesApp]:
    if request.param == "memory":
        env = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    else:
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "feed.sqlite3"),
        }
    app = GamesApp(env, allow_client_seed=True)
    yield app
    app.close()


@pytest.fixture
async def feed(app: GamesApp) -> AsyncIterator[Feed]:
    feed = Feed(app, heartbeat_seconds=0.05, queue_size=64)
    feed.start()
    yield feed
    await feed.stop()


def start_game(app: GamesApp) -> tuple[UUID, list[str]]:
    """Opens, fills and starts a two-player Qwirkle game; returns id and tokens."""
    creator = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), 0, "Ada", seed=SEED)
    )
    assert isinstance(creator, Seated)
    game_id = creator.record.game_id
    joiner = app.join_game(JoinGame(game_id, "Bo"))
    assert isinstance(joiner, Seated)
    assert isinstance(
        app.start_game(SeatRequest(game_id, Call(creator.token))), Applied
    )
    return game_id, [creator.token, joiner.token]


def play(app: GamesApp, game_id: UUID, tokens: list[str], moves: int = 1) -> int:
    """Plays the first legal move of the seat to move; returns the new revision."""
    revision = 0
    for _ in range(moves):
        record = app.get_game(game_id)
        assert record is not None
        (seat,) = RULES.to_move(record.table.game)
        move = sent_move(next(RULES.legal_moves(record.table.game, seat)))
        played = app.submit_move(SubmitMove(game_id, move, Call(tokens[seat])))
        assert isinstance(played, Applied), played
        revision = played.record.revision
    return revision


async def collect(listener: Listener, until: int) -> list[int]:
    """Returns the revisions the listener gives until it reaches ``until``."""
    revisions: list[int] = []
    async with asyncio.timeout(WAIT):
        while listener.last < until:
            revisions += [item.revision for item in await listener.next(WAIT)]
    return revisions


def events(app: GamesApp, game_id: UUID) -> list[RecordedEvent]:
    return app.recorded_events(game_id)


async def no_listener_left(feed: Feed) -> None:
    """Waits until the feed has no listener left."""
    for _ in range(int(WAIT / 0.01)):
        if not feed.listening():
            return
        await asyncio.sleep(0.01)
    msg = f"{feed.listening()} listeners left behind"
    raise AssertionError(msg)


def started(feed: Feed, app: GamesApp, game_id: UUID) -> Listener:
    """Returns a listener that has read the game as it is now, as a stream does."""
    listener = feed.listen(game_id)
    record = app.get_game(game_id)
    assert record is not None
    listener.start(record)
    return listener


def unregistered(feed: Feed, game_id: UUID) -> GameFeed:
    """Returns a game's feed the feed does not deliver to: the test offers events."""
    return GameFeed(game_id, feed.read, 64, lambda _: None)


def at(app: GamesApp, game_id: UUID, revision: int) -> GameRecord:
    """Returns the game as it was at ``revision``."""
    record = fold(game_id, events(app, game_id)[:revision])
    assert record is not None
    return record


# --- fan-out ---


async def test_each_new_event_reaches_every_listener_once_in_order(
    app: GamesApp, feed: Feed
) -> None:
    game_id, tokens = start_game(app)
    first, second = started(feed, app, game_id), started(feed, app, game_id)
    final = await asyncio.to_thread(play, app, game_id, tokens, 3)
    expected = list(range(7, final + 1))
    assert await collect(first, final) == expected
    assert await collect(second, final) == expected


async def test_listeners_of_other_games_hear_nothing(app: GamesApp, feed: Feed) -> None:
    game_id, tokens = start_game(app)
    other, _ = start_game(app)
    quiet = started(feed, app, other)
    loud = started(feed, app, game_id)
    final = play(app, game_id, tokens)
    await collect(loud, final)
    assert await quiet.next(0.05) == ()


async def test_events_delivered_twice_are_returned_once(
    app: GamesApp, feed: Feed
) -> None:
    game_id, _ = start_game(app)
    stored = events(app, game_id)
    game = unregistered(feed, game_id)
    with game.listen() as listener:
        listener.start(at(app, game_id, 1))
        game.offer(tuple(stored[0:3]))
        assert [e.revision for e in await listener.next(1)] == [2, 3]
        game.offer(tuple(stored[1:4]))
        game.offer(tuple(stored[0:2]))
        assert [e.revision for e in await listener.next(1)] == [4]
        assert await listener.next(0.05) == ()


async def test_a_gap_is_filled_from_the_store(app: GamesApp, feed: Feed) -> None:
    game_id, _ = start_game(app)
    stored = events(app, game_id)
    game = unregistered(feed, game_id)
    with game.listen() as listener:
        listener.start(at(app, game_id, 2))
        game.offer((stored[4],))  # revision 5: 3 and 4 are missing
        assert [e.revision for e in await listener.next(1)] == [3, 4, 5, 6]
        game.offer((stored[5],))  # already read
        assert await listener.next(0.05) == ()


async def test_events_in_flight_while_a_stream_reads_the_store_are_not_repeated(
    app: GamesApp, feed: Feed
) -> None:
    game_id, tokens = start_game(app)
    with feed.listen(game_id) as listener:  # registered first, as a stream does
        in_flight = play(app, game_id, tokens)  # reaches the game's feed too
        listener.start(at(app, game_id, in_flight))  # the stream's read has it
        final = play(app, game_id, tokens)
        assert await collect(listener, final) == list(range(in_flight + 1, final + 1))


async def test_an_idle_listener_returns_nothing_after_the_interval(
    app: GamesApp, feed: Feed
) -> None:
    game_id, _ = start_game(app)
    with started(feed, app, game_id) as listener:
        began = asyncio.get_running_loop().time()
        assert await listener.next(0.1) == ()
        assert asyncio.get_running_loop().time() - began >= 0.09


async def test_events_posted_before_the_loop_takes_them_are_offered_together(
    app: GamesApp, feed: Feed, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered: list[list[int]] = []
    offer = GameFeed.offer

    def spy(game: GameFeed, batch: tuple[RecordedEvent, ...]) -> None:
        offered.append([item.revision for item in batch])
        offer(game, batch)

    monkeypatch.setattr(GameFeed, "offer", spy)
    game_id, _ = start_game(app)
    with feed.listen(game_id) as listener:
        listener.start(at(app, game_id, 3))
        for item in events(app, game_id)[3:]:  # as the feed thread posts them
            feed._post(game_id, (item,))
        assert [e.revision for e in await listener.next(WAIT)] == [4, 5, 6]
    # In one offer (the in-memory store's own delivery may join them there).
    assert any({4, 5, 6} <= set(revisions) for revisions in offered)


# --- bounded memory, no leaks ---


async def test_a_listener_that_falls_behind_is_closed(app: GamesApp) -> None:
    feed = Feed(app, queue_size=4)
    feed.start()
    game_id, tokens = start_game(app)
    listener = started(feed, app, game_id)
    final = await asyncio.to_thread(play, app, game_id, tokens, 6)  # > 4 events
    await no_listener_left(feed)  # the feed drops it as soon as it overflows
    with pytest.raises(SlowConsumerError):
        await collect(listener, final)
    await feed.stop()


async def test_closing_a_listener_unsubscribes_it(app: GamesApp, feed: Feed) -> None:
    game_id, _ = start_game(app)
    with feed.listen(game_id), feed.listen(game_id):
        assert feed.listening() == 2
    assert feed.listening() == 0
    assert feed._games == {}


async def test_stopping_the_feed_ends_listeners_and_the_thread(app: GamesApp) -> None:
    feed = Feed(app)
    feed.start()
    game_id, _ = start_game(app)
    listener = feed.listen(game_id)
    await feed.stop()
    with pytest.raises(FeedClosedError):
        await listener.next(1)
    with pytest.raises(FeedClosedError):
        feed.listen(game_id)
    assert feed.listening() == 0
    assert feed._thread is None or not feed._thread.is_alive()
    assert feed._appended not in app.appended


# --- through a real server in this process ---

Served: TypeAlias = "tuple[game_service_pb2_grpc.GameServiceAsyncStub, Feed, Running]"


@pytest.fixture
async def served(
    app: GamesApp,
) -> AsyncIterator[Served]:
    settings = Settings(listen="127.0.0.1:0", reflection=False)
    feed = Feed(app, heartbeat_seconds=0.2)
    running = await create_server(settings, app, feed)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield game_service_pb2_grpc.GameServiceStub(channel), feed, running
    finally:
        await channel.close()
        await stop_server(running, 1)


async def read(call: Any) -> game_service_pb2.StreamGameResponse:
    """Returns the next item of a stream call."""
    item = await call.read()
    assert isinstance(item, game_service_pb2.StreamGameResponse)
    return item


def reason_of(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return info.reason


async def test_a_cancelled_stream_leaves_no_listener(
    app: GamesApp, served: Served
) -> None:
    stub, feed, _ = served
    game_id, tokens = start_game(app)
    request = game_service_pb2.StreamGameRequest(
        name=f"games/{game_id}", snapshot_first=True
    )
    call = stub.StreamGame(request, timeout=WAIT)
    assert (await read(call)).snapshot.revision == 6
    assert (await read(call)).caught_up.revision == 6
    await asyncio.to_thread(play, app, game_id, tokens)
    assert (await read(call)).event.revision == 7
    assert feed.listening() == 1
    call.cancel()
    await no_listener_left(feed)


async def test_an_idle_stream_sends_heartbeats(app: GamesApp, served: Served) -> None:
    stub, _, _ = served
    game_id, _ = start_game(app)
    request = game_service_pb2.StreamGameRequest(name=f"games/{game_id}")
    call = stub.StreamGame(request, timeout=WAIT)
    items = [await read(call) for _ in range(9)]
    call.cancel()
    assert [item.WhichOneof("item") for item in items] == ["event"] * 6 + [
        "caught_up"
    ] + ["heartbeat"] * 2
    assert items[6].caught_up.revision == 6
    assert [item.heartbeat.revision for item in items[7:]] == [6, 6]


async def test_a_batching_stream_sends_its_backlog_as_one_item_then_heartbeats(
    app: GamesApp, served: Served
) -> None:
    stub, _, _ = served
    game_id, _ = start_game(app)
    request = game_service_pb2.StreamGameRequest(
        name=f"games/{game_id}", after_revision=2, batch_events=True
    )
    call = stub.StreamGame(request, timeout=WAIT)
    items = [await read(call) for _ in range(4)]
    call.cancel()
    kinds = [item.WhichOneof("item") for item in items]
    assert kinds == ["events", "caught_up"] + ["heartbeat"] * 2
    assert [event.revision for event in items[0].events.events] == [3, 4, 5, 6]
    assert items[1].caught_up.revision == 6


@pytest.mark.parametrize("batch_events", [False, True])
async def test_open_streams_end_unavailable_when_the_server_stops(
    app: GamesApp,
    served: Served,
    batch_events: bool,
) -> None:
    stub, _, running = served
    game_id, _ = start_game(app)
    request = game_service_pb2.StreamGameRequest(
        name=f"games/{game_id}", snapshot_first=True, batch_events=batch_events
    )
    call = stub.StreamGame(request, timeout=WAIT)
    assert (await read(call)).HasField("snapshot")
    assert (await read(call)).HasField("caught_up")
    await stop_server(running, 1)
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call.read()
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    assert reason_of(raised.value) == "SERVER_SHUTTING_DOWN"
