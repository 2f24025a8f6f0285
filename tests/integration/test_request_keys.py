"""Request ids are stored as keys, and games stored with raw ids keep working.

Games stored before request keys hold the raw id in every envelope (version 1).
They are written here as the earlier code wrote them, straight into the store,
then read through the application of today.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import Any

from domain.games.qwirkle import QwirkleConfig
from services.audit import export_game
from services.calls import CreateGame, JoinGame
from services.games import GamesApp, Seated
from services.records import StoredEvent, wrap
from services.request_ids import request_key
from services.signing import SigningKey
from services.tokens import game_id_for, seat_token

SEED = bytes(range(32))
CREATE_ID = "legacy-create-6b1e0f5e"
JOIN_ID = "legacy-join-2f4c9d11"


def _seated(result: Seated | Any) -> Seated:
    assert isinstance(result, Seated), result
    return result


def _store_as_version_1(app: GamesApp, game_id: uuid.UUID, raw: dict[str, str]) -> None:
    """Copies a game from a scratch store into ``app``'s, as version 1 wrote it."""
    scratch = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    scratch.allow_client_seed = True
    _seated(
        scratch.create_game(
            CreateGame("qwirkle", QwirkleConfig(), 2, "Ana", SEED, CREATE_ID)
        )
    )
    _seated(scratch.join_game(JoinGame(game_id, "Ben", JOIN_ID)))
    stored = []
    for item in scratch.recorded_events(game_id):
        envelope = wrap(
            game_id,
            item.revision,
            item.event,
            timestamp=item.timestamp,
            actor=item.actor,
            move_number=item.move_number,
            request_key=raw.get(item.request_key, ""),  # the raw id, as v1 stored
            request_hash=item.request_hash,
            command=item.command,
        )
        mapped = app.mapper.to_stored_event(envelope)
        state = json.loads(mapped.state)
        del state["class_version"]  # version 1 wrote none
        stored.append(replace(mapped, state=json.dumps(state).encode()))
    app.recorder.insert_events(stored)


def test_a_game_stored_with_raw_ids_keeps_its_retries_and_exports_only_keys(
    open_app: GamesApp,
) -> None:
    game_id = game_id_for(CREATE_ID)
    raw = {request_key(CREATE_ID): CREATE_ID, request_key(JOIN_ID): JOIN_ID}
    _store_as_version_1(open_app, game_id, raw)
    stored_rows = open_app.recorder.select_events(game_id)
    assert any(CREATE_ID.encode() in row.state for row in stored_rows)

    record = open_app.get_game(game_id)
    assert record is not None
    assert set(record.requests) == set(raw)

    retried = _seated(open_app.join_game(JoinGame(game_id, "Ben", JOIN_ID)))
    assert retried.seat == 1
    assert retried.token == seat_token(SEED.hex(), game_id, 1, JOIN_ID)
    assert retried.record.revision == record.revision  # nothing new stored
    again = _seated(
        open_app.create_game(
            CreateGame("qwirkle", QwirkleConfig(), 2, "Ana", SEED, CREATE_ID)
        )
    )
    assert (again.record.game_id, again.seat) == (game_id, 0)
    assert again.token == seat_token(SEED.hex(), game_id, 0, CREATE_ID)

    records = export_game(open_app, game_id, SigningKey.generate())
    assert isinstance(records, str)
    assert CREATE_ID not in records
    assert JOIN_ID not in records
    exported = {json.loads(line).get("request_id") for line in records.splitlines()}
    assert {request_key(CREATE_ID), request_key(JOIN_ID)} <= exported


def test_a_new_envelope_stores_the_key_not_the_id(open_app: GamesApp) -> None:
    seated = _seated(
        open_app.create_game(
            CreateGame("qwirkle", QwirkleConfig(), 2, "Ana", SEED, CREATE_ID)
        )
    )
    rows = open_app.recorder.select_events(seated.record.game_id)
    assert rows
    for row in rows:
        assert CREATE_ID.encode() not in row.state
        state = json.loads(row.state)
        assert state["request_id"] == request_key(CREATE_ID)
        assert state["class_version"] == StoredEvent.class_version
