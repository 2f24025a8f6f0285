"""Stored snapshots on SQLite and PostgreSQL: a new process loads from them."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from eventsourcing.postgres import PostgresDatastore
from psycopg import sql

from infra.event_store import create_app
from infra.settings import Settings
from services.games import GamesApp
from services.kept import CHECKPOINT_EVERY
from services.records import fold
from tests.long_games import long_game

LENGTH = 450  # revisions: snapshots at 100 to 400


def written(database: str) -> tuple[UUID, int]:
    """Stores a long game with undos and identified requests; returns it."""
    writer = create_app(Settings(database=database, dev_mode=True))
    game_id = long_game(writer, LENGTH)
    revision = len(writer.recorded_events(game_id))
    writer.close()
    return game_id, revision


def reader(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[GamesApp, list[Any]]:
    """Returns a new store of the database and the ``gt`` of each event read."""
    app = create_app(Settings(database=database))
    reads: list[Any] = []
    stored_events = app._stored_events  # what a fold reads

    def spied(game: UUID, *, gt: int | None = None, lte: int | None = None) -> Any:
        reads.append(gt)
        return stored_events(game, gt=gt, lte=lte)

    monkeypatch.setattr(app, "_stored_events", spied)
    return app, reads


def test_a_new_store_loads_a_long_game_from_snapshots_equal_to_the_fold(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, revision = written(database)
    middle = revision // 2
    app, reads = reader(database, monkeypatch)
    latest = app.get_game(game_id)
    events = recorded(app, game_id)
    app.close()
    app, middle_reads = reader(database, monkeypatch)
    at_middle = app.get_game(game_id, revision=middle)
    app.close()
    assert latest is not None
    assert len(latest.requests) > LENGTH // 8  # identified requests, remembered
    assert latest == fold(game_id, events)
    assert at_middle == fold(game_id, events[:middle])
    newest = revision // CHECKPOINT_EVERY * CHECKPOINT_EVERY
    assert reads[0] == newest  # the events after the newest snapshot, no more
    assert middle_reads == [middle // CHECKPOINT_EVERY * CHECKPOINT_EVERY]


def test_a_new_store_ignores_unreadable_snapshots_and_folds_the_events(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, revision = written(database)
    middle = revision // 2
    corrupt_every_snapshot(database)
    app, reads = reader(database, monkeypatch)
    latest = app.get_game(game_id)
    at_middle = app.get_game(game_id, revision=middle)
    events = recorded(app, game_id)
    app.close()
    assert latest == fold(game_id, events)
    assert at_middle == fold(game_id, events[:middle])
    assert reads[0] is None  # folded from the first event


def recorded(app: GamesApp, game_id: UUID) -> list[Any]:
    """Returns every event of a game, read past the spy."""
    return GamesApp.recorded_events(app, game_id)


def corrupt_every_snapshot(database: str) -> None:
    """Overwrites the state of every stored snapshot row with garbage."""
    app = create_app(Settings(database=database))
    assert app.snapshots is not None
    recorder: Any = app.snapshots.recorder
    datastore = recorder.datastore
    table = sql.Identifier(recorder.events_table_name)
    with datastore.transaction(commit=True) as cursor:
        if isinstance(datastore, PostgresDatastore):
            schema = sql.Identifier(datastore.schema)
            update = sql.SQL("UPDATE {}.{} SET state = %s").format(schema, table)
            cursor.execute(update, (b"garbage",))
        else:
            name = recorder.events_table_name
            cursor.execute(f"UPDATE {name} SET state = ?", (b"garbage",))  # noqa: S608
    app.close()
