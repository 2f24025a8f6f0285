"""Folds of recently used games kept in memory: the latest, and checkpoints.

The database stays the only source of truth: a kept fold is only ever advanced
by events read from it, and a game's stored history never changes (an undo
appends), so the fold at a revision is a fact that can be kept for good. The
checkpoints are also stored as snapshots (``services/snapshots.py``), which a
process that has not seen a game yet reads instead of folding every event.

What is kept is bounded in bytes (``--keep-memory``), not in games: a finished
Qwirkle game, with a fold every 100 revisions, holds about 200 KiB, a new game
a few KiB. Each kept fold's size is estimated once, when it is kept, by a walk
over the objects it reaches (``estimate``); the latest fold, which changes with
every move, is walked again only every ``WALK_EVERY`` revisions (when it is a
checkpoint) and between two walks is counted ``GROWTH`` bytes larger per
revision. The least recently used
games are dropped, with their checkpoints, until the estimates fit the bound;
the game kept last always stays, even alone above it, so that the fold just
made is the one the next call of that game reads.
"""

from __future__ import annotations

import enum
import gc
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from uuid import UUID

from services.records import GameRecord, RecordedEvent, advance
from services.snapshots import CHECKPOINT_EVERY, Snapshots

__all__ = ["CHECKPOINT_EVERY", "KEEP_MEMORY", "KeptGames", "estimate"]

KEEP_MEMORY = 256 * 1024 * 1024  # bytes of kept folds, the least recently used dropped
# The latest fold of a game is walked again after this many revisions (at its
# checkpoints, whose walk it shares); between two walks each revision counts
# GROWTH bytes (a Qwirkle fold grows by at most about 1 KiB a revision, the
# other games' by under 650 bytes), so the estimate errs high, never low. A walk
# of a long Qwirkle game takes 1 to 2 ms: every 100 revisions it costs a move
# about 20 µs.
WALK_EVERY = CHECKPOINT_EVERY
GROWTH = 1024

# Shared by every fold, never owned by one: classes, modules, code, enum members.
_SHARED = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    enum.Enum,
)


def estimate(record: GameRecord) -> int:
    """Returns about how many bytes ``record`` holds, shared ones included.

    A walk over every object the fold reaches (through ``gc.get_referents``,
    which sees inside slots, read-only mappings and ``immutables.Map``),
    summing ``sys.getsizeof``; the game's rules and what every fold shares are
    left out. Objects a fold shares with the game's other kept folds count in
    each, so a game's estimate is above what it holds (by up to half, measured).
    """
    seen = {id(record.rules)}
    total = 0
    stack: list[object] = [record]
    referents = gc.get_referents
    while stack:
        item = stack.pop()
        key = id(item)
        if key in seen or isinstance(item, _SHARED):
            continue
        seen.add(key)
        total += sys.getsizeof(item)
        stack.extend(referents(item))
    return total


@dataclass(slots=True)
class _Kept:
    """A kept game: its latest fold (None: only checkpoints) and their sizes."""

    latest: GameRecord | None = None
    latest_bytes: int = 0
    walked: int = 0  # the revision of the latest fold last walked
    walked_bytes: int = 0  # what that walk found
    checkpoints: dict[int, GameRecord] = field(default_factory=dict)
    checkpoint_bytes: int = 0

    @property
    def size(self) -> int:
        """The estimated bytes of every fold kept for the game."""
        return self.latest_bytes + self.checkpoint_bytes


class KeptGames:
    """The latest fold and every ``CHECKPOINT_EVERY``-th fold of recent games.

    ``memory`` bounds the estimated bytes of everything kept (``estimate``).
    """

    def __init__(
        self, memory: int = KEEP_MEMORY, snapshots: Snapshots | None = None
    ) -> None:
        self.memory = memory
        self.snapshots = snapshots
        self._games: OrderedDict[UUID, _Kept] = OrderedDict()  # oldest use first
        self._bytes = 0  # the sum of the kept games' sizes
        self._lock = threading.Lock()

    @property
    def bytes(self) -> int:
        """The estimated bytes of every kept fold, checkpoints included."""
        return self._bytes

    def __len__(self) -> int:
        """The number of games with a kept fold."""
        return len(self._games)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._games

    def latest(self, game_id: UUID) -> GameRecord | None:
        """Returns the latest kept fold of a game, None if none is kept."""
        with self._lock:
            kept = self._games.get(game_id)
            if kept is None or kept.latest is None:
                return None
            self._games.move_to_end(game_id)
            return kept.latest

    def stored(self, game_id: UUID, revision: int | None = None) -> GameRecord | None:
        """Returns the newest stored snapshot at or below ``revision``, and keeps it.

        The snapshot is kept as a checkpoint only: the game's latest fold is
        kept once the events stored after it have been folded onto it.
        """
        record = self.snapshots.read(game_id, revision) if self.snapshots else None
        if record is not None:
            self._keep(game_id, None, [(record, estimate(record))])
        return record

    def checkpoint(self, game_id: UUID, revision: int) -> GameRecord | None:
        """Returns the kept or stored fold nearest below or at ``revision``."""
        with self._lock:
            kept = self._games.get(game_id)
            checkpoints = kept.checkpoints if kept is not None else {}
            below = [r for r in checkpoints if r <= revision]
            nearest = checkpoints[max(below)] if below else None
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
            self._keep(game_id, record, [(p, estimate(p)) for p in passed])
        if store and passed and self.snapshots is not None:
            self.snapshots.write(passed)
        return record

    def _keep(
        self,
        game_id: UUID,
        record: GameRecord | None,
        checkpoints: list[tuple[GameRecord, int]],
    ) -> None:
        """Keeps a game's new latest fold and checkpoints, then fits the bound.

        Walks (``estimate``) are made outside the lock: a walk of the latest
        fold made needlessly, by a call that then finds a newer one, costs only
        its time.
        """
        with self._lock:
            kept = self._games.get(game_id)
            walked = (
                kept.walked if kept is not None and kept.latest is not None else None
            )
        # The latest fold is a checkpoint every WALK_EVERY revisions: one walk.
        fresh = next((size for c, size in checkpoints if c is record), None)
        if (
            fresh is None
            and record is not None
            and (walked is None or record.revision >= walked + WALK_EVERY)
        ):
            fresh = estimate(record)
        with self._lock:
            kept = self._games.setdefault(game_id, _Kept())
            self._games.move_to_end(game_id)
            before = kept.size
            if record is not None and (
                kept.latest is None or kept.latest.revision < record.revision
            ):
                due = kept.latest is None or record.revision >= kept.walked + WALK_EVERY
                if fresh is None and due:  # rare: another call changed the game
                    fresh = estimate(record)
                if fresh is not None:
                    kept.walked, kept.walked_bytes = record.revision, fresh
                kept.latest = record
                kept.latest_bytes = (
                    kept.walked_bytes + (record.revision - kept.walked) * GROWTH
                )
            for checkpoint, size in checkpoints:
                if checkpoint.revision not in kept.checkpoints:
                    kept.checkpoints[checkpoint.revision] = checkpoint
                    kept.checkpoint_bytes += size
            self._bytes += kept.size - before
            while self._bytes > self.memory and len(self._games) > 1:
                _, dropped = self._games.popitem(last=False)
                self._bytes -= dropped.size
