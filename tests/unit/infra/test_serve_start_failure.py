"""A server whose start fails lets its SQLite file go: another may start on it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from infra.server import serve
from infra.settings import Settings
from infra.store_lock import lock_store
from services.signing import KeyFileError


def test_a_start_refused_for_its_key_leaves_the_database_free(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path}/games.sqlite3"
    settings = Settings(
        listen="127.0.0.1:0",
        database=database,
        signing_key_file=str(tmp_path / "gone.pem"),  # removed since it was checked
    )
    with pytest.raises(KeyFileError):
        asyncio.run(serve(settings))
    again = lock_store(database)
    assert again is not None
    again.release()
