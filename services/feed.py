"""The live feed: one event-store subscription per process, fanned out in memory.

A background thread follows the library's subscription to the application's
notification log (PostgreSQL ``LISTEN/NOTIFY``, so moves committed by any server
process arrive; the in-memory store wakes it in process). The SQLite store has
no subscription: there the feed hears this process's own appends instead, through
``GamesApp.appended``. Either way events are handed to the asyncio loop with
``call_soon_threadsafe`` and offered to the feed of their game. Events that
arrive while the loop has not yet taken the previous ones (it is busy sending a
move to its spectators) wait in one inbox and are offered together, so a move's
events usually reach its streams at once and a batching stream sends them as
one item rather than one per wake-up.

Each game with open streams has one ``GameFeed`` (``services.game_feed``): the
game is folded there once per new event and the streams share its entries. A
stream registers its listener *before* it reads the game, so an event committed
after that read always reaches the game's feed, and an event that reaches it
twice (read and delivered) is folded once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Notification, Subscription

from services.game_feed import Batch, FeedClosedError, GameFeed, Listener
from services.games import GamesApp
from services.records import RecordedEvent, StoredEvent, unwrap
from services.tracebacks import withheld_traceback

log = logging.getLogger(__name__)

QUEUE_SIZE = 256  # events an open stream may fall behind before it is closed
RETRY_SECONDS = 1.0  # pause before following the store again after a failure


class Feed:
    """Delivers every committed event to the feed of its game, for its listeners."""

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
        self._games: dict[UUID, GameFeed] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._subscription: Subscription[ApplicationRecorder] | None = None
        self._lock = threading.Lock()
        # Events posted by the feed thread, waiting for the loop to take them;
        # a take is scheduled while ``_inbox`` is not empty.
        self._inbox: dict[UUID, list[RecordedEvent]] = {}
        self._inbox_lock = threading.Lock()
        self._stopped = threading.Event()
        self._closed = False
        self._position = 0  # the last notification handled
        # Called on the feed's thread with the stream of every notification of
        # their topics, whatever its kind (an account renamed elsewhere).
        self._watchers: dict[str, list[Callable[[UUID], None]]] = {}

    def watch(self, topics: Sequence[str], hook: Callable[[UUID], None]) -> None:
        """Calls ``hook`` with the stream id of every notification of ``topics``
        another process stores (this process's own appends are its to tell)."""
        for topic in topics:
            self._watchers.setdefault(topic, []).append(hook)

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
        for game in list(self._games.values()):
            game.fail(FeedClosedError())
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
        game = self._games.get(game_id)
        if game is None:
            game = GameFeed(game_id, self.read, self._queue_size, self._forget)
            self._games[game_id] = game
        return game.listen()

    def listening(self) -> int:
        """Returns the number of open listeners."""
        return sum(len(game.listeners) for game in self._games.values())

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
            # A move's events are committed together and read in one page:
            # posted together, its streams are woken once for all of them.
            ready: dict[UUID, list[RecordedEvent]] = {}
            try:
                for notification in subscription:
                    self._position = notification.id
                    self._notify(notification, ready)
                    if ready and not _more_at_hand(subscription):
                        self._post_ready(ready)
            finally:  # what was decoded is posted, even if the next read failed
                self._post_ready(ready)

    def _post_ready(self, ready: dict[UUID, list[RecordedEvent]]) -> None:
        """Posts the events in ``ready`` and empties it."""
        for game_id, events in ready.items():
            self._post(game_id, tuple(events))
        ready.clear()

    def _notify(
        self, notification: Notification, ready: dict[UUID, list[RecordedEvent]]
    ) -> None:
        """Decodes a notification of a followed game into ``ready``."""
        game_id = UUID(str(notification.originator_id))
        for hook in self._watchers.get(notification.topic, ()):
            hook(game_id)
        # Read from this thread without a lock: a listener registered before its
        # stream read the store is visible here for every event committed later.
        if game_id not in self._games:
            return
        try:
            stored = self.app.mapper.to_domain_event(notification)
            recorded = unwrap(stored) if isinstance(stored, StoredEvent) else None
        except Exception as error:  # noqa: BLE001 (a stream reading it reports it)
            log.error(  # noqa: TRY400 (the traceback is logged, without messages)
                "live feed: cannot decode notification %d\n%s",
                notification.id,
                withheld_traceback(error),
            )
            return
        if recorded is not None:
            ready.setdefault(game_id, []).append(recorded)

    def _appended(self, game_id: UUID, events: Batch) -> None:
        if game_id in self._games:
            self._post(game_id, events)

    def _post(self, game_id: UUID, batch: Batch) -> None:
        if self._loop is None or self._closed:
            return
        with self._inbox_lock:
            scheduled = bool(self._inbox)
            self._inbox.setdefault(game_id, []).extend(batch)
        if not scheduled:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                self._loop.call_soon_threadsafe(self._deliver)

    def _deliver(self) -> None:
        """Offers everything posted so far to the feeds of its games."""
        with self._inbox_lock:
            inbox, self._inbox = self._inbox, {}
        for game_id, events in inbox.items():
            game = self._games.get(game_id)
            if game is not None:
                game.offer(tuple(events))

    def _forget(self, game: GameFeed) -> None:
        """Drops a game's feed once its last listener has gone."""
        if self._games.get(game.game_id) is game:
            del self._games[game.game_id]


def _more_at_hand(subscription: Subscription[ApplicationRecorder]) -> bool:
    """Tells whether the subscription holds notifications it can give at once.

    The library's LISTEN/NOTIFY subscription reads them in pages; one that
    does not say so is taken to have none, so each is posted as it comes.
    """
    page = getattr(subscription, "_notifications", None)
    index = getattr(subscription, "_notifications_index", None)
    return isinstance(page, Sequence) and isinstance(index, int) and index < len(page)
