"""Folds of recently used games kept in memory: the latest, and checkpoints.

The database stays the only source of truth: a kept fold is only ever advanced
by events read from it, and a game's stored history never changes (an undo
appends), so the fold at a revision is a fact that can be kept for good.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from uuid import UUID

from services.records import GameRecord, RecordedEvent, advance

KEPT_GAMES = 1_000  # games kept, the least recently used dropped first
CHECKPOINT_EVERY = 100  # revisions between two kept folds of one game


class KeptGames:
    """The latest fold and every ``CHECKPOINT_EVERY``-th fold of recent games."""

    def __init__(self, size: int = KEPT_GAMES) -> None:
        self.size = size
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

    def checkpoint(self, game_id: UUID, revision: int) -> GameRecord | None:
        """Returns the kept fold nearest below or at ``revision``, if any."""
        with self._lock:
            kept = self._checkpoints.get(game_id, {})
            below = [r for r in kept if r <= revision]
            return kept[max(below)] if below else None

    def advance(
        self, record: GameRecord | None, game_id: UUID, items: Iterable[RecordedEvent]
    ) -> GameRecord | None:
        """Returns ``record`` after ``items``, keeping the result and checkpoints."""
        passed: list[GameRecord] = []
        for item in items:
            record = advance(record, game_id, item)
            if record.revision % CHECKPOINT_EVERY == 0:
                passed.append(record)
        if record is not None:
            self._keep(record, passed)
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
