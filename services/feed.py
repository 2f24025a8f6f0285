"""The live feed: one event-store subscription per process, fanned out in memory.

A background thread follows the library's subscription to the application's
notification log (PostgreSQL ``LISTEN/NOTIFY``, so moves committed by any server
process arrive; the in-memory store wakes it in process). The SQLite store has
no subscription: there the feed hears this process's own appends instead, through
``GamesApp.appended``. Either way events are handed to the asyncio loop with
``call_soon_threadsafe`` and offered to the listeners of their game.

A ``Listener`` is one open stream's place in one game: ``next()`` returns the
events after ``last`` in revision order, each once. It drops what it has already
returned and, since a game's revisions are gap-free, re-reads from the store
whatever it finds missing. A stream registers its listener *before* it reads the
game, so an event committed after that read always reaches the listener, and an
event that reaches it twice (read and delivered) is dropped by revision.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from typing import Self
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Notification, Subscription

from services.games import GamesApp
from services.records import RecordedEvent, StoredEvent, unwrap

log = logging.getLogger(__name__)

QUEUE_SIZE = 256  # undelivered batches an open stream may hold before it is closed
RETRY_SECONDS = 1.0  # pause before following the store again after a failure

Batch = tuple[RecordedEvent, ...]


class FeedError(Exception):
    """Why a listener can give no more events."""


class SlowConsumerError(FeedError):
    """The stream fell too far behind; its client should resume where it was."""


class FeedClosedError(FeedError):
    """The server is shutting down."""


class Listener:
    """One open stream's view of one game: the events after ``last``, in order."""

    def __init__(self, feed: Feed, game_id: UUID, size: int) -> None:
        self.game_id = game_id
        self.last = 0  # the last revision returned (or read by the stream itself)
        self._feed = feed
        self._size = size
        self._batches: deque[Batch] = deque()
        self._wake = asyncio.Event()
        self._error: FeedError | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()

    def close(self) -> None:
        """Stops listening; the feed forgets this listener."""
        self._feed.forget(self)

    def offer(self, batch: Batch) -> None:
        """Queues events delivered by the feed; overflowing fails the listener."""
        if self._error is not None:
            return
        if len(self._batches) >= self._size:
            self.fail(SlowConsumerError())
            return
        self._batches.append(batch)
        self._wake.set()

    def fail(self, error: FeedError) -> None:
        """Ends the listener: ``next()`` raises ``error`` from now on."""
        self._error = error
        self._batches.clear()
        self._wake.set()
        self.close()

    async def next(self, idle_seconds: float) -> Batch:
        """Returns the next events after ``last``, gap-free; () after idle_seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + idle_seconds
        while True:
            if self._error is not None:
                raise self._error
            if not self._batches:
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), deadline - loop.time())
                except TimeoutError:
                    return ()
                continue
            batch = tuple(e for e in self._batches.popleft() if e.revision > self.last)
            if batch and batch[0].revision != self.last + 1:
                # Something is missing (or still on its way): the store has it.
                batch = tuple(await self._feed.read(self.game_id, self.last))
            if batch:
                self.last = batch[-1].revision
                return batch


class Feed:
    """Delivers every committed event to the listeners of its game."""

    def __init__(
        self,
        app: GamesApp,
        *,
        heartbeat_seconds: float = 20.0,
        queue_size: int = QUEUE_SIZE,
    ) -> None:
        self.app = app
        self.heartbeat_seconds = heartbeat_seconds
        self._queue_size = queue_size
        self._listeners: dict[UUID, set[Listener]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._subscription: Subscription[ApplicationRecorder] | None = None
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._closed = False
        self._position = 0  # the last notification handled

    def start(self) -> None:
        """Starts following the store from now on; call it on the server's loop."""
        self._loop = asyncio.get_running_loop()
        self._position = self.app.recorder.max_notification_id() or 0
        try:
            subscription = self.app.recorder.subscribe(gt=self._position)
        except NotImplementedError:  # SQLite: only this process's appends
            self.app.appended.append(self._appended)
            return
        self._thread = threading.Thread(
            target=self._run, args=(subscription,), name="tabletop-feed", daemon=True
        )
        self._thread.start()

    async def stop(self) -> None:
        """Ends every listener (``FeedClosedError``) and the subscription thread."""
        self._closed = True
        for listeners in list(self._listeners.values()):
            for listener in list(listeners):
                listener.fail(FeedClosedError())
        with self._lock:
            self._stopped.set()
            if self._subscription is not None:
                self._subscription.stop()
        if self._appended in self.app.appended:
            self.app.appended.remove(self._appended)
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)

    def listen(self, game_id: UUID) -> Listener:
        """Returns a new listener of a game; call it on the loop."""
        if self._closed:
            raise FeedClosedError
        listener = Listener(self, game_id, self._queue_size)
        self._listeners.setdefault(game_id, set()).add(listener)
        return listener

    def forget(self, listener: Listener) -> None:
        """Drops a listener (it may already be gone)."""
        listeners = self._listeners.get(listener.game_id)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self._listeners[listener.game_id]

    def listening(self) -> int:
        """Returns the number of open listeners."""
        return sum(len(listeners) for listeners in self._listeners.values())

    async def read(self, game_id: UUID, after: int) -> list[RecordedEvent]:
        """Returns a game's stored events after a revision (read in a thread)."""
        return await asyncio.to_thread(self.app.recorded_events, game_id, gt=after)

    def _run(self, first: Subscription[ApplicationRecorder]) -> None:
        """The feed thread: follows the store, resubscribing after a failure."""
        subscription: Subscription[ApplicationRecorder] | None = first
        while not self._stopped.is_set():
            try:
                if subscription is None:
                    subscription = self.app.recorder.subscribe(gt=self._position)
                self._follow(subscription)
            except Exception:
                log.warning("live feed: the subscription failed", exc_info=True)
            subscription = None
            self._stopped.wait(RETRY_SECONDS)

    def _follow(self, subscription: Subscription[ApplicationRecorder]) -> None:
        with self._lock:
            self._subscription = subscription
            if self._stopped.is_set():
                subscription.stop()
        with subscription:
            for notification in subscription:
                self._position = notification.id
                self._notify(notification)

    def _notify(self, notification: Notification) -> None:
        game_id = UUID(str(notification.originator_id))
        # Read from this thread without a lock: a listener registered before its
        # stream read the store is visible here for every event committed later.
        if game_id not in self._listeners:
            return
        try:
            stored = self.app.mapper.to_domain_event(notification)
            recorded = unwrap(stored) if isinstance(stored, StoredEvent) else None
        except Exception:  # a stream that reads it from the store will report it
            log.exception("live feed: cannot decode notification %d", notification.id)
            return
        if recorded is not None:
            self._post(game_id, (recorded,))

    def _appended(self, game_id: UUID, events: Batch) -> None:
        if game_id in self._listeners:
            self._post(game_id, events)

    def _post(self, game_id: UUID, batch: Batch) -> None:
        if self._loop is None or self._closed:
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed
            self._loop.call_soon_threadsafe(self._deliver, game_id, batch)

    def _deliver(self, game_id: UUID, batch: Batch) -> None:
        for listener in list(self._listeners.get(game_id, ())):
            listener.offer(batch)
