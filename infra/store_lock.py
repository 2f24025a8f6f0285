"""One server process per SQLite file: an exclusive lock on a file beside it.

SQLite lets a second process open the same database, and a second ``tabletop
serve`` on it would serve without seeing the first one's moves on its live
feed and race it for every revision. The server therefore takes an exclusive,
non-blocking ``flock`` on ``<database>.lock`` before the application opens the
database, and holds it until it stops (or the process ends: the kernel drops
the lock of a process that died, so a crash never leaves the file locked). The
lock file keeps the holder's pid, for the refusal's message.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from infra.databases import sqlite_path
from infra.settings import SettingsError


class StoreInUseError(SettingsError):
    """Another server process holds the SQLite database this one was given."""


class StoreLock:
    """The held lock of one SQLite database; ``release`` lets it go."""

    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path  # the lock file
        self._descriptor: int | None = descriptor

    def release(self) -> None:
        """Unlocks the database (closing the file drops the lock)."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


def lock_store(database: str) -> StoreLock | None:
    """Returns the held lock of a SQLite database; None for other stores.

    Raises ``StoreInUseError`` when another process holds it.
    """
    database_path = sqlite_path(database)
    if database_path is None:
        return None  # PostgreSQL is shared by design; memory: by nobody
    path = database_path.with_name(f"{database_path.name}.lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        msg = f"cannot use database {database_path}: cannot open {path}: {error}"
        raise SettingsError(msg) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(descriptor)
        os.close(descriptor)
        server = "another tabletop server" + (f" (pid {holder})" if holder else "")
        msg = (
            f"cannot use database {database_path}: {server} is using it (it "
            f"holds {path}). Stop that server first, or give this one another "
            "--database"
        )
        raise StoreInUseError(msg) from None
    except OSError:
        os.close(descriptor)
        raise
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    return StoreLock(path, descriptor)


def _holder(descriptor: int) -> int | None:
    """Returns the pid the lock file names, or None if it names none yet."""
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(descriptor, 32, 0).decode("ascii").strip())
    return None
