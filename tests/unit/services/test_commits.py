"""Group commit: concurrent appends share transactions, and lose nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import IntegrityError, OperationalError

from services.commits import GroupCommit

Event = tuple[UUID, int]  # (game, revision)


class FakeLog:
    """A log that refuses a taken (game, revision), like the events table.

    Each write takes ``delay`` seconds, so that other threads queue meanwhile.
    """

    def __init__(self, delay: float = 0.02) -> None:
        self.delay = delay
        self.rows: list[Event] = []
        self.writes: list[list[Event]] = []
        self.failing: Exception | None = None
        self._lock = threading.Lock()

    def write(self, events: Sequence[Event]) -> None:
        time.sleep(self.delay)
        with self._lock:
            self.writes.append(list(events))
            if self.failing is not None:
                raise self.failing
            taken = set(self.rows)
            if any(event in taken for event in events) or len(set(events)) < len(
                events
            ):
                msg = "duplicate key value violates unique constraint"
                raise IntegrityError(msg)
            self.rows.extend(events)


def run_all(commit: GroupCommit, appends: list[list[Event]]) -> list[Exception | None]:
    """Commits every append from its own thread at once; returns each outcome."""
    outcomes: list[Exception | None] = [None] * len(appends)
    start = threading.Barrier(len(appends))

    def one(index: int) -> None:
        start.wait()
        try:
            commit.commit(appends[index][0][0], appends[index])
        except Exception as error:  # noqa: BLE001 (the outcome under test)
            outcomes[index] = error

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(appends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    return outcomes


def test_a_lone_append_is_written_at_once_in_its_own_transaction() -> None:
    log = FakeLog(delay=0)
    commit = GroupCommit(log.write)
    game = uuid4()
    commit.commit(game, [(game, 1), (game, 2)])
    assert log.writes == [[(game, 1), (game, 2)]]
    assert (commit.transactions, commit.appends) == (1, 1)


def test_concurrent_appends_share_transactions_and_are_all_stored_once() -> None:
    log = FakeLog()
    commit = GroupCommit(log.write)
    games = [uuid4() for _ in range(40)]
    appends = [[(game, 1), (game, 2)] for game in games]
    outcomes = run_all(commit, appends)
    assert outcomes == [None] * 40
    assert sorted(log.rows) == sorted(e for append in appends for e in append)
    assert commit.appends == 40
    assert commit.transactions < 40  # the ones that queued went together
    for write in log.writes:  # an append's events stay together, in order
        for game in {g for g, _ in write}:
            assert [r for g, r in write if g == game] == [1, 2]


def test_two_appends_of_one_game_never_share_a_transaction() -> None:
    log = FakeLog()
    commit = GroupCommit(log.write)
    game = uuid4()
    others = [[(uuid4(), 1)] for _ in range(10)]
    racing = [[(game, 5)], [(game, 5)], [(game, 5)]]
    outcomes = run_all(commit, [*others, *racing])
    assert outcomes[:10] == [None] * 10
    assert sum(outcome is None for outcome in outcomes[10:]) == 1
    assert all(isinstance(o, IntegrityError) for o in outcomes[10:] if o is not None)
    assert log.rows.count((game, 5)) == 1
    for write in log.writes:
        assert len([g for g, _ in write if g == game]) <= 1


def test_an_append_that_lost_its_race_fails_alone() -> None:
    log = FakeLog()
    game = uuid4()
    log.rows.append((game, 3))  # another process stored revision 3 first
    commit = GroupCommit(log.write)
    appends = [[(uuid4(), 1)] for _ in range(8)] + [[(game, 3)]]
    outcomes = run_all(commit, appends)
    assert outcomes[:8] == [None] * 8
    assert isinstance(outcomes[8], IntegrityError)
    assert len(log.rows) == 1 + 8


def test_a_database_error_reaches_every_append_of_the_batch() -> None:
    log = FakeLog()
    log.failing = OperationalError("the server closed the connection")
    commit = GroupCommit(log.write)
    outcomes = run_all(commit, [[(uuid4(), 1)] for _ in range(6)])
    assert all(isinstance(outcome, OperationalError) for outcome in outcomes)
    assert log.rows == []


def test_a_batch_stays_under_its_event_limit() -> None:
    log = FakeLog()
    commit = GroupCommit(log.write, max_events=4)
    appends = [[(game, 1), (game, 2)] for game in (uuid4() for _ in range(12))]
    assert run_all(commit, appends) == [None] * 12
    assert max(len(write) for write in log.writes) <= 4
    assert len(log.rows) == 24


@pytest.mark.parametrize("size", [1, 5])
def test_each_commit_returns_only_once_its_events_are_stored(size: int) -> None:
    log = FakeLog(delay=0.05)
    commit = GroupCommit(log.write)
    stored_at_return: list[bool] = []

    def one(game: UUID) -> None:
        commit.commit(game, [(game, 1)])
        stored_at_return.append((game, 1) in log.rows)

    threads = [threading.Thread(target=one, args=(uuid4(),)) for _ in range(size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert stored_at_return == [True] * size


def test_a_store_failure_fails_the_appends_queued_behind_it_without_writing_them() -> (
    None
):
    log = FakeLog(delay=0.2)  # the first write is under way while the rest queue
    log.failing = OperationalError("the server closed the connection")
    commit = GroupCommit(log.write)
    games = [uuid4() for _ in range(8)]
    outcomes = run_all(commit, [[(game, 1)] for game in games])
    assert all(isinstance(outcome, OperationalError) for outcome in outcomes)
    assert len(log.writes) == 1  # one failed write, not one per append
    assert commit.transactions == 1


class ScriptedLog:
    """A log whose writes raise what the script says, in order (None: stored)."""

    def __init__(self, script: list[Exception | None]) -> None:
        self.script = script
        self.stored: list[list[Event]] = []
        self._lock = threading.Lock()

    def write(self, events: Sequence[Event]) -> None:
        time.sleep(0.1)  # the other appends queue up meanwhile
        with self._lock:
            outcome = self.script.pop(0)
            if outcome is not None:
                raise outcome
            self.stored.append(list(events))


def test_appends_written_before_the_store_went_away_are_reported_written() -> None:
    # The first append writes alone; the three queued behind it lose a race
    # together, then are written one by one: two get in, the store goes away.
    log = ScriptedLog(
        [None, IntegrityError("race"), None, None, OperationalError("gone")]
    )
    commit = GroupCommit(log.write)
    games = [uuid4() for _ in range(4)]
    outcomes = run_all(commit, [[(game, 1)] for game in games])
    written = {events[0][0] for events in log.stored}
    assert len(written) == 3
    for game, outcome in zip(games, outcomes, strict=True):
        if game in written:
            assert outcome is None, "a stored move was reported failed"
        else:
            assert isinstance(outcome, OperationalError)


def test_a_failure_of_the_batch_itself_does_not_fail_the_queue() -> None:
    log = ScriptedLog([ValueError("cannot encode"), None])
    commit = GroupCommit(log.write)
    games = [uuid4() for _ in range(5)]
    outcomes = run_all(commit, [[(game, 1)] for game in games])
    failed = [o for o in outcomes if o is not None]
    assert len(failed) == 1
    assert isinstance(failed[0], ValueError)
    assert len(log.stored) == 1  # the queue, written together after it
    assert len(log.stored[0]) == 4
