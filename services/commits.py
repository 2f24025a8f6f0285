"""Group commit: the appends of concurrent commands share one transaction.

Every append to the event store takes the table lock that keeps notification
ids in commit order, then waits for its commit to reach the disk. Committed one
by one, moves queue for that lock and pay one flush each, which caps a process
far below what the database can take. Here the first command to arrive writes
alone; the commands that arrive while it writes queue up, and the next of them
writes them all in one transaction: one lock, one flush. Nobody waits for a
timer, so a lone move is as fast as before, and under load each transaction
carries every move that arrived during the previous one.

Nothing is weakened. A command returns only once its own events are committed
(or with the error that stopped them). A batch holds at most one append per
game, so the appends of two racing commands on one game never share a
transaction; when a batch is refused because one of its appends lost a race
(``IntegrityError``), each append is written again on its own, so only the
loser is refused and re-decides. The transaction is all or nothing, and the
library still gives the batch's events consecutive notification ids, so the
feed stays gap-free and ordered.

A batch that fails because the database went away (the library has already
retried it for about 12 s) fails the appends queued behind it as well, at
once: written, they would each wait as long again before failing the same
way, and their clients are better told to retry now. Any other failure is the
batch's own; the queue is written as usual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError

MAX_BATCH_EVENTS = 1_000  # events per transaction, so that one stays short

Write = Callable[[Sequence[Any]], object]


@dataclass(eq=False)
class _Append:
    """One command's events, waiting to be committed."""

    game_id: UUID
    events: tuple[Any, ...]
    done: bool = False
    written: bool = False
    error: BaseException | None = None


class GroupCommit:
    """Commits the appends of concurrent threads in shared transactions."""

    def __init__(self, write: Write, max_events: int = MAX_BATCH_EVENTS) -> None:
        self._write = write
        self._max_events = max_events
        self._queue: list[_Append] = []
        self._writing = False
        self._changed = threading.Condition()
        self.transactions = 0  # how many were written, for benchmarks and tests
        self.appends = 0
        # Transactions in a row that failed because the store did (a full disk,
        # an outage); the store watch (infra/store_watch.py) reads it and
        # clears it once its own probe could write again.
        self.failing_writes = 0

    def commit(self, game_id: UUID, events: Sequence[Any]) -> None:
        """Returns once ``events`` are committed; raises what stopped them.

        Raises ``IntegrityError`` when another append took one of their
        revisions first, as a lone write would.
        """
        mine = _Append(game_id, tuple(events))
        with self._changed:
            self._queue.append(mine)
            while not mine.done:
                if self._writing:
                    self._changed.wait()
                    continue
                self._writing = True
                batch = self._take()
                self._changed.release()
                written = False
                failure: BaseException | None = None
                try:
                    failure = self._commit(batch)
                    written = True
                finally:
                    self._changed.acquire()
                    self._writing = False
                    if failure is not None:
                        batch += self._queue
                        self._queue = []
                    for append in batch:
                        if append.written:
                            append.done = True
                            continue
                        if not written and append.error is None:
                            append.error = InterruptedError("the commit was cut short")
                        if failure is not None and append.error is None:
                            append.error = failure
                        append.done = True
                    self._changed.notify_all()
        if mine.error is not None:
            raise mine.error

    def _take(self) -> list[_Append]:
        """Takes the next batch from the queue: one append per game, in order."""
        batch: list[_Append] = []
        games: set[UUID] = set()
        events = 0
        for append in self._queue:
            if append.game_id in games:
                continue
            if batch and events + len(append.events) > self._max_events:
                break
            batch.append(append)
            games.add(append.game_id)
            events += len(append.events)
        taken = {id(append) for append in batch}
        self._queue = [a for a in self._queue if id(a) not in taken]
        return batch

    def _commit(self, batch: list[_Append]) -> BaseException | None:
        """Writes a batch in one transaction; alone each, if one lost a race.

        Returns the error of a batch that failed because the store went away,
        which the appends not written yet (queued behind it too) get as well.
        """
        self.transactions += 1
        self.appends += len(batch)
        try:
            self._write([event for append in batch for event in append.events])
        except IntegrityError as error:
            if len(batch) == 1:
                batch[0].error = error
                return None
            for append in batch:
                failure = self._commit([append])
                if failure is not None:
                    return failure
            return None
        except (OperationalError, InterfaceError) as error:
            self.failing_writes += 1
            return error
        except Exception as error:  # noqa: BLE001 (each command of it gets it)
            for append in batch:
                append.error = error
            return None
        self.failing_writes = 0
        for append in batch:
            append.written = True
        return None
