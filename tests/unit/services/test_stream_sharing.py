"""What the streams of one game share: folds, messages, and what they must not.

A game's feed folds each event once for all its listeners, and each event is
converted once per kind of viewer: spectators share one message, a seat gets
its own private view and never a spectator's or another seat's. The same holds
for the batches a ``batch_events`` stream sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any
from uuid import UUID

import grpc
import pytest
from eventsourcing.persistence import OperationalError
from tabletop.v1 import game_service_pb2, game_service_pb2_grpc

from domain.common.seats import Seat, Spectator
from infra.server import create_server, stop_server
from infra.settings import Settings
from services.api.shared_messages import (
    MAX_BATCH,
    batch_messages,
    event_message,
    snapshot_message,
)
from services.feed import Feed
from services.game_feed import Entry, GameFeed, Listener
from services.games import GamesApp
from services.records import GameRecord, RecordedEvent, fold
from tests.unit.services.test_feed import play, read, start_game

WAIT = 5.0


@pytest.fixture
def app() -> Iterator[GamesApp]:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}, allow_client_seed=True)
    yield app
    app.close()


def at(app: GamesApp, game_id: UUID, revision: int) -> GameRecord:
    record = fold(game_id, app.recorded_events(game_id)[:revision])
    assert record is not None
    return record


def game_feed(app: GamesApp, game_id: UUID, size: int = 64) -> GameFeed:
    """Returns a game's feed that reads ``app``; the test offers its events."""

    async def read(game: UUID, after: int) -> list[RecordedEvent]:
        return app.recorded_events(game, gt=after)

    return GameFeed(game_id, read, size, lambda _: None)


async def entries_until(listener: Listener, revision: int) -> list[Entry]:
    found: list[Entry] = []
    async with asyncio.timeout(WAIT):
        while listener.last < revision:
            found += await listener.next(WAIT)
    return found


def drawn(entries: list[Entry]) -> Entry:
    """Returns the first entry that draws tiles from the bag."""
    return next(e for e in entries if type(e.item.event).__name__ == "TilesDrawn")


def two_listeners_from_6(
    app: GamesApp, turns: int, size: int = 64
) -> tuple[UUID, Listener, Listener, int]:
    """Plays ``turns`` turns; returns the game, two listeners of its feed that
    read it at revision 6 and were offered every event after, and the final
    revision."""
    game_id, tokens = start_game(app)
    final = play(app, game_id, tokens, turns)
    game = game_feed(app, game_id, size=size)
    first, second = game.listen(), game.listen()
    first.start(at(app, game_id, 6))
    second.start(at(app, game_id, 6))
    game.offer(tuple(app.recorded_events(game_id, gt=6)))
    return game_id, first, second, final


async def test_the_listeners_of_a_game_share_one_fold_per_event(
    app: GamesApp,
) -> None:
    game_id, first, second, final = two_listeners_from_6(app, 2)
    mine, theirs = await entries_until(first, final), await entries_until(second, final)
    assert [e.revision for e in mine] == list(range(7, final + 1))
    assert all(a is b for a, b in zip(mine, theirs, strict=True))
    assert mine[-1].record.table == at(app, game_id, final).table


async def test_spectators_share_one_message_and_seats_get_their_own(
    app: GamesApp,
) -> None:
    game_id, tokens = start_game(app)
    final = play(app, game_id, tokens)
    game = game_feed(app, game_id)
    listener = game.listen()
    listener.start(at(app, game_id, 6))
    game.offer(tuple(app.recorded_events(game_id, gt=6)))
    entry = drawn(await entries_until(listener, final))
    drawer = entry.item.event.seat

    spectators = [event_message(entry, Spectator()) for _ in range(3)]
    own, other = (
        event_message(entry, Seat(drawer)),
        event_message(entry, Seat(1 - drawer)),
    )
    assert spectators[0] is spectators[1] is spectators[2]
    assert own is event_message(entry, Seat(drawer))
    assert own is not spectators[0]
    assert own is not other
    assert len(own.event.qwirkle.tiles_drawn.tiles) == entry.item.event.count > 0
    assert not spectators[0].event.qwirkle.tiles_drawn.tiles
    assert not other.event.qwirkle.tiles_drawn.tiles
    assert spectators[0].event.qwirkle.tiles_drawn.count == entry.item.event.count


async def test_a_spectators_snapshot_is_shared_and_a_seat_sees_its_rack(
    app: GamesApp,
) -> None:
    game_id, tokens = start_game(app)
    final = play(app, game_id, tokens)
    game = game_feed(app, game_id)
    listener = game.listen()
    listener.start(at(app, game_id, 6))
    game.offer(tuple(app.recorded_events(game_id, gt=6)))
    entry = (await entries_until(listener, final))[-1]
    watching = snapshot_message(entry, Spectator())
    seated = snapshot_message(entry, Seat(0))
    assert watching is snapshot_message(entry, Spectator())
    assert watching.snapshot.revision == seated.snapshot.revision == final
    assert not watching.snapshot.qwirkle_view.HasField("private_state")
    assert len(seated.snapshot.qwirkle_view.private_state.rack) == 6


async def test_a_stream_that_read_before_the_shared_log_reads_its_gap_itself(
    app: GamesApp,
) -> None:
    game_id, tokens = start_game(app)
    final = play(app, game_id, tokens, 2)
    game = game_feed(app, game_id)
    late, early = game.listen(), game.listen()
    late.start(at(app, game_id, final))  # starts the shared log at ``final``
    early.start(at(app, game_id, 3))
    assert [e.revision for e in await early.next(WAIT)] == list(range(4, final + 1))
    assert await early.next(0.05) == ()


async def test_a_gap_the_store_cannot_fill_ends_the_listeners_with_its_error(
    app: GamesApp,
) -> None:
    game_id, tokens = start_game(app)
    play(app, game_id, tokens)

    async def unavailable(game: UUID, after: int) -> list[RecordedEvent]:
        raise OperationalError

    game = GameFeed(game_id, unavailable, 64, lambda _: None)
    listener = game.listen()
    listener.start(at(app, game_id, 6))
    game.offer((app.recorded_events(game_id)[7],))  # revision 8: 7 is missing
    with pytest.raises(OperationalError):
        await listener.next(WAIT)
    assert not game.listeners


async def test_an_event_that_does_not_fold_ends_the_listeners_with_its_error(
    app: GamesApp,
) -> None:
    game_id, _ = start_game(app)
    game = game_feed(app, game_id)
    listener = game.listen()
    listener.start(at(app, game_id, 6))
    created_again = replace(app.recorded_events(game_id)[0], revision=7)
    game.offer((created_again,))
    with pytest.raises(ValueError, match="first event"):
        await listener.next(WAIT)
    assert not game.listeners


async def test_a_listener_left_behind_is_closed_and_the_others_go_on(
    app: GamesApp,
) -> None:
    game_id, tokens = start_game(app)
    final = play(app, game_id, tokens, 4)
    game = GameFeed(game_id, lambda *_: asyncio.sleep(0, []), 3, lambda _: None)
    stuck, reading = game.listen(), game.listen()
    stuck.start(at(app, game_id, 6))
    reading.start(at(app, game_id, 6))
    for item in app.recorded_events(game_id, gt=6):
        game.offer((item,))
        await reading.next(WAIT)
    assert reading.last == final
    assert game.listeners == {reading}


async def test_a_batch_holds_the_ready_events_in_order_and_spectators_share_it(
    app: GamesApp,
) -> None:
    _, first, second, final = two_listeners_from_6(app, 2)
    mine, theirs = await first.next(WAIT), await second.next(WAIT)

    (batch,) = batch_messages(mine, Spectator())
    (same,) = batch_messages(theirs, Spectator())
    assert batch is same
    assert [e.revision for e in batch.events.events] == list(range(7, final + 1))
    assert list(batch.events.events) == [
        event_message(entry, Spectator()).event for entry in mine
    ]


async def test_a_seat_gets_its_own_batch_with_its_own_draws(app: GamesApp) -> None:
    game_id, tokens = start_game(app)
    play(app, game_id, tokens)
    game = game_feed(app, game_id)
    listener = game.listen()
    listener.start(at(app, game_id, 6))
    game.offer(tuple(app.recorded_events(game_id, gt=6)))
    entries = await listener.next(WAIT)
    drawer = drawn(list(entries)).item.event.seat

    (watching,) = batch_messages(entries, Spectator())
    (own,) = batch_messages(entries, Seat(drawer))
    (other,) = batch_messages(entries, Seat(1 - drawer))
    assert own is not watching
    assert own is not other
    assert (own,) == tuple(batch_messages(entries, Seat(drawer)))

    def tiles(batch: game_service_pb2.StreamGameResponse) -> int:
        return sum(len(e.qwirkle.tiles_drawn.tiles) for e in batch.events.events)

    assert tiles(own) > 0
    assert tiles(watching) == tiles(other) == 0


async def test_batches_hold_at_most_100_events_cut_alike_for_every_stream(
    app: GamesApp,
) -> None:
    _, first, second, final = two_listeners_from_6(app, 30, size=256)
    assert final - 6 > MAX_BATCH
    mine, theirs = await first.next(WAIT), await second.next(WAIT)

    batches = list(batch_messages(mine, Spectator()))
    sizes = [len(batch.events.events) for batch in batches]
    assert sizes == [MAX_BATCH, final - 6 - MAX_BATCH]
    revisions = [e.revision for batch in batches for e in batch.events.events]
    assert revisions == list(range(7, final + 1))
    shared = batch_messages(theirs, Spectator())
    assert all(a is b for a, b in zip(batches, shared, strict=True))


# --- through a real server in this process ---


@pytest.fixture
async def stub(
    app: GamesApp,
) -> AsyncIterator[game_service_pb2_grpc.GameServiceAsyncStub]:
    feed = Feed(app, heartbeat_seconds=WAIT)
    running = await create_server(
        Settings(listen="127.0.0.1:0", reflection=False), app, feed
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield game_service_pb2_grpc.GameServiceStub(channel)
    finally:
        await channel.close()
        await stop_server(running, 1)


async def test_streams_of_spectators_and_seats_each_get_what_they_may_see(
    app: GamesApp, stub: game_service_pb2_grpc.GameServiceAsyncStub
) -> None:
    game_id, tokens = start_game(app)
    request = game_service_pb2.StreamGameRequest(
        name=f"games/{game_id}", snapshot_first=True
    )
    metadata: list[Any] = [
        None,
        None,
        *((("authorization", f"Bearer {t}"),) for t in tokens),
    ]
    calls = [stub.StreamGame(request, metadata=m, timeout=WAIT) for m in metadata]
    for call in calls:
        assert (await read(call)).snapshot.revision == 6
        assert (await read(call)).caught_up.revision == 6
    final = await asyncio.to_thread(play, app, game_id, tokens)
    seen = [[await read(call) for _ in range(final - 6)] for call in calls]
    for call in calls:
        call.cancel()
    draws = [[i.event.qwirkle.tiles_drawn for i in items] for items in seen]
    (spectator, other_spectator, *seats) = [
        next(d for d in found if d.count) for found in draws
    ]
    assert spectator == other_spectator
    assert not spectator.tiles
    mover = int(spectator.player.rsplit("/", 1)[1])
    assert len(seats[mover].tiles) == spectator.count
    assert not seats[1 - mover].tiles


def events_of(items: list[game_service_pb2.StreamGameResponse]) -> list[Any]:
    """Returns the events of a stream's items, whether one per item or batched."""
    found: list[Any] = []
    for item in items:
        kind = item.WhichOneof("item")
        if kind == "event":
            found.append(item.event)
        elif kind == "events":
            found.extend(item.events.events)
    return found


async def read_until(
    call: Any, revision: int
) -> list[game_service_pb2.StreamGameResponse]:
    """Returns a stream's items up to the one that holds ``revision``."""
    items: list[game_service_pb2.StreamGameResponse] = []
    while not (found := events_of(items)) or found[-1].revision < revision:
        items.append(await read(call))
    return items


async def test_a_resumed_batching_stream_sends_what_a_per_event_stream_does(
    app: GamesApp, stub: game_service_pb2_grpc.GameServiceAsyncStub
) -> None:
    game_id, tokens = start_game(app)
    played = await asyncio.to_thread(play, app, game_id, tokens, 30)
    metadata = (("authorization", f"Bearer {tokens[0]}"),)
    calls = [
        stub.StreamGame(
            game_service_pb2.StreamGameRequest(
                name=f"games/{game_id}", after_revision=3, batch_events=batch
            ),
            metadata=metadata,
            timeout=WAIT,
        )
        for batch in (False, True)
    ]
    backlog = [await read_until(call, played) for call in calls]
    final = await asyncio.to_thread(play, app, game_id, tokens, 2)
    live = [await read_until(call, final) for call in calls]
    for call in calls:
        call.cancel()

    one_each, batched = (events_of(b + n) for b, n in zip(backlog, live, strict=True))
    assert [e.revision for e in one_each] == list(range(4, final + 1))
    assert batched == one_each
    # The catch-up ends with its marker, which the live events follow.
    assert [items[0].caught_up.revision for items in live] == [played, played]
    assert {i.WhichOneof("item") for i in backlog[1] + live[1][1:]} == {"events"}
    assert [len(i.events.events) for i in backlog[1]] == [
        MAX_BATCH,
        played - 3 - MAX_BATCH,
    ]
