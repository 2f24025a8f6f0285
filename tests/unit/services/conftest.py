"""Fixtures shared by the use-case tests: a hand-moved clock and an app on it."""

from __future__ import annotations

import pytest

from services.games import GamesApp
from tests.playing import Clock


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
