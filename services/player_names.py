"""The names of signed-in players at their tables, as views show them.

A signed-in player's seat stores no name: the account's display name, sealed
under the player's key, is shown instead, and a deleted player is shown as
``deleted player N`` (N: the seat, counted from 1). Views are built on every
call, so names are kept in memory for ``TTL``; a rename or a deletion this
process stores forgets its entry at once, and one another process stores as
soon as this process's live feed reads it from the log (``forget``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from uuid import UUID

TTL = 60.0  # seconds a name is shown without being read again
MAX_KEPT = 10_000  # names kept in memory at most
# The stored topics that change what ``name`` shows.
CHANGES = ("player.PlayerRenamed", "player.PlayerDeleted")

Lookup = Callable[[UUID], "str | None"]


def deleted_name(seat: int) -> str:
    """Returns what a deleted player's seat is shown as."""
    return f"deleted player {seat + 1}"


class PlayerNames:
    """Display names of accounts by id, read through ``lookup`` and kept a while."""

    def __init__(
        self,
        lookup: Lookup | None = None,
        *,
        ttl: float = TTL,
        max_kept: int = MAX_KEPT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lookup: Lookup = lookup or (lambda _: None)
        self._ttl = ttl
        self._max_kept = max_kept
        self._clock = clock
        # Account id (as seats store it) -> (when read, its name or None).
        self._kept: OrderedDict[str, tuple[float, str | None]] = OrderedDict()
        self._lock = threading.Lock()

    def seat_name(self, display_name: str, player_id: str, seat: int) -> str:
        """Returns the name a seat is shown under: the guest's own, the
        account's, or that its player was deleted."""
        if not player_id:
            return display_name
        return self._named(player_id) or deleted_name(seat)

    def name(self, player: UUID) -> str | None:
        """Returns the account's display name, None if deleted or unknown."""
        return self._named(str(player))

    def _named(self, player_id: str) -> str | None:
        """Returns an account's name by its id as stored, kept for ``TTL``."""
        now = self._clock()
        with self._lock:
            kept = self._kept.get(player_id)
            if kept is not None and now - kept[0] < self._ttl:
                self._kept.move_to_end(player_id)
                return kept[1]
        try:
            found = self.lookup(UUID(player_id))
        except ValueError:
            found = None
        with self._lock:
            self._kept[player_id] = (now, found)
            self._kept.move_to_end(player_id)
            while len(self._kept) > self._max_kept:
                self._kept.popitem(last=False)
        return found

    def forget(self, player: UUID) -> None:
        """Drops what is kept of an account (renamed or deleted)."""
        with self._lock:
            self._kept.pop(str(player), None)


# The names every view of this process shows; the server gives it its lookup.
NAMES = PlayerNames()
