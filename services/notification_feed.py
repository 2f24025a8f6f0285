"""The notification feed: new outbox notifications handed to their players' streams.

One reader per process follows the outbox's tail (``services/players_view.py``)
every half second, and at once when this process's projection stored a page,
and hands each new notification to the open StreamNotifications calls of its
player, in memory: one query however many streams are open. A stream that
falls ``QUEUE_SIZE`` notifications behind is ended (it resumes with its last
id).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator, Sequence
from uuid import UUID
from weakref import WeakKeyDictionary

from services.log_clock import Ticker
from services.players_view import PlayersView, Stored

QUEUE_SIZE = 256  # notifications a stream may fall behind before it is ended
PAGE = 1000  # notifications read at a time
PERIOD = 0.5  # seconds between reads of the tail when not woken


class SlowStreamError(Exception):
    """A stream fell too far behind its notifications."""


class Subscriber:
    """One open stream's queue of notifications."""

    def __init__(self, player_id: UUID) -> None:
        self.player_id = player_id
        self._queue: asyncio.Queue[Stored] = asyncio.Queue(QUEUE_SIZE)
        self.overflowed = False

    def offer(self, stored: Stored) -> None:
        """Queues a notification (on the loop); marks the stream slow when full."""
        try:
            self._queue.put_nowait(stored)
        except asyncio.QueueFull:
            self.overflowed = True

    async def next(self, idle_seconds: float) -> Stored | None:
        """Returns the next notification, None after ``idle_seconds`` idle."""
        if self.overflowed:
            raise SlowStreamError
        try:
            async with asyncio.timeout(idle_seconds):
                return await self._queue.get()
        except TimeoutError:
            return None


class NotificationFeed(Ticker):
    """Follows the outbox's tail for the streams of this process."""

    NAME = "notification feed"

    def __init__(self, view: PlayersView) -> None:
        super().__init__()
        self.view = view
        self.position: int | None = None  # the newest notification read
        # The newest notification handed to the streams (on the loop): every
        # stream has been offered each one up to it.
        self.handed_on = 0
        self._streams: dict[UUID, set[Subscriber]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def subscribe(self, player_id: UUID) -> Iterator[Subscriber]:
        """Registers a stream of the player's notifications while it is open."""
        self._start()
        subscriber = Subscriber(player_id)
        with self._lock:
            self._streams.setdefault(player_id, set()).add(subscriber)
        try:
            yield subscriber
        finally:
            with self._lock:
                mine = self._streams.get(player_id, set())
                mine.discard(subscriber)
                if not mine:
                    self._streams.pop(player_id, None)

    def tick(self) -> int:
        """Reads what was stored since the last read and hands it on."""
        if self.position is None:
            self.position = self.handed_on = self.view.newest()
            return 0
        found = 0
        while True:
            page = self.view.since(self.position, PAGE)
            if not page:
                return found
            self.position = page[-1].id
            found += len(page)
            if self._loop is not None:
                with contextlib.suppress(RuntimeError):  # the loop has stopped
                    self._loop.call_soon_threadsafe(self._hand_on, page)

    def _hand_on(self, page: Sequence[Stored]) -> None:
        with self._lock:
            for stored in page:
                for subscriber in self._streams.get(stored.notice.player_id, ()):
                    subscriber.offer(stored)
            self.handed_on = max(self.handed_on, page[-1].id)

    def _start(self) -> None:
        """Starts following the tail on the running loop, once."""
        if self._task is None:
            self._loop = asyncio.get_running_loop()
            self._task = self._loop.create_task(
                self.run(PERIOD), name="tabletop-notices"
            )


_FEEDS: WeakKeyDictionary[PlayersView, NotificationFeed] = WeakKeyDictionary()
_OPENING = threading.Lock()


def notification_feed_for(view: PlayersView) -> NotificationFeed:
    """Returns the process's one feed of a view's notifications."""
    with _OPENING:
        feed = _FEEDS.get(view)
        if feed is None:
            feed = _FEEDS[view] = NotificationFeed(view)
            feed.tick()  # from the newest stored now: a stream reads older ones
        return feed
