"""Folds of recently used games kept in memory: the latest, and checkpoints.

The database stays the only source of truth: a kept fold is only ever advanced
by events read from it, and a game's stored history never changes (an undo
appends), so the fold at a revision is a fact that can be kept for good. The
checkpoints are also stored as snapshots (``services/snapshots.py``), which a
process that has not seen a game yet reads instead of folding every event.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from uuid import UUID

from services.records import GameRecord, RecordedEvent, advance
from services.snapshots import CHECKPOINT_EVERY, Snapshots

__all__ = ["CHECKPOINT_EVERY", "KEPT_GAMES", "KeptGames"]

KEPT_GAMES = 1_000  # games kept, the least recently used dropped first


class KeptGames:
    """The latest fold and every ``CHECKPOINT_EVERY``-th fold of recent games."""

    def __init__(
        self, size: int = KEPT_GAMES, snapshots: Snapshots | None = None
    ) -> None:
        self.size = size
        self.snapshots = snapshots
        self._latest: OrderedDict[UUID, GameRecord] = OrderedDict()
        self._checkpoints: dict[UUID, dict[int, GameRecord]] = {}
        self._lock = threading.Lock()

    def latest(self, game_id: UUID) -> GameRecord | None:
        """Returns the latest kept fold of a game, None if none is kept."""
        with self._lock:
            record = self._latest.get(game_id)
            if record is not None:
                self._latest.move_to_end(game_id)
            return record

    def stored(self, game_id: UUID, revision: int | None = None) -> GameRecord | None:
        """Returns the newest stored snapshot at or below ``revision``, and keeps it.

        The snapshot is kept as a checkpoint only: the game's latest fold is
        kept once the events stored after it have been folded onto it.
        """
        record = self.snapshots.read(game_id, revision) if self.snapshots else None
        if record is not None:
            with self._lock:
                kept = self._checkpoints.setdefault(game_id, {})
                kept[record.revision] = record
        return record

    def checkpoint(self, game_id: UUID, revision: int) -> GameRecord | None:
        """Returns the kept or stored fold nearest below or at ``revision``."""
        with self._lock:
            kept = self._checkpoints.get(game_id, {})
            below = [r for r in kept if r <= revision]
            nearest = kept[max(below)] if below else None
        floor = revision - revision % CHECKPOINT_EVERY
        if floor == 0 or (nearest is not None and nearest.revision == floor):
            return nearest  # no stored snapshot is nearer
        stored = self.stored(game_id, revision)
        candidates = [r for r in (nearest, stored) if r is not None]
        return max(candidates, key=lambda r: r.revision, default=None)

    def advance(
        self,
        record: GameRecord | None,
        game_id: UUID,
        items: Iterable[RecordedEvent],
        *,
        store: bool = True,
    ) -> GameRecord | None:
        """Returns ``record`` after ``items``, keeping the result and checkpoints.

        With ``store`` the checkpoints passed are also stored as snapshots: the
        caller appended these events, or folded them because no snapshot of
        these revisions could be read. A failed write only logs.
        """
        passed: list[GameRecord] = []
        for item in items:
            record = advance(record, game_id, item)
            if record.revision % CHECKPOINT_EVERY == 0:
                passed.append(record)
        if record is not None:
            self._keep(record, passed)
        if store and passed and self.snapshots is not None:
            self.snapshots.write(passed)
        return record

    def _keep(self, record: GameRecord, passed: list[GameRecord]) -> None:
        with self._lock:
            game_id = record.game_id
            kept = self._latest.get(game_id)
            if kept is None or kept.revision < record.revision:
                self._latest[game_id] = record
            self._latest.move_to_end(game_id)
            checkpoints = self._checkpoints.setdefault(game_id, {})
            for checkpoint in passed:
                checkpoints[checkpoint.revision] = checkpoint
            while len(self._latest) > self.size:
                dropped, _ = self._latest.popitem(last=False)
                self._checkpoints.pop(dropped, None)
