"""The table clock: closes tables that waited too long, and moves for resigned seats.

Like the turn clock (``services/turns.py``) it learns what to do from the event
store's notification log (``services/log_clock.py``), so it also sees the
tables other processes opened and, when it starts, those already waiting.

- A table waits for players until the ``expires_at`` its ``GameCreated``
  recorded (a table from before tables expired: its creation time plus the
  configured wait). Then the clock closes it (``TableClosed``), unless play
  began or it closed first.
- A seat that resigned is played by the server's bot: whenever the game moves
  on (a move, a takeback, the resignation itself) and a resigned seat is to
  move, the clock plays the bot's move for it (``ResignedSeatPlayed``), at
  once when this process stored the change, else at the next tick.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from heapq import heappop, heappush
from typing import TYPE_CHECKING
from uuid import UUID

from eventsourcing.persistence import InterfaceError, Notification, OperationalError

from domain.common.decision import Rejected
from domain.common.table_state import GameCreated
from services.log_clock import LogClock
from services.records import RecordedEvent
from services.tracebacks import withheld_traceback

if TYPE_CHECKING:
    from services.games import GamesApp

log = logging.getLogger(__name__)

CREATED = "table.GameCreated"
STARTED = "table.GameStarted"
CLOSED = "table.TableClosed"
RESIGNED = "table.PlayerResigned"
FINISHED = "table.GameFinished"
# What may put a resigned seat to move.
MOVED = ("table.MovePlayed", "table.MovesUndone", RESIGNED)
# The bot's moves played in one game per tick; the rest wait for the next.
MOVES_PER_TICK = 50
# The tables closed in one tick; the rest wait for the next.
EXPIRIES_PER_TICK = 100
# When a table another process's clock closed too early for ours is tried again.
RETRY = timedelta(seconds=5)
RETRY_AFTER_ERROR = timedelta(seconds=60)
# Refusals that mean there is nothing left to do.
SETTLED = frozenset({"GAME_ALREADY_STARTED", "TABLE_CLOSED", "GAME_NOT_FOUND"})
NOTHING_TO_PLAY = frozenset(
    {"NO_RESIGNED_SEAT_TO_MOVE", "GAME_NOT_IN_PROGRESS", "GAME_NOT_FOUND"}
)


class TableClock(LogClock):
    """Expires waiting tables and plays resigned seats; ``tick`` every second.

    While the store is down a tick raises the store's error and keeps what was
    due.
    """

    TOPICS = (CREATED, STARTED, CLOSED, FINISHED, *MOVED)
    # What the first read, from the log's start, needs: not every move ever
    # made. Every game with a resigned seat is due once after it anyway.
    STARTUP_TOPICS = (CREATED, STARTED, CLOSED, FINISHED, RESIGNED)
    NAME = "table clock"

    def __init__(
        self, app: GamesApp, now: Callable[[], datetime] | None = None
    ) -> None:
        super().__init__(app, now)
        self._expiries: list[tuple[datetime, UUID]] = []
        self._waiting: dict[UUID, datetime] = {}  # tables waiting, by expiry
        self._resigned: set[UUID] = set()  # games in progress with a resigned seat
        self._due: set[UUID] = set()  # of those, the games that moved since
        self._caught_up = False  # the first read is done
        app.appended.append(self._stored)

    def tick(self) -> int:
        """Reads the log, closes expired tables, plays resigned seats.

        Returns how many events of its own it stored.
        """
        with self._lock:
            self._read()
            self._caught_up = True
            done = 0
            expired = self._expired()
            for index, game_id in enumerate(expired):
                try:
                    done += self._close(game_id)
                except (OperationalError, InterfaceError):
                    for later in expired[index + 1 :]:  # due at the next tick
                        self._schedule(later, self._now())
                    raise
            due, self._due = self._due, set()
            for index, game_id in enumerate(sorted(due)):
                try:
                    done += self._play(game_id)
                except (OperationalError, InterfaceError):
                    self._due.update(sorted(due)[index:])
                    raise
            return done

    def _topics(self) -> tuple[str, ...]:
        return self.TOPICS if self._caught_up else self.STARTUP_TOPICS

    def waiting(self) -> int:
        """Returns how many tables wait for players, as far as the clock knows."""
        with self._lock:
            return len(self._waiting)

    def _stored(self, game_id: UUID, events: tuple[RecordedEvent, ...]) -> None:
        """Wakes the clock when this process moved a game with a resigned seat."""
        del events
        if game_id in self._resigned or self._has_resigned(game_id):
            self._wake()

    def _has_resigned(self, game_id: UUID) -> bool:
        record = self.app.kept.latest(game_id)
        return record is not None and bool(record.table.resigned)

    def _close(self, game_id: UUID) -> int:
        try:
            result = self.app.expire(game_id)
        except (OperationalError, InterfaceError):
            self._schedule(game_id, self._now())
            raise
        except Exception as error:  # noqa: BLE001 (a bug: tried again later)
            log.error(  # noqa: TRY400 (the traceback is logged, without messages)
                "expiry of table %s failed\n%s", game_id, withheld_traceback(error)
            )
            self._schedule(game_id, self._now() + RETRY_AFTER_ERROR)
            return 0
        if isinstance(result, Rejected):
            if result.reason in SETTLED:  # started or closed meanwhile
                log.debug("expiry of %s dropped: %s", game_id, result.reason)
            elif result.reason == "TABLE_NOT_EXPIRED":  # another process's clock
                self._schedule(game_id, self._now() + RETRY)
            else:  # a lost race, say: tried again
                log.warning("expiry of %s refused: %s", game_id, result.reason)
                self._schedule(game_id, self._now() + RETRY)
            return 0
        log.info("table %s expired waiting for players", game_id)
        return len(result.events)

    def _schedule(self, game_id: UUID, expires_at: datetime) -> None:
        self._waiting[game_id] = expires_at
        heappush(self._expiries, (expires_at, game_id))

    def _play(self, game_id: UUID) -> int:
        played = 0
        for _ in range(MOVES_PER_TICK):
            try:
                result = self.app.play_resigned(game_id)
            except (OperationalError, InterfaceError):
                raise
            except Exception as error:  # noqa: BLE001 (a bug: this game's bot stops)
                log.error(  # noqa: TRY400 (the traceback is logged, without messages)
                    "bot move of resigned seat in game %s failed\n%s",
                    game_id,
                    withheld_traceback(error),
                )
                return played
            if isinstance(result, Rejected):
                if result.reason == "CONCURRENT_UPDATE":  # another process moved it
                    self._due.add(game_id)
                elif result.reason not in NOTHING_TO_PLAY:  # a bug: the seat stalls
                    log.warning(
                        "bot move of resigned seat in game %s refused: %s",
                        game_id,
                        result.reason,
                    )
                return played
            played += len(result.events)
        self._due.add(game_id)  # more next tick: other games get their turn
        return played

    def _expired(self) -> list[UUID]:
        now = self._now()
        due: list[UUID] = []
        while (
            self._expiries
            and self._expiries[0][0] <= now
            and len(due) < EXPIRIES_PER_TICK
        ):
            expires_at, game_id = heappop(self._expiries)
            if self._waiting.get(game_id) == expires_at:
                del self._waiting[game_id]
                due.append(game_id)
        return due

    def _learn(self, notification: Notification) -> None:
        game_id = UUID(str(notification.originator_id))
        topic = notification.topic
        if topic in (STARTED, CLOSED):
            self._waiting.pop(game_id, None)
        elif topic == FINISHED:
            self._resigned.discard(game_id)
            self._due.discard(game_id)
        elif topic == RESIGNED:
            self._resigned.add(game_id)
            self._due.add(game_id)
        elif topic in MOVED:
            if game_id in self._resigned:
                self._due.add(game_id)
        elif topic == CREATED:
            self._wait_for(game_id, notification)

    def _wait_for(self, game_id: UUID, notification: Notification) -> None:
        """Learns when a new table expires."""
        recorded = self._decoded(notification)
        if recorded is None or not isinstance(recorded.event, GameCreated):
            return
        expires_at = recorded.event.expires_at
        if expires_at is None:  # opened before tables expired
            if self.app.table_wait is None:
                return
            expires_at = recorded.timestamp + self.app.table_wait
        self._schedule(game_id, expires_at)
