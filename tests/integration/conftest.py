"""Fixtures: the games application on each real store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from infra.event_store import create_app
from infra.settings import Settings
from services.games import GamesApp
from tests.pg import fresh_schema


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Yields the URL of an empty store of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/games.sqlite3"
    else:
        with fresh_schema() as url:
            yield url


@pytest.fixture
def open_app(database: str) -> Iterator[GamesApp]:
    """Yields a development-mode application on the store; closes it afterwards."""
    app = create_app(Settings(database=database, dev_mode=True))
    yield app
    app.close()


@pytest.fixture
def process(database: str) -> Iterator[Callable[[], GamesApp]]:
    """Yields a maker of applications on the store: each one a server process."""
    apps: list[GamesApp] = []

    def start() -> GamesApp:
        apps.append(create_app(Settings(database=database, dev_mode=True)))
        return apps[-1]

    yield start
    for app in apps:
        app.close()
