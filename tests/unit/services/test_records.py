"""The storage envelope of events and the fold that loads a game."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.utils import get_topic, resolve_topic

from domain.common import table as tables
from domain.games.qwirkle import RULES, TilesDealt, TurnPassed
from domain.games.registry import GAMES
from services.games import GamesApp
from services.records import (
    CODEC,
    EVENT_NAMES,
    NO_ACTOR,
    RecordedEvent,
    StoredEvent,
    envelope_type,
    fold,
    unwrap,
    wrap,
)
from services.request_ids import request_key
from tests.helpers import fold_table, play_to_end, started_table

GAME_ID = UUID("12345678-1234-5678-1234-567812345678")
T0 = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


def recorded_game(events: list[Any]) -> list[RecordedEvent]:
    """Returns the events as stored and read back, with made-up actors and moves."""
    return [
        unwrap(
            wrap(
                GAME_ID,
                revision,
                event,
                timestamp=T0 + timedelta(seconds=revision),
                actor=None if revision > 2 else 0,
                move_number=revision // 2,
                request_key=f"key-{revision}",
            )
        )
        for revision, event in enumerate(events, start=1)
    ]


def test_wrap_puts_the_encoded_event_in_an_envelope_named_by_its_stable_name() -> None:
    envelope = wrap(
        GAME_ID,
        3,
        TurnPassed(1),
        timestamp=T0,
        actor=1,
        move_number=7,
        request_key="k-1",
    )
    assert type(envelope) is envelope_type("qwirkle.TurnPassed")
    assert isinstance(envelope, StoredEvent)
    assert envelope.originator_id == GAME_ID
    assert envelope.originator_version == 3
    assert envelope.payload == CODEC.encode(TurnPassed(1))
    assert (envelope.actor, envelope.move_number, envelope.request_id) == (1, 7, "k-1")


def test_unwrap_returns_what_wrap_stored() -> None:
    event = tables.GameFinished((3, 9), (1,), "ab" * 32)
    envelope = wrap(
        GAME_ID, 40, event, timestamp=T0, actor=1, move_number=19, request_key="k"
    )
    assert unwrap(envelope) == RecordedEvent(
        revision=40,
        move_number=19,
        actor=1,
        timestamp=T0,
        request_key="k",
        event=event,
        payload=CODEC.encode(event),
    )


def test_no_actor_is_stored_as_the_system_and_read_back_as_none() -> None:
    envelope = wrap(
        GAME_ID,
        1,
        TurnPassed(0),
        timestamp=T0,
        actor=None,
        move_number=0,
        request_key="",
    )
    assert envelope.actor == NO_ACTOR
    assert unwrap(envelope).actor is None


def test_seat_0_is_an_actor_not_the_system() -> None:
    envelope = wrap(
        GAME_ID, 1, TurnPassed(0), timestamp=T0, actor=0, move_number=1, request_key=""
    )
    assert unwrap(envelope).actor == 0


def test_wrap_refuses_an_event_without_a_stable_name() -> None:
    with pytest.raises(TypeError, match="no stable name"):
        wrap(
            GAME_ID,
            1,
            object(),
            timestamp=T0,
            actor=None,
            move_number=0,
            request_key="",
        )


def test_an_envelope_survives_the_stores_mapper() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    _, events = started_table(2)
    for revision, event in enumerate(events, start=1):
        envelope = wrap(
            GAME_ID,
            revision,
            event,
            timestamp=T0,
            actor=0,
            move_number=0,
            request_key="k",
        )
        stored = app.mapper.to_stored_event(envelope)
        assert stored.topic == CODEC.name_of(event)
        assert app.mapper.to_domain_event(stored) == envelope


def test_an_envelope_stored_before_request_keys_is_read_with_the_key() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    envelope = wrap(
        GAME_ID, 3, TurnPassed(1), timestamp=T0, actor=1, move_number=2, request_key=""
    )
    stored = app.mapper.to_stored_event(envelope)
    state = json.loads(stored.state)
    assert state.pop("class_version") == 3  # what version 1 did not write
    del state["digest"]  # nor this, which version 3 added
    state["request_id"] = "raw-id-1"
    legacy = replace(stored, state=json.dumps(state).encode())
    read = app.mapper.to_domain_event(legacy)
    assert isinstance(read, StoredEvent)
    assert read.request_id == request_key("raw-id-1")
    assert unwrap(read).request_key == request_key("raw-id-1")
    assert read.digest == ""  # a fold computes it


def test_an_envelope_of_version_2_is_read_without_a_digest() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    envelope = wrap(
        GAME_ID, 3, TurnPassed(1), timestamp=T0, actor=1, move_number=2, request_key="k"
    )
    state = json.loads(app.mapper.to_stored_event(envelope).state)
    state["class_version"] = 2
    del state["digest"]
    stored = replace(
        app.mapper.to_stored_event(envelope), state=json.dumps(state).encode()
    )
    read = app.mapper.to_domain_event(stored)
    assert isinstance(read, StoredEvent)
    assert (read.request_id, read.digest) == ("k", "")


def test_a_request_key_does_not_show_its_id() -> None:
    key = request_key("4c2e9a3e-0b1d-4f59-9d55-c7a6f2f53b11")
    assert len(key) == 64
    assert "4c2e9a3e" not in key
    assert request_key("") == ""


def test_fold_of_no_events_is_none() -> None:
    assert fold(GAME_ID, []) is None
    assert fold(uuid4(), iter(())) is None


def test_fold_of_recorded_events_gives_the_table_folded_from_the_events() -> None:
    table, events = started_table(3)
    table, played, _ = play_to_end(table)
    events += played
    record = fold(GAME_ID, recorded_game(events))
    assert record is not None
    assert record.table == table == fold_table(events)
    assert record.rules is RULES
    assert record.game_id == GAME_ID
    assert record.revision == len(events)
    assert record.move_count == len(events) // 2
    assert record.created_at == T0 + timedelta(seconds=1)
    assert record.updated_at == T0 + timedelta(seconds=len(events))


def test_fold_of_a_prefix_gives_the_game_at_that_revision() -> None:
    _, events = started_table(2)
    recorded = recorded_game(events)
    record = fold(GAME_ID, recorded[:2])
    assert record is not None
    assert record.revision == 2
    assert record.table.status is tables.TableStatus.WAITING_FOR_PLAYERS
    assert len(record.table.seats) == 1


def test_fold_refuses_a_game_that_does_not_start_with_game_created() -> None:
    _, events = started_table(2)
    recorded = recorded_game(events)
    dealt = next(r for r in recorded if isinstance(r.event, TilesDealt))
    with pytest.raises(ValueError, match="GameCreated"):
        fold(GAME_ID, [dealt])


@pytest.mark.parametrize("name", EVENT_NAMES)
def test_the_topic_of_an_envelope_class_is_the_events_stable_name(name: str) -> None:
    cls = envelope_type(name)
    assert name == cls.TOPIC
    assert get_topic(cls) == name
    assert resolve_topic(name) is cls


def test_every_stored_event_has_an_envelope() -> None:
    games = {name for rules in GAMES.values() for name in rules.events}
    assert RULES.events.keys() <= games
    assert set(EVENT_NAMES) == {*tables.TABLE_EVENTS, *games}


def test_envelope_type_returns_one_class_per_name() -> None:
    assert envelope_type("qwirkle.TilesPlaced") is envelope_type("qwirkle.TilesPlaced")
    assert envelope_type("qwirkle.TilesPlaced") is not envelope_type(
        "table.GameCreated"
    )
