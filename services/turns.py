"""Turn timers: the clock that times out turns, and the bot's move it plays.

A table with a turn time limit stores ``TurnTimerStarted`` whenever its game
changes (``domain.common.turn_timer``). ``TurnClock`` learns those deadlines
from the event store's notification log, which every server process writes,
so it also sees the games other processes moved and, when it starts, the
timers already running (it reads the log's timer notifications once, from the
start; games that finished meanwhile are dropped). When a deadline passes it
asks the store to time the turn out for that deadline: if the timer was set
again since (a move made in time, the same timeout fired by another process)
the timeout is stale and dropped; proposals and declined takebacks leave the
timer as it is, so they do not stop it. While a deadline stays passed (several
seats were late) the clock times the next seat out at the next tick.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from heapq import heappop, heappush
from typing import TYPE_CHECKING
from uuid import UUID

from eventsourcing.persistence import InterfaceError, Notification, OperationalError

from domain.common.decision import Rejected
from domain.common.table_state import TurnTimerStarted
from services.log_clock import LogClock
from services.tracebacks import withheld_traceback

if TYPE_CHECKING:
    from services.games import GamesApp
    from services.store import Applied

log = logging.getLogger(__name__)

TIMER_TOPIC = "table.TurnTimerStarted"
FINISHED_TOPIC = "table.GameFinished"


@dataclass(frozen=True, slots=True, order=True)
class _Timer:
    deadline: datetime
    revision: int
    game_id: UUID


class TurnClock(LogClock):
    """Times out the turns whose deadline passed; call ``tick`` every second or so.

    While the store is down a tick raises the store's error and keeps the
    timers due.
    """

    TOPICS = (TIMER_TOPIC, FINISHED_TOPIC)
    NAME = "turn clock"

    def __init__(
        self, app: GamesApp, now: Callable[[], datetime] | None = None
    ) -> None:
        super().__init__(app, now)
        self._timers: list[_Timer] = []
        # game id -> the revision of its latest timer; older ones are dropped.
        self._latest: dict[UUID, int] = {}

    def tick(self) -> list[Applied]:
        """Reads new timers, times out those due; returns the timeouts applied."""
        with self._lock:
            self._read()
            applied = []
            due = self._due()
            for index, timer in enumerate(due):
                try:
                    result = self._fire(timer)
                except (OperationalError, InterfaceError):
                    # The store is down: these wait for the next tick.
                    for waiting in due[index:]:
                        self._add(waiting)
                    raise
                if result is not None:
                    applied.append(result)
            return applied

    def _fire(self, timer: _Timer) -> Applied | None:
        """Times one turn out; returns the timeout, None if there was none."""
        try:
            result = self.app.time_out(timer.game_id, timer.deadline)
        except (OperationalError, InterfaceError):
            raise
        except Exception as error:  # noqa: BLE001 (a bug: this game's timer is lost)
            log.error(  # noqa: TRY400 (the traceback is logged, without messages)
                "timeout of game %s failed\n%s",
                timer.game_id,
                withheld_traceback(error),
            )
            return None
        if isinstance(result, Rejected):
            log.debug("timeout of %s dropped: %s", timer.game_id, result.reason)
            if result.reason == "TURN_NOT_EXPIRED":  # another process's clock
                self._add(timer)
            return None
        log.info("turn timed out in game %s: the bot moved", timer.game_id)
        record = result.record
        deadline = record.table.turn_deadline
        if deadline is not None:  # a new timer, or the same one for the next seat
            self._add(_Timer(deadline, record.revision, timer.game_id))
        return result

    def pending(self) -> int:
        """Returns how many games have a timer running."""
        with self._lock:
            return len(self._latest)

    def _learn(self, notification: Notification) -> None:
        game_id = UUID(str(notification.originator_id))
        if notification.topic == FINISHED_TOPIC:
            self._latest.pop(game_id, None)  # its timers lapse
            return
        recorded = self._decoded(notification)
        if recorded is not None and isinstance(recorded.event, TurnTimerStarted):
            self._add(_Timer(recorded.event.deadline, recorded.revision, game_id))

    def _add(self, timer: _Timer) -> None:
        if self._latest.get(timer.game_id, 0) >= timer.revision:
            return
        self._latest[timer.game_id] = timer.revision
        heappush(self._timers, timer)

    def _due(self) -> list[_Timer]:
        now = self._now()
        due = []
        while self._timers and self._timers[0].deadline <= now:
            timer = heappop(self._timers)
            if self._latest.get(timer.game_id) == timer.revision:
                del self._latest[timer.game_id]
                due.append(timer)
        return due
