"""Small helpers for tests that play games through the use cases."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from services.games import GamesApp
from services.records import GameRecord

TABLE_WAIT = timedelta(hours=1)  # how long a table waits for players in tests


class Clock:
    """A clock the test moves by hand (for undo deadlines and turn timers)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Moves the clock forward."""
        self.now += timedelta(seconds=seconds)


class TickingClock:
    """A clock that moves one second each time it is read, from a fixed time."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def always(command: Any) -> Callable[[GameRecord, int], Any]:
    """Returns a ``command_for`` that submits ``command`` whatever the seat."""

    def command_for(record: GameRecord, seat: int) -> Any:
        del record, seat
        return command

    return command_for


def make_app(
    clock: Clock,
    table_wait: timedelta | None = TABLE_WAIT,
    database: Path | None = None,
) -> GamesApp:
    """Returns an application on the in-memory store, or on a SQLite file."""
    env = (
        {"PERSISTENCE_MODULE": "eventsourcing.popo"}
        if database is None
        else {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(database),
        }
    )
    return GamesApp(env, allow_client_seed=True, clock=clock, table_wait=table_wait)
