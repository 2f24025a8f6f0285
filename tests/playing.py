"""Small helpers for tests that play games through the use cases."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from services.records import GameRecord


class Clock:
    """A clock the test moves by hand (for undo deadlines and turn timers)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Moves the clock forward."""
        self.now += timedelta(seconds=seconds)


def always(command: Any) -> Callable[[GameRecord, int], Any]:
    """Returns a ``command_for`` that submits ``command`` whatever the seat."""

    def command_for(record: GameRecord, seat: int) -> Any:
        del record, seat
        return command

    return command_for
