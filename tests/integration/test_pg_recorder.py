"""The one-trip recorder (infra/pg_recorder.py) against a real PostgreSQL."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from uuid import UUID

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder

from domain.games.hues_and_cues import RULES, HuesAndCuesConfig
from infra import event_store
from infra.event_store import create_app
from infra.pg_recorder import OneTripRecorder
from infra.settings import Settings
from services.calls import CreateGame, JoinGame
from services.commits import GroupCommit
from services.games import GamesApp, Seated
from tests.pg import fresh_schema


@pytest.fixture
def url() -> Iterator[str]:
    with fresh_schema() as database:
        yield database


@pytest.fixture
def app(url: str) -> Iterator[GamesApp]:
    opened = create_app(Settings(database=url, dev_mode=True))
    yield opened
    opened.close()


def recorder_of(app: GamesApp) -> OneTripRecorder:
    recorder = app.recorder
    assert isinstance(recorder, OneTripRecorder)
    return recorder


def event(game: UUID, version: int, state: bytes = b"") -> StoredEvent:
    return StoredEvent(game, version, "test.Moved", state or f"{version}".encode())


def test_the_server_writes_with_the_one_trip_recorder(app: GamesApp) -> None:
    assert type(app.recorder) is OneTripRecorder
    assert recorder_of(app).events_table_name == "tabletop_events"


def test_a_batch_gets_consecutive_ids_and_reads_back_the_same(app: GamesApp) -> None:
    recorder = recorder_of(app)
    games = [uuid.uuid4() for _ in range(3)]
    state = bytes(range(256)) + b"'\\\x00"  # quotes, backslashes and NUL survive
    batch = [event(game, version, state) for game in games for version in (1, 2)]
    ids = recorder.insert_events(batch)
    assert ids == list(range(1, 7))
    assert recorder.insert_events([event(games[0], 3)]) == [7]
    for game in games:
        read = recorder.select_events(game)
        assert [(e.originator_version, e.topic) for e in read][:2] == [
            (1, "test.Moved"),
            (2, "test.Moved"),
        ]
        assert read[0].state == state
    notifications = recorder.select_notifications(start=1, limit=10)
    assert [n.id for n in notifications] == list(range(1, 8))
    assert [(n.originator_id, n.originator_version) for n in notifications[:6]] == [
        (e.originator_id, e.originator_version) for e in batch
    ]
    assert recorder.max_notification_id() == 7
    assert recorder.insert_events([]) == []


def test_a_collision_raises_integrity_error_and_stores_nothing(app: GamesApp) -> None:
    recorder = recorder_of(app)
    taken, other = uuid.uuid4(), uuid.uuid4()
    recorder.insert_events([event(taken, 1)])
    for batch in (
        [event(other, 1), event(taken, 1)],  # with a game already at that revision
        [event(other, 1), event(other, 1)],  # twice the same revision in one batch
    ):
        with pytest.raises(IntegrityError):
            recorder.insert_events(batch)
        assert recorder.select_events(other) == []
        assert [n.id for n in recorder.select_notifications(1, 10)] == [1]
    # The connection is usable again, and the ids go on in order.
    ids = recorder.insert_events([event(other, 1)])
    assert ids is not None
    assert len(ids) == 1
    assert ids[0] > 1
    assert recorder.select_events(other)[0].originator_version == 1


def test_a_game_played_through_the_application_reads_back(
    url: str, app: GamesApp
) -> None:
    config = HuesAndCuesConfig(first_cue_giver=0, free_choice_variant=True)
    created = app.create_game(CreateGame(RULES.name, config, 3, "Ana"))
    assert isinstance(created, Seated), created
    game_id = created.record.game_id
    for name in ("Ben", "Cy"):
        app.join_game(JoinGame(game_id, name))
    game = app.get_game(game_id)
    assert game is not None
    library = PostgresApplicationRecorder(
        recorder_of(app).datastore,
        events_table_name="tabletop_events",
    )
    assert library.select_events(game_id) == app.recorder.select_events(game_id)
    # A new application (another process) folds the same game from the table.
    another = create_app(Settings(database=url, dev_mode=True))
    try:
        again = another.get_game(game_id)
        assert again is not None
        assert again.revision == game.revision
        assert again == game
    finally:
        another.close()


def test_group_commit_writes_several_games_in_one_transaction(app: GamesApp) -> None:
    recorder = recorder_of(app)
    commits = GroupCommit(recorder.insert_events)
    games = [uuid.uuid4() for _ in range(8)]
    recorder.insert_events([event(games[0], 1)])
    threads = [
        threading.Thread(target=_commit_each, args=(commits, game, 2 if i == 0 else 1))
        for i, game in enumerate(games)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [n.id for n in recorder.select_notifications(1, 100)] == list(range(1, 10))
    for game in games:
        assert len(recorder.select_events(game)) == (2 if game == games[0] else 1)


def _commit_each(commits: GroupCommit, game: UUID, version: int) -> None:
    commits.commit(game, [event(game, version)])


Seen = list[tuple[int, UUID | str, int]]


def _write(app: GamesApp, batches: int, size: int, errors: list[BaseException]) -> None:
    """Appends ``batches`` batches of one move of each of ``size`` new games."""
    games = [uuid.uuid4() for _ in range(size)]
    try:
        for version in range(1, batches + 1):
            ids = app.recorder.insert_events([event(game, version) for game in games])
            assert ids is not None
            assert list(ids) == list(range(ids[0], ids[0] + size))
    except BaseException as error:  # noqa: BLE001 (reported by the test)
        errors.append(error)


PAGE = 1_000  # notifications the reader reads at a time


def _tail(
    app: GamesApp, seen: Seen, done: threading.Event, errors: list[BaseException]
) -> None:
    """Reads the log up to its newest id, as the feed does, until ``done``."""
    reader = app.recorder
    try:
        while True:
            finished = done.is_set()
            newest = reader.max_notification_id() or 0
            start = len(seen) + 1
            if newest >= start:
                got = reader.select_notifications(start, limit=PAGE, stop=newest)
                # A reader more than a page behind reads a page, then goes on.
                last = min(newest, start + PAGE - 1)
                assert [n.id for n in got] == list(range(start, last + 1))
                seen.extend((n.id, n.originator_id, n.originator_version) for n in got)
            if finished:
                return
    except BaseException as error:  # noqa: BLE001 (reported by the test)
        errors.append(error)


def test_ids_stay_gap_free_and_in_commit_order_under_concurrent_writers(
    url: str,
) -> None:
    # Two servers on the one-trip recorder and one on the library's, writing at
    # once while a reader tails the log as the feed does: whatever it has read
    # up to the newest id is complete, in order, and never changes afterwards.
    apps = [create_app(Settings(database=url)) for _ in range(2)]
    recorder_env = event_store.RECORDER_ENV
    event_store.RECORDER_ENV = {}
    try:
        apps.append(create_app(Settings(database=url)))
    finally:
        event_store.RECORDER_ENV = recorder_env
    assert type(apps[-1].recorder) is PostgresApplicationRecorder
    writers_per_app, batches, size = 4, 10, 50
    errors: list[BaseException] = []
    seen: Seen = []
    done = threading.Event()
    try:
        reader = threading.Thread(target=_tail, args=(apps[0], seen, done, errors))
        reader.start()
        writers = [
            threading.Thread(target=_write, args=(app, batches, size, errors))
            for app in apps
            for _ in range(writers_per_app)
        ]
        for thread in writers:
            thread.start()
        for thread in writers:
            thread.join()
        done.set()
        reader.join()
        assert errors == []
        total = len(apps) * writers_per_app * batches * size
        final = apps[1].recorder.select_notifications(1, limit=total + 10)
        assert [n.id for n in final] == list(range(1, total + 1))
        assert seen == [(n.id, n.originator_id, n.originator_version) for n in final]
        versions: dict[UUID | str, int] = {}
        for _, game, version in seen:
            assert version == versions.get(game, 0) + 1
            versions[game] = version
    finally:
        for app in apps:
            app.close()


def test_subscribers_are_woken_by_an_insert(app: GamesApp) -> None:
    recorder = recorder_of(app)
    got: list[int] = []
    woken = threading.Event()
    with recorder.subscribe(gt=0) as subscription:

        def listen() -> None:
            for notification in subscription:
                got.append(notification.id)
                woken.set()
                return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        time.sleep(0.3)  # the subscription waits on the channel
        recorder.insert_events([event(uuid.uuid4(), 1)])
        assert woken.wait(5)
    assert got == [1]
