"""One game's live feed, shared by every stream that follows the game.

The feed folds each new event of a game once, into one ``Entry`` holding the
event and the game after it, and keeps the latest entries in one log. Streams
read that log from their own place (a ``Listener``), so a move watched by 1,000
spectators costs one fold, and each entry caches what it is sent as per kind of
viewer: the first spectator to need a message builds it and the others send the
same one. Per stream there remains only being woken and sending.

The log holds consecutive revisions. Events may reach the feed late, twice or
around a gap (a notification not decoded, a batch before the first stream read
the game): each is folded once, in revision order, and a gap is read from the
store. A stream that falls more than the log's length behind is closed
(``SlowConsumerError``) rather than buffered for without bound.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Self, TypeAlias
from uuid import UUID

from services.records import GameRecord, RecordedEvent, advance

Batch: TypeAlias = tuple[RecordedEvent, ...]
# Reads a game's stored events after a revision (the feed does it in a thread).
Read: TypeAlias = Callable[[UUID, int], Awaitable[list[RecordedEvent]]]


class FeedError(Exception):
    """Why a listener can give no more events."""


class SlowConsumerError(FeedError):
    """The stream fell too far behind; its client should resume where it was."""


class FeedClosedError(FeedError):
    """The server is shutting down."""


@dataclass(eq=False, slots=True)
class Entry:
    """One event of a game, the game after it, and what it is sent as.

    ``sent_as`` is filled by the streams (key: what was built and for whom) so
    that streams of the same kind of viewer share one built message.
    """

    item: RecordedEvent
    record: GameRecord
    sent_as: dict[Hashable, object] = field(default_factory=dict)

    @property
    def revision(self) -> int:
        """Returns the revision of the entry's event."""
        return self.item.revision


class Listener:
    """One open stream's place in its game's feed: the entries after ``last``."""

    def __init__(self, feed: GameFeed) -> None:
        self.last = 0  # the last revision returned (or read by the stream itself)
        # The game at ``last``: what a read of a gap by this stream folds onto.
        self.record: GameRecord | None = None
        self._feed = feed
        self._waiter: asyncio.Future[None] | None = None
        # Ends an idle wait; kept from one wait to the next (see ``_sleep``).
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0  # when ``_timer`` fires
        self._error: Exception | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()

    @property
    def started(self) -> bool:
        """Tells whether the stream has read the game and taken its place."""
        return self.record is not None

    def start(self, record: GameRecord) -> None:
        """Takes its place after the game as its stream read it."""
        self.record = record
        self.last = record.revision
        self._feed.seed(record)

    def close(self) -> None:
        """Stops listening; the game's feed forgets this listener."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._feed.forget(self)

    def fail(self, error: Exception) -> None:
        """Ends the listener: ``next()`` raises ``error`` from now on."""
        self._error = error
        self.wake()
        self.close()

    def wake(self) -> None:
        """Ends a wait in ``next()``: there may be new entries, or an error."""
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def next(self, idle_seconds: float) -> tuple[Entry, ...]:
        """Returns the next entries after ``last``, gap-free; () after idle_seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + idle_seconds
        while True:
            if self._error is not None:
                raise self._error
            entries = self._feed.after(self.last)
            if entries is None:  # the stream's read is older than the log
                entries = await self._read_gap()
            if entries:
                self.last = entries[-1].revision
                self.record = entries[-1].record
                return entries
            if deadline <= loop.time():
                return ()
            await self._sleep(loop, deadline)

    async def _sleep(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        """Waits until woken, or until ``deadline`` at the latest.

        The timer outlives the wait: a stream woken by each move would otherwise
        arm and cancel a timer per move. Deadlines only move later, so a timer
        kept from an earlier wait fires early at worst, and ``next`` then waits
        again, arming it anew.
        """
        if self._timer is None or self._timer_at > deadline:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(deadline, self._ring)
            self._timer_at = deadline
        self._waiter = waiter = loop.create_future()
        try:
            await waiter
        finally:
            self._waiter = None

    def _ring(self) -> None:
        self._timer = None
        self.wake()

    async def _read_gap(self) -> tuple[Entry, ...]:
        """Returns this stream's own entries for events the shared log no longer has.

        Happens only when another stream started the game's feed from a later
        read than this stream's; these entries are not shared.
        """
        record = self.record
        entries: list[Entry] = []
        for item in await self._feed.read(self._feed.game_id, self.last):
            record = advance(record, self._feed.game_id, item)
            entries.append(Entry(item, record))
        return tuple(entries)


class GameFeed:
    """One game's fold, its latest entries and the listeners reading them."""

    def __init__(
        self, game_id: UUID, read: Read, size: int, forget: Callable[[GameFeed], None]
    ) -> None:
        self.game_id = game_id
        self.read = read
        self.listeners: set[Listener] = set()
        self._size = size  # entries kept, and how far behind a listener may fall
        self._forget = forget
        self._record: GameRecord | None = None  # the game at the log's head
        self._log: deque[Entry] = deque(maxlen=size)
        self._pending: dict[int, RecordedEvent] = {}  # arrived before their turn
        self._reading: asyncio.Task[None] | None = None

    @property
    def head(self) -> int:
        """Returns the latest revision folded (0 before the first stream read)."""
        return self._record.revision if self._record is not None else 0

    def listen(self) -> Listener:
        """Returns a new listener; it takes its place once its stream has read."""
        listener = Listener(self)
        self.listeners.add(listener)
        return listener

    def forget(self, listener: Listener) -> None:
        """Drops a listener (it may already be gone); the last one ends the feed."""
        self.listeners.discard(listener)
        if not self.listeners:
            self._forget(self)

    def seed(self, record: GameRecord) -> None:
        """Starts the log after the first stream's read of the game."""
        if self._record is not None:
            return
        self._record = record
        for revision in [r for r in self._pending if r <= record.revision]:
            del self._pending[revision]
        self._advance()

    def offer(self, batch: Batch) -> None:
        """Folds newly committed events in, once each and in order, then wakes."""
        for item in batch:
            if item.revision > self.head:
                self._pending[item.revision] = item
        self._advance()

    def after(self, last: int) -> tuple[Entry, ...] | None:
        """Returns the entries after ``last``; None if the log starts later."""
        if last >= self.head:
            return ()
        first = self._log[0].revision if self._log else self.head + 1
        if last + 1 < first:
            return None
        return tuple(itertools.islice(self._log, last + 1 - first, None))

    def fail(self, error: Exception) -> None:
        """Ends every listener with ``error``."""
        for listener in list(self.listeners):
            listener.fail(error)

    def _advance(self) -> None:
        if self._record is None:
            return  # no stream has read the game yet: keep what arrives
        added = False
        while (item := self._pending.pop(self.head + 1, None)) is not None:
            try:
                record = advance(self._record, self.game_id, item)
            except Exception as error:  # noqa: BLE001 (a bug: the streams report it)
                self.fail(error)
                return
            self._record = record
            self._log.append(Entry(item, record))
            added = True
        if self._pending and self._reading is None:
            # Something is missing (or still on its way): the store has it.
            self._reading = asyncio.get_running_loop().create_task(self._fill_gap())
        if added:
            self._wake()

    def _wake(self) -> None:
        oldest = self.head - self._size  # a listener must be at least here
        for listener in list(self.listeners):
            if listener.started and listener.last < oldest:
                listener.fail(SlowConsumerError())
            else:
                listener.wake()

    async def _fill_gap(self) -> None:
        try:
            items = await self.read(self.game_id, self.head)
        except Exception as error:  # noqa: BLE001 (the streams report it)
            self._reading = None
            self.fail(error)
            return
        self._reading = None
        self.offer(tuple(items))
