"""Stored snapshots: equal to the fold they cache, ignored when unreadable."""

from __future__ import annotations

import base64
import logging
import pickle
import random
from collections.abc import Callable
from dataclasses import replace
from itertools import islice
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from domain.games.registry import GAMES
from services import snapshots
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp
from services.kept import CHECKPOINT_EVERY, KeptGames
from services.records import fold
from services.request_ids import RequestIds
from services.snapshots import (
    Snapshot,
    Snapshots,
    encode,
    fold_stream,
    ids_stream,
)
from tests.helpers import SEED
from tests.long_games import long_game
from tests.playing import sent_move

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


def played(app: GamesApp, game_type: str, commands: int, seed: int = 1) -> UUID:
    """Plays random legal moves, most identified, some taken back at once."""
    rules = GAMES[game_type]
    rnd = random.Random(seed)
    created = app.create_game(
        CreateGame(game_type, rules.config_type(), 0, "P0", SEED, "c")
    )
    assert not isinstance(created, Rejected)
    game_id = created.record.game_id
    tokens = [created.token]
    for seat in range(1, rules.min_players):
        joined = app.join_game(JoinGame(game_id, f"P{seat}"))
        assert not isinstance(joined, Rejected)
        tokens.append(joined.token)
    started = app.start_game(SeatRequest(game_id, Call(tokens[0])))
    assert isinstance(started, Applied)
    record = started.record
    for number in range(commands):
        seats = rules.to_move(record.table.game)
        if record.table.status is TableStatus.FINISHED or not seats:
            break
        options = list(islice(rules.legal_moves(record.table.game, seats[0]), 12))
        request = f"move-{number}" if number % 5 else ""
        result = app.submit_move(
            SubmitMove(
                game_id,
                sent_move(rnd.choice(options)),
                Call(tokens[seats[0]], request, "h"),
            )
        )
        assert isinstance(result, Applied), result
        record = result.record
        if rnd.random() < 0.2:
            undone = app.undo_move(
                SeatRequest(game_id, Call(tokens[seats[0]], f"undo-{number}"))
            )
            record = undone.record if isinstance(undone, Applied) else record
    return game_id


def stored_of(app: GamesApp) -> Snapshots:
    """Returns the snapshots an application stores."""
    assert app.snapshots is not None
    return Snapshots(app.snapshots)


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_every_stored_snapshot_equals_the_fold_of_its_revisions(game_type: str) -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = played(app, game_type, commands=150)
    events = app.recorded_events(game_id)
    assert len(events) >= CHECKPOINT_EVERY
    stored = stored_of(app)
    for revision in range(CHECKPOINT_EVERY, len(events) + 1, CHECKPOINT_EVERY):
        snapshot = stored.read(game_id, revision + CHECKPOINT_EVERY - 1)
        assert snapshot is not None
        assert snapshot.revision == revision
        assert snapshot == fold(game_id, events[:revision])


def test_a_store_that_keeps_nothing_loads_from_the_newest_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = long_game(app, 450)
    events = app.recorded_events(game_id)
    app.kept = KeptGames(snapshots=app.kept.snapshots)
    read: list[int | None] = []
    stored_events = app._stored_events

    def spied(game: UUID, *, gt: int | None = None, lte: int | None = None) -> Any:
        read.append(gt)
        return stored_events(game, gt=gt, lte=lte)

    monkeypatch.setattr(app, "_stored_events", spied)
    assert app.get_game(game_id) == fold(game_id, events)
    middle = len(events) // 2
    app.kept = KeptGames(snapshots=app.kept.snapshots)
    assert app.get_game(game_id, revision=middle) == fold(game_id, events[:middle])
    newest = len(events) // CHECKPOINT_EVERY * CHECKPOINT_EVERY
    assert read == [newest, middle // CHECKPOINT_EVERY * CHECKPOINT_EVERY]


def test_a_store_that_keeps_nothing_answers_any_revision_like_a_fold() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = long_game(app, 250)
    events = app.recorded_events(game_id)
    last = len(events)
    for revision in (1, 99, 100, 101, 199, 200, last - 1, last, last + 50):
        app.kept = KeptGames(snapshots=app.kept.snapshots)
        expected = fold(game_id, events[:revision])
        assert app.get_game(game_id, revision=revision) == expected
    assert app.get_game(uuid4(), revision=5) is None


def copied(
    app: GamesApp, game_id: UUID, change: Callable[[Snapshot], Snapshot | None]
) -> Snapshots:
    """Returns a new snapshot store holding a game's rows, changed or dropped."""
    store = app.factory.event_store(
        mapper=app.mapper, recorder=app.factory.aggregate_recorder("snapshots")
    )
    assert app.snapshots is not None
    for stream in (fold_stream(game_id), ids_stream(game_id)):
        for row in app.snapshots.get(stream):
            assert isinstance(row, Snapshot)
            changed = change(row)
            if changed is not None:
                store.put([changed])
    return Snapshots(store)


class _Forged:
    def __reduce__(self) -> tuple[Any, ...]:
        return (print, ("a forged snapshot ran code",))


@pytest.mark.parametrize(
    "state",
    [
        "not base64!",
        base64.b64encode(b"not a pickle").decode(),
        base64.b64encode(pickle.dumps(_Forged())).decode(),
        base64.b64encode(pickle.dumps({"game": "someone else's"})).decode(),
    ],
    ids=["not-base64", "not-a-pickle", "forged-code", "wrong-shape"],
)
def test_an_unreadable_snapshot_is_ignored_and_the_game_folds_from_its_events(
    state: str, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = long_game(app, 250)
    events = app.recorded_events(game_id)
    fold_rows = fold_stream(game_id)

    def corrupt(row: Snapshot) -> Snapshot:
        return replace(row, state=state) if row.originator_id == fold_rows else row

    app.kept = KeptGames(snapshots=copied(app, game_id, corrupt))
    with caplog.at_level(logging.WARNING, "services.snapshots"):
        assert app.get_game(game_id) == fold(game_id, events)
    assert "ignored" in caplog.text
    assert "forged" not in capsys.readouterr().out


def test_a_snapshot_missing_request_ids_is_ignored() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = long_game(app, 250)
    ids_rows = ids_stream(game_id)

    def drop_ids(row: Snapshot) -> Snapshot | None:
        return None if row.originator_id == ids_rows else row

    assert copied(app, game_id, lambda row: row).read(game_id) is not None
    assert copied(app, game_id, drop_ids).read(game_id) is None


def test_a_fold_without_request_ids_is_stored_in_one_row() -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = long_game(app, 250)
    record = app.get_game(game_id, revision=2 * CHECKPOINT_EVERY)
    assert record is not None
    bare = replace(record, requests=RequestIds())
    rows = encode(bare)
    assert [row.originator_id for row in rows] == [fold_stream(game_id)]
    store = app.factory.event_store(
        mapper=app.mapper, recorder=app.factory.aggregate_recorder("snapshots")
    )
    store.put(rows)
    assert Snapshots(store).read(game_id) == bare


def test_snapshots_of_other_code_are_never_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    monkeypatch.setattr(snapshots, "KEY", "tabletop-snapshot/0/older-code")
    game_id = long_game(app, 250)
    assert app.snapshots is not None
    assert Snapshots(app.snapshots).read(game_id) is not None
    monkeypatch.undo()
    assert Snapshots(app.snapshots).read(game_id) is None


def test_a_failed_snapshot_write_never_fails_the_move(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    store = app.snapshots
    assert store is not None

    def broken(*args: Any, **kwargs: Any) -> Any:
        msg = "the snapshot table is gone"
        raise RuntimeError(msg)

    monkeypatch.setattr(store, "put", broken)
    with caplog.at_level(logging.WARNING, "services.snapshots"):
        game_id = long_game(app, 250)
    record = app.get_game(game_id)
    assert record is not None
    assert record.revision >= CHECKPOINT_EVERY
    assert "not stored" in caplog.text


def test_folding_moves_of_other_processes_stores_no_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = GamesApp(POPO, allow_client_seed=True)
    game_id = long_game(app, 250)
    events = app.recorded_events(game_id)
    written: list[int] = []
    stored = stored_of(app)
    monkeypatch.setattr(
        stored, "write", lambda records: written.extend(r.revision for r in records)
    )
    kept = KeptGames(snapshots=stored)
    kept.advance(None, game_id, events[:50], store=False)
    kept.advance(kept.latest(game_id), game_id, events[50:], store=False)
    assert written == []
    kept.advance(None, game_id, events)
    assert written == list(range(CHECKPOINT_EVERY, len(events) + 1, CHECKPOINT_EVERY))
