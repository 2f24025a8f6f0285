"""The notification feed hands each new notification to its player's streams."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from eventsourcing.persistence import Tracking

from services.notification_feed import NotificationFeed
from services.notifications import Kind, Notice
from services.players_view import MemoryPlayersView


def _notice(player: uuid.UUID, revision: int) -> Notice:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    return Notice(player, uuid.uuid4(), "qwirkle", Kind.YOUR_TURN, revision, at)


async def test_a_heartbeat_never_runs_ahead_of_what_the_stream_was_handed() -> None:
    view = MemoryPlayersView()
    feed = NotificationFeed(view)
    feed.tick()  # from the newest stored now
    ana = uuid.uuid4()
    with feed.subscribe(ana) as stream:
        view.apply([], [_notice(ana, 2), _notice(uuid.uuid4(), 3)], Tracking("t", 1))
        read = await asyncio.to_thread(feed.tick)
        assert read == 2
        # Read, but maybe not handed on yet: a heartbeat may not claim it.
        claimed = feed.handed_on
        first = await stream.next(1.0)
        assert first is not None
        assert first.id == 1
        assert claimed in (0, 2)
        await asyncio.sleep(0)
        assert feed.handed_on == 2
        assert await stream.next(0.05) is None  # the other player's is not hers
