"""A clock that learns what to do from the event store's notification log.

Every server process writes the same log, so a clock that reads it sees what
other processes stored too and, when it starts, what was stored before (it
reads its topics once from the start). The turn clock (``services/turns.py``)
and the table clock (``services/table_clock.py``) are two. ``Ticker`` is their
loop of ticks, which the players' projection (``services/projection.py``)
shares.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from eventsourcing.persistence import InterfaceError, Notification, OperationalError

from services.records import RecordedEvent, StoredEvent, unwrap
from services.tracebacks import withheld_traceback

if TYPE_CHECKING:
    from services.games import GamesApp

log = logging.getLogger(__name__)

PAGE = 500  # notifications read at a time


class Ticker(ABC):
    """Does its work on worker threads every ``period``, and at once when woken.

    While the store is down a tick raises the store's error and is tried again
    at the next one; any other error is a bug, logged, and the ticks go on.
    """

    NAME: ClassVar[str] = "clock"  # in log lines

    def __init__(self) -> None:
        self._wake: Callable[[], None] = lambda: None

    @abstractmethod
    def tick(self) -> object:
        """Does what is due."""

    def wake(self) -> None:
        """Ticks as soon as it can (from any thread)."""
        self._wake()

    async def run(self, period: float) -> None:
        """Ticks every ``period`` seconds, and at once when woken, until
        cancelled; on worker threads. A tick that finds the store down is
        tried again at the next one."""
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop has stopped
                loop.call_soon_threadsafe(woken.set)

        self._wake = wake
        while True:
            # Not wait_for: on Python 3.11 it loses a cancel that arrives just
            # after the wake-up (gh-86296), and the server's stop would hang.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(period):
                    await woken.wait()
            woken.clear()
            try:
                await asyncio.to_thread(self.tick)
            except (OperationalError, InterfaceError):
                log.debug("%s: the store is unavailable", self.NAME)
            except Exception as error:  # noqa: BLE001 (a bug: logged, the clock goes on)
                log.error(  # noqa: TRY400 (the traceback is logged, without messages)
                    "%s failed\n%s", self.NAME, withheld_traceback(error)
                )


class LogClock(Ticker):
    """Reads its topics of the log, then acts; ``tick`` every second or so.

    Thread-safe: ``tick`` runs on a worker thread, one at a time (subclasses
    hold ``_lock`` while they tick).
    """

    TOPICS: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self, app: GamesApp, now: Callable[[], datetime] | None = None
    ) -> None:
        super().__init__()
        self.app = app
        self._now = now or app.clock
        self._position = 0  # the last notification read
        self._lock = threading.Lock()

    @abstractmethod
    def _learn(self, notification: Notification) -> None:
        """Takes in one notification of the clock's topics."""

    def _topics(self) -> tuple[str, ...]:
        """Returns the topics to read now."""
        return self.TOPICS

    def _read(self) -> None:
        """Reads the notifications of the clock's topics stored since the last read.

        The position then moves to the newest notification, of the topics or
        not, so a tick reads only what was stored since the last one
        (notification ids follow commit order: nothing stored later gets a
        smaller one).
        """
        newest = self.app.recorder.max_notification_id() or 0
        while self._position < newest:
            notifications = self.app.recorder.select_notifications(
                start=self._position,
                limit=PAGE,
                stop=newest,
                topics=list(self._topics()),
                inclusive_of_start=False,
            )
            for notification in notifications:
                self._position = notification.id
                self._learn(notification)
            if len(notifications) < PAGE:
                self._position = newest

    def _decoded(self, notification: Notification) -> RecordedEvent | None:
        """Returns a notification's event, None (logged) if it cannot be read."""
        try:
            stored = self.app.mapper.to_domain_event(notification)
            return unwrap(stored) if isinstance(stored, StoredEvent) else None
        except Exception as error:  # noqa: BLE001 (one bad row must not stop a clock)
            log.error(  # noqa: TRY400 (the traceback is logged, without messages)
                "%s: cannot decode notification %d\n%s",
                self.NAME,
                notification.id,
                withheld_traceback(error),
            )
            return None
