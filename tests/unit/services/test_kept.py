"""Kept folds: the latest of recent games, and checkpoints for past revisions."""

from __future__ import annotations

import gc
import random
import tracemalloc
import uuid
from dataclasses import replace
from uuid import UUID

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from domain.games.qwirkle import QwirkleConfig
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp
from services.kept import CHECKPOINT_EVERY, GROWTH, WALK_EVERY, KeptGames, estimate
from services.records import RecordedEvent, fold
from tests.helpers import SEED
from tests.playing import sent_move

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


def finished_game(app: GamesApp) -> UUID:
    """Plays a two-seat Qwirkle game to its end with random legal moves."""
    created = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), 0, "Ana", seed=SEED)
    )
    assert not isinstance(created, Rejected)
    game_id = created.record.game_id
    joined = app.join_game(JoinGame(game_id, "Ben"))
    assert not isinstance(joined, Rejected)
    tokens = [created.token, joined.token]
    assert not isinstance(
        app.start_game(SeatRequest(game_id, Call(tokens[0]))), Rejected
    )
    chooser = random.Random(3)
    record = app.get_game(game_id)
    assert record is not None
    while record.table.status is not TableStatus.FINISHED:
        (seat,) = record.rules.to_move(record.table.game)
        move = chooser.choice(list(record.rules.legal_moves(record.table.game, seat)))
        result = app.submit_move(
            SubmitMove(game_id, sent_move(move), Call(tokens[seat]))
        )
        assert isinstance(result, Applied), result
        record = result.record
    return game_id


def test_past_revisions_equal_a_fold_from_the_start() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    events = app.recorded_events(game_id)
    assert len(events) > 2 * CHECKPOINT_EVERY
    for revision in (1, 99, 100, 101, 199, 200, len(events) - 1, len(events)):
        expected = fold(game_id, events[:revision])
        assert app.get_game(game_id, revision=revision) == expected


def test_a_checkpoint_is_kept_every_hundred_revisions() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    events = app.recorded_events(game_id)
    kept = KeptGames()
    latest = kept.advance(None, game_id, events)
    assert latest is not None
    assert kept.latest(game_id) == latest
    assert kept.checkpoint(game_id, CHECKPOINT_EVERY - 1) is None
    at = kept.checkpoint(game_id, 2 * CHECKPOINT_EVERY + 5)
    assert at == fold(game_id, events[: 2 * CHECKPOINT_EVERY])


def test_an_older_fold_never_replaces_a_newer_one() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    events: list[RecordedEvent] = app.recorded_events(game_id)
    kept = KeptGames()
    newer = kept.advance(None, game_id, events[:50])
    kept.advance(None, game_id, events[:10])
    assert kept.latest(game_id) == newer


def test_the_least_recently_used_game_is_dropped_with_its_checkpoints() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    games = [finished_game(app) for _ in range(3)]
    sizing = KeptGames()
    for game_id in games:
        sizing.advance(None, game_id, app.recorded_events(game_id))
    each = sizing.bytes // 3
    kept = KeptGames(memory=2 * each + each // 2)  # room for two of them
    for game_id in games[:2]:
        kept.advance(None, game_id, app.recorded_events(game_id))
    assert kept.latest(games[0]) is not None  # now the most recently used
    kept.advance(None, games[2], app.recorded_events(games[2]))
    assert kept.latest(games[1]) is None
    assert kept.checkpoint(games[1], 10_000) is None
    assert kept.latest(games[0]) is not None
    assert kept.latest(games[2]) is not None
    assert kept.bytes <= kept.memory


def test_the_bound_holds_for_games_of_every_length() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    events = app.recorded_events(game_id)
    memory = 600_000  # about three finished games
    kept = KeptGames(memory=memory)
    chooser = random.Random(5)
    for index in range(60):
        length = chooser.randrange(1, len(events) + 1)
        copy = uuid.UUID(int=index)
        kept.advance(None, copy, [unstamped(e) for e in events[:length]])
        assert kept.bytes <= memory
        assert kept.latest(copy) is not None
        assert kept.bytes == sum(game.size for game in kept._games.values())
    assert 1 < len(kept) < 60


def test_checkpoints_only_games_are_dropped_too() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    events = app.recorded_events(game_id)
    kept = KeptGames(memory=1)
    kept.advance(None, game_id, events)
    other = uuid.UUID(int=7)
    kept.advance(None, other, [unstamped(e) for e in events[:3]])
    assert game_id not in kept
    assert kept.checkpoint(game_id, 10_000) is None


def test_a_game_above_the_bound_is_kept_alone() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    small, big = finished_game(app), finished_game(app)
    kept = KeptGames(memory=1_000)  # less than any game
    kept.advance(None, small, app.recorded_events(small)[:5])
    latest = kept.advance(None, big, app.recorded_events(big))
    assert kept.latest(big) == latest
    assert kept.latest(small) is None
    assert len(kept) == 1
    assert kept.bytes > kept.memory


def test_the_latest_fold_is_walked_again_every_few_revisions() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    events = app.recorded_events(game_id)
    kept = KeptGames()
    record = None
    for item in events:
        record = kept.advance(record, game_id, [item])
        assert record is not None
        game = kept._games[game_id]
        assert record.revision - game.walked < WALK_EVERY
        behind = record.revision - game.walked
        assert game.latest_bytes == game.walked_bytes + behind * GROWTH
    assert kept.bytes == game.latest_bytes + sum(
        estimate(c) for c in game.checkpoints.values()
    )


def test_the_estimate_of_a_game_is_near_what_it_holds() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    gc.collect()
    tracemalloc.start()
    try:
        events = app.recorded_events(game_id)
        kept = KeptGames()
        kept.advance(None, game_id, events, store=False)
        del events
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held / 2 <= kept.bytes <= held * 2, (held, kept.bytes)


def test_a_fold_shares_nothing_counted_with_the_rules() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = finished_game(app)
    record = app.get_game(game_id)
    assert record is not None
    assert estimate(record) == estimate(replace(record))
    assert estimate(record) < 1_000_000


def unstamped(item: RecordedEvent) -> RecordedEvent:
    """Returns an event without its digest, to be folded into another game."""
    return replace(item, digest="")
