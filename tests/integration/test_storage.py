"""The games application on SQLite and on PostgreSQL: stored, reloaded, raced."""

from __future__ import annotations

import random
import threading
from typing import Any
from uuid import UUID

from domain.common.decision import Rejected, RejectionKind
from domain.common.table import TableStatus
from domain.games.qwirkle import QwirkleConfig
from infra.databases import persistence_env
from infra.event_store import create_app, ensure_schema
from infra.settings import Settings
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp
from services.records import EVENT_NAMES, GameRecord
from tests.playing import sent_move

SEED = bytes(range(32))


def _started_game(app: GamesApp) -> tuple[UUID, list[str]]:
    created = app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ana", SEED))
    assert not isinstance(created, Rejected)
    game_id = created.record.game_id
    joined = app.join_game(JoinGame(game_id, "Ben"))
    assert not isinstance(joined, Rejected)
    assert not isinstance(
        app.start_game(SeatRequest(game_id, Call(created.token))), Rejected
    )
    return game_id, [created.token, joined.token]


def _play(app: GamesApp, game_id: UUID, tokens: list[str], moves: int) -> GameRecord:
    chooser = random.Random(7)
    record = app.get_game(game_id)
    assert record is not None
    for _ in range(moves):
        if record.table.status is TableStatus.FINISHED:
            break
        (seat,) = record.rules.to_move(record.table.game)
        options = list(record.rules.legal_moves(record.table.game, seat))
        move = chooser.choice(options)
        result = app.submit_move(
            SubmitMove(game_id, sent_move(move), Call(tokens[seat]))
        )
        assert isinstance(result, Applied), result
        record = result.record
    return record


def test_a_game_reloaded_by_another_process_equals_the_live_one(database: str) -> None:
    writer = create_app(Settings(database=database, dev_mode=True))
    game_id, tokens = _started_game(writer)
    live = _play(writer, game_id, tokens, moves=400)
    writer.close()
    reader = create_app(Settings(database=database))
    reloaded = reader.get_game(game_id)
    reader.close()
    assert live.table.status is TableStatus.FINISHED
    assert reloaded == live


def test_stored_events_carry_stable_names_not_module_paths(open_app: GamesApp) -> None:
    game_id, tokens = _started_game(open_app)
    _play(open_app, game_id, tokens, moves=10)
    rows = open_app.recorder.select_notifications(start=None, limit=1000)
    topics = {row.topic for row in rows}
    assert topics <= set(EVENT_NAMES)
    assert {"table.GameCreated", "table.PlayerJoined", "qwirkle.TilesDealt"} <= topics
    assert all(":" not in topic and "domain" not in topic for topic in topics)


def test_revisions_are_gap_free_and_reloads_match_every_prefix(
    open_app: GamesApp,
) -> None:
    game_id, tokens = _started_game(open_app)
    record = _play(open_app, game_id, tokens, moves=6)
    recorded = open_app.recorded_events(game_id)
    assert [r.revision for r in recorded] == list(range(1, record.revision + 1))
    middle = open_app.get_game(game_id, revision=record.revision // 2)
    assert middle is not None
    assert middle.revision == record.revision // 2


class _StaleOnce(GamesApp):
    """Loads an out-of-date copy of the game once, as a racing process would."""

    stale: GameRecord | None = None

    def get_game(self, game_id: UUID, revision: int | None = None) -> GameRecord | None:
        if self.stale is not None and revision is None:
            stale, self.stale = self.stale, None
            return stale
        return super().get_game(game_id, revision)


def _race_setup(app: GamesApp) -> tuple[UUID, list[str], Any, GameRecord]:
    game_id, tokens = _started_game(app)
    record = app.get_game(game_id)
    assert record is not None
    (seat,) = record.rules.to_move(record.table.game)
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    return game_id, tokens, move, record


def test_a_lost_race_without_expected_revision_is_decided_again(database: str) -> None:
    app = _StaleOnce(_env(database), allow_client_seed=True)
    game_id, tokens, move, before = _race_setup(app)
    seat = move.seat
    assert isinstance(
        app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat]))),
        Applied,
    )
    app.stale = before  # the second writer still sees the old revision
    again = app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat])))
    # Re-decided on fresh state: the same seat is no longer to move.
    assert isinstance(again, Rejected)
    assert again.reason == "NOT_YOUR_TURN"
    after = app.get_game(game_id)
    assert after is not None
    assert after.move_count == 1
    app.close()


def test_a_lost_race_with_expected_revision_is_aborted(database: str) -> None:
    app = _StaleOnce(_env(database), allow_client_seed=True)
    game_id, tokens, move, before = _race_setup(app)
    seat = move.seat
    assert isinstance(
        app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat]))),
        Applied,
    )
    app.stale = before
    lost = app.submit_move(
        SubmitMove(
            game_id,
            sent_move(move),
            Call(tokens[seat], expected_revision=before.revision),
        )
    )
    assert isinstance(lost, Rejected)
    assert (lost.kind, lost.reason) == (RejectionKind.STALE, "CONCURRENT_UPDATE")
    current = app.get_game(game_id)
    assert current is not None
    assert lost.metadata["currentRevision"] == str(current.revision)
    app.close()


def test_two_processes_racing_for_one_revision_apply_exactly_one_move(
    database: str,
) -> None:
    first = create_app(Settings(database=database, dev_mode=True))
    second = create_app(Settings(database=database))
    game_id, tokens, move, before = _race_setup(first)
    barrier = threading.Barrier(2)
    results: list[object] = []

    def submit(app: GamesApp) -> None:
        barrier.wait()
        results.append(
            app.submit_move(
                SubmitMove(
                    game_id,
                    sent_move(move),
                    Call(tokens[move.seat], expected_revision=before.revision),
                )
            )
        )

    threads = [threading.Thread(target=submit, args=(a,)) for a in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    applied = [r for r in results if isinstance(r, Applied)]
    refused = [r for r in results if isinstance(r, Rejected)]
    assert len(applied) == 1
    assert len(refused) == 1
    assert refused[0].kind is RejectionKind.STALE
    after = second.get_game(game_id)
    assert after is not None
    assert after.move_count == 1
    assert after.revision == applied[0].record.revision
    first.close()
    second.close()


def _env(database: str) -> dict[str, str]:
    env = persistence_env(database)
    if "POSTGRES_SCHEMA" in env:
        ensure_schema(env)
    return env


def test_a_kept_game_catches_up_with_moves_stored_by_another_process(
    database: str,
) -> None:
    first = create_app(Settings(database=database, dev_mode=True))
    second = create_app(Settings(database=database, dev_mode=True))
    game_id, tokens = _started_game(first)
    early = second.get_game(game_id)  # now kept by the second process
    assert early is not None
    live = _play(first, game_id, tokens, moves=6)
    caught_up = second.get_game(game_id)
    # Moves from the second process continue from the first's latest revision.
    more = _play(second, game_id, tokens, moves=3)
    again = first.get_game(game_id)
    past = first.get_game(game_id, revision=early.revision)
    first.close()
    second.close()
    assert caught_up == live
    assert again == more
    assert past is not None
    assert past.revision == early.revision
    assert past.table == early.table


def test_games_are_stored_in_the_tabletop_tables(database: str) -> None:
    app = create_app(Settings(database=database))
    table = getattr(app.recorder, "events_table_name", "")
    app.close()
    assert type(app).name == "tabletop"
    # PostgreSQL tables are named after the application; SQLite's are not.
    expected = (
        "tabletop_events" if database.startswith("postgresql") else "stored_events"
    )
    assert table == expected


def test_moves_committed_together_are_all_stored_once_in_feed_order(
    database: str,
) -> None:
    app = create_app(Settings(database=database, dev_mode=True))
    games = [_started_game(app) for _ in range(12)]
    shared_id, shared_tokens = _started_game(app)
    start = threading.Barrier(len(games) + 3)
    played: dict[UUID, GameRecord] = {}
    raced: list[object] = []

    def play(game_id: UUID, tokens: list[str]) -> None:
        start.wait()
        played[game_id] = _play(app, game_id, tokens, moves=8)

    def race_on_shared_game() -> None:  # lost races are decided again
        start.wait()
        record = app.get_game(shared_id)
        assert record is not None
        (seat,) = record.rules.to_move(record.table.game)
        move = next(iter(record.rules.legal_moves(record.table.game, seat)))
        raced.append(
            app.submit_move(
                SubmitMove(shared_id, sent_move(move), Call(shared_tokens[seat]))
            )
        )

    threads = [threading.Thread(target=play, args=game) for game in games]
    threads += [threading.Thread(target=race_on_shared_game) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    commits = app.commits
    fresh = create_app(Settings(database=database))
    notifications = fresh.recorder.select_notifications(start=1, limit=100_000)
    reloaded = {game_id: fresh.get_game(game_id) for game_id, _ in games}
    shared = fresh.get_game(shared_id)
    app.close()
    fresh.close()
    assert commits.transactions < commits.appends  # moves did share commits
    # A refused append may use up ids, but the feed's order is the commit order.
    ids = [n.id for n in notifications]
    assert ids == sorted(set(ids))
    by_game: dict[UUID, list[int]] = {}
    for notification in notifications:
        by_game.setdefault(UUID(str(notification.originator_id)), []).append(
            notification.originator_version
        )
    for game_id, _ in games:
        record = reloaded[game_id]
        assert record is not None
        assert by_game[game_id] == list(range(1, record.revision + 1))
        assert record == played[game_id]
    assert shared is not None
    # Each applied racer's move is stored once; a racer that read the game
    # before another's move landed was decided again and refused by the rules.
    applied = [isinstance(r, Applied) for r in raced].count(True)
    assert applied >= 1
    assert shared.move_count == applied
    assert all(isinstance(r, Applied | Rejected) for r in raced)
    assert by_game[shared_id] == list(range(1, shared.revision + 1))


def test_a_move_on_a_stale_kept_game_is_decided_on_the_latest(database: str) -> None:
    first = create_app(Settings(database=database, dev_mode=True))
    second = create_app(Settings(database=database, dev_mode=True))
    game_id, tokens = _started_game(first)
    stale = second.get_game(game_id)  # kept by the second process from now on
    assert stale is not None
    latest = _play(first, game_id, tokens, moves=1)
    (seat,) = latest.rules.to_move(latest.table.game)
    move = next(iter(latest.rules.legal_moves(latest.table.game, seat)))
    # The kept game says it is the other seat's turn: the refusal is checked
    # again on the latest game, where the move is legal.
    applied = second.submit_move(
        SubmitMove(
            game_id,
            sent_move(move),
            Call(tokens[seat], expected_revision=latest.revision),
        )
    )
    assert isinstance(applied, Applied), applied
    assert applied.record.revision > latest.revision
    # Going back to the first process's stale game: its turn has passed.
    refused = first.submit_move(
        SubmitMove(game_id, sent_move(move), Call(tokens[seat]))
    )
    assert isinstance(refused, Rejected)
    assert refused.reason == "NOT_YOUR_TURN"
    assert refused.metadata["currentPlayer"] == str(1 - seat)
    third = create_app(Settings(database=database))
    reloaded = third.get_game(game_id)
    for app in (first, second, third):
        app.close()
    assert reloaded == applied.record


def test_servers_starting_together_on_a_new_database_all_start(database: str) -> None:
    start = threading.Barrier(4)
    started: list[GamesApp] = []
    failed: list[BaseException] = []

    def open_one() -> None:
        start.wait()
        try:
            started.append(create_app(Settings(database=database)))
        except Exception as error:  # noqa: BLE001 (the outcome under test)
            failed.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for app in started:
        app.close()
    assert failed == []
    assert len(started) == 4


def test_the_configured_memory_bounds_the_kept_games(database: str) -> None:
    app = create_app(Settings(database=database, keep_memory=3 * 2**20))
    try:
        assert app.kept.memory == 3 * 2**20
    finally:
        app.close()
