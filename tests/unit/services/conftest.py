"""Fixtures shared by the use-case tests: a hand-moved clock and an app on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services.games import GamesApp
from tests.playing import Clock, make_app


@pytest.fixture
def clock() -> Clock:
    """Returns a hand-moved clock."""
    return Clock()


@pytest.fixture
def clocked_app(clock: Clock) -> GamesApp:
    """Returns an application on the in-memory store with the test's clock."""
    return GamesApp(
        {"PERSISTENCE_MODULE": "eventsourcing.popo"},
        allow_client_seed=True,
        clock=clock,
    )


@pytest.fixture
def processes(clock: Clock, tmp_path: Path) -> Iterator[tuple[GamesApp, GamesApp]]:
    """Returns two applications on one SQLite file: two server processes."""
    database = tmp_path / "games.sqlite3"
    first = make_app(clock, database=database)
    second = make_app(clock, database=database)
    yield first, second
    first.close()
    second.close()
