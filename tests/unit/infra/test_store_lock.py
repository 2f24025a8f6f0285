"""The lock that keeps a second server off a SQLite file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from infra.settings import SettingsError
from infra.store_lock import StoreInUseError, lock_store


def test_a_second_lock_on_one_file_is_refused_naming_the_holder(
    tmp_path: Path,
) -> None:
    database = f"sqlite:///{tmp_path}/games.sqlite3"
    held = lock_store(database)
    assert held is not None
    try:
        with pytest.raises(StoreInUseError) as refused:
            lock_store(database)
        message = str(refused.value)
        assert f"cannot use database {tmp_path}/games.sqlite3" in message
        assert f"(pid {os.getpid()}) is using it" in message
        assert f"{tmp_path}/games.sqlite3.lock" in message
    finally:
        held.release()
    again = lock_store(database)  # released: free to take
    assert again is not None
    again.release()


def test_a_lock_is_taken_before_the_database_exists(tmp_path: Path) -> None:
    held = lock_store(f"sqlite:///{tmp_path}/new/games.sqlite3")
    assert held is not None
    held.release()
    assert not (tmp_path / "new" / "games.sqlite3").exists()
    assert (tmp_path / "new" / "games.sqlite3.lock").read_text().strip() == str(
        os.getpid()
    )


@pytest.mark.parametrize("database", ["memory:", "postgresql://localhost/games"])
def test_shared_and_private_stores_take_no_lock(database: str) -> None:
    assert lock_store(database) is None


def test_a_lock_file_that_cannot_be_made_is_a_settings_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(SettingsError, match="cannot open"):
        lock_store(f"sqlite:///{tmp_path}/file/games.sqlite3")
