"""Small helpers for tests that play games through the use cases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from domain.games.registry import GAMES
from services.calls import SentMove
from services.games import GamesApp

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


def sent_move(command: Any) -> SentMove:
    """Returns ``command`` as a request sends it: a move of the game it belongs to.

    The use case gives it the caller's seat.
    """
    game_type = next(
        name
        for name, rules in GAMES.items()
        if type(command) in rules.commands.values()
    )
    return SentMove(game_type, command)


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
