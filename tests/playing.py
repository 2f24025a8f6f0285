"""Small helpers for tests that play games through the use cases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.records import GameRecord


def always(command: Any) -> Callable[[GameRecord, int], Any]:
    """Returns a ``command_for`` that submits ``command`` whatever the seat."""

    def command_for(record: GameRecord, seat: int) -> Any:
        del record, seat
        return command

    return command_for
