"""Kept folds: the latest of recent games, and checkpoints for past revisions."""

from __future__ import annotations

import random
from uuid import UUID

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from domain.games.qwirkle import QwirkleConfig
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp
from services.kept import CHECKPOINT_EVERY, KeptGames
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
    kept = KeptGames(size=2)
    for game_id in games[:2]:
        kept.advance(None, game_id, app.recorded_events(game_id))
    assert kept.latest(games[0]) is not None  # now the most recently used
    kept.advance(None, games[2], app.recorded_events(games[2]))
    assert kept.latest(games[1]) is None
    assert kept.checkpoint(games[1], 10_000) is None
    assert kept.latest(games[0]) is not None
    assert kept.latest(games[2]) is not None
