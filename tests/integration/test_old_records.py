"""A game stored by an older release loads, replays, exports and verifies today.

``tests/fixtures/records/qwirkle-9ef3adb.json`` holds the stored rows of a
finished game exactly as commit 9ef3adb wrote them (see the README there):
envelopes of version 1, holding raw request ids and no ``class_version``, and
``table.MovePlayed`` events of schema version 1, without ``reveals``. The rows
are inserted verbatim into a fresh store of each kind and read through the
application of today (docs/events.md).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any
from uuid import UUID

import pytest
from tabletop.v1 import game_service_pb2

from domain.common import table as tables
from domain.common.decision import Rejected
from domain.common.undo import MovePlayed
from domain.games.qwirkle import QwirkleConfig
from services import record_digest
from services.api.replay import list_game_events
from services.audit import canonical, export_game, verify
from services.calls import Call, CreateGame, JoinGame, SentMove, SubmitMove
from services.codec import VERSION_KEY
from services.games import Applied, GamesApp, Seated
from services.records import CODEC
from services.request_ids import request_key
from services.signing import SigningKey
from services.tokens import seat_token
from tests.old_records import QWIRKLE_9EF3ADB as FIXTURE
from tests.old_records import insert_rows, load_records

UUID_TEXT = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
)


@pytest.fixture(scope="module")
def fixture() -> dict[str, Any]:
    """The fixture file, as written."""
    return load_records(FIXTURE)


@pytest.fixture(scope="module")
def states(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    """Each row's stored envelope, parsed, in revision order."""
    return [json.loads(row["state"]) for row in fixture["rows"]]


@pytest.fixture
def old_game(open_app: GamesApp, fixture: dict[str, Any]) -> UUID:
    """Inserts the fixture's rows verbatim into the store; yields the game's id."""
    return insert_rows(open_app.recorder, fixture)


def _payloads(states: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [s["payload"] for s in states if s["payload"]["_type"] == name]


def _raw_id(states: list[dict[str, Any]], name: str, index: int = 0) -> str:
    """Returns the raw request id of the ``index``-th event called ``name``."""
    found = [s for s in states if s["payload"]["_type"] == name]
    request_id = found[index]["request_id"]
    assert isinstance(request_id, str)
    return request_id


def _seed(states: list[dict[str, Any]]) -> str:
    (finished,) = _payloads(states, "table.GameFinished")
    seed = finished["seed"]
    assert isinstance(seed, str)
    return seed


def test_the_fixture_holds_rows_as_the_old_code_stored_them(
    fixture: dict[str, Any], states: list[dict[str, Any]]
) -> None:
    assert fixture["written_by"] == "9ef3adb"
    assert fixture["game_type"] == "qwirkle"
    versions = [row["originator_version"] for row in fixture["rows"]]
    assert versions == list(range(1, len(versions) + 1))
    assert {row["originator_id"] for row in fixture["rows"]} == {fixture["game_id"]}
    # Envelopes of version 1: no class_version, the raw request id.
    for state in states:
        assert "class_version" not in state
        assert "digest" not in state
        assert UUID_TEXT.match(state["request_id"]), state["request_id"]
    # table.MovePlayed of schema version 1: no reveal verdict.
    moves = _payloads(states, "table.MovePlayed")
    assert moves
    for move in moves:
        assert set(move) == {"_type", "seat", "undoable"}
    # Stored before private tables and table expiry.
    (created,) = _payloads(states, "table.GameCreated")
    assert "private" not in created
    assert "expires_at" not in created
    assert states[-1]["payload"]["_type"] == "table.GameFinished"


def test_every_old_event_and_command_brought_to_todays_shape_is_what_it_decodes_to(
    states: list[dict[str, Any]],
) -> None:
    """What the audit holds an exported record to (docs/events.md)."""
    for state in states:
        for stored in (state["payload"], state["command"]):
            assert CODEC.current_form(stored) == CODEC.encode(CODEC.decode(stored))


def test_an_old_game_loads_finished_with_its_recorded_scores(
    open_app: GamesApp, old_game: UUID, states: list[dict[str, Any]]
) -> None:
    record = open_app.get_game(old_game)
    assert record is not None
    assert record.revision == len(states)
    assert record.table.status is tables.TableStatus.FINISHED
    (finished,) = _payloads(states, "table.GameFinished")
    assert record.table.final is not None
    assert list(record.table.final.scores) == finished["scores"]
    assert list(record.table.final.winners) == finished["winners"]
    outcome = tables.outcome(record.table, record.rules)
    assert outcome is not None
    assert list(outcome.scores) == finished["scores"]


def test_every_old_move_reads_its_reveal_verdict_as_unknown_and_stays_as_stored(
    open_app: GamesApp, old_game: UUID, fixture: dict[str, Any]
) -> None:
    recorded = open_app.recorded_events(old_game)
    moves = [item.event for item in recorded if isinstance(item.event, MovePlayed)]
    assert len(moves) == sum(r["topic"] == "table.MovePlayed" for r in fixture["rows"])
    assert all(move.reveals is None for move in moves)
    for item in recorded:
        if isinstance(item.event, MovePlayed):
            assert item.payload is not None
            assert "reveals" not in item.payload
            assert VERSION_KEY not in item.payload
    # Reading upcast nothing in the store: every row is still byte for byte.
    stored = open_app.recorder.select_events(old_game)
    assert [row.state.decode("utf-8") for row in stored] == [
        row["state"] for row in fixture["rows"]
    ]


def test_every_revision_of_an_old_game_folds(
    open_app: GamesApp, old_game: UUID, states: list[dict[str, Any]]
) -> None:
    statuses = []
    for revision in range(1, len(states) + 1):
        record = open_app.get_game(old_game, revision=revision)
        assert record is not None
        assert record.revision == revision
        statuses.append(record.table.status)
    assert statuses[0] is tables.TableStatus.WAITING_FOR_PLAYERS
    assert tables.TableStatus.IN_PROGRESS in statuses
    assert statuses[-1] is tables.TableStatus.FINISHED


def test_retried_old_requests_get_their_first_answers_and_store_nothing(
    open_app: GamesApp, old_game: UUID, states: list[dict[str, Any]]
) -> None:
    seed = _seed(states)
    create_id = _raw_id(states, "table.GameCreated")
    join_id = _raw_id(states, "table.PlayerJoined", 1)
    revision = len(states)

    hashes = {s["request_id"]: s["request_hash"] for s in states}
    again = open_app.create_game(
        CreateGame(
            "qwirkle",
            QwirkleConfig(),
            2,
            "Ana",
            bytes.fromhex(seed),
            create_id,
            hashes[create_id],
        )
    )
    assert isinstance(again, Seated), again
    assert (again.record.game_id, again.seat) == (old_game, 0)
    assert again.token == seat_token(seed, old_game, 0, create_id)
    joined = open_app.join_game(JoinGame(old_game, "Ben", join_id, hashes[join_id]))
    assert isinstance(joined, Seated), joined
    assert joined.seat == 1
    assert joined.token == seat_token(seed, old_game, 1, join_id)

    # The last move, sent again by its seat with the same request.
    move_id = _raw_id(states, "table.MovePlayed", -1)
    seat = _payloads(states, "table.MovePlayed")[-1]["seat"]
    token = (again.token, joined.token)[seat]
    key, fingerprint = request_key(move_id), hashes[move_id]
    its_events = [r for r, s in enumerate(states, 1) if s["request_id"] == move_id]

    # A move of no game, refused if it were decided: a retry is not decided again.
    never = SentMove(None, None)
    retried = open_app.submit_move(
        SubmitMove(old_game, never, Call(token, key, fingerprint))
    )
    assert isinstance(retried, Applied), retried
    assert [e.revision for e in retried.events] == its_events
    assert retried.record.revision == revision
    assert {e.request_key for e in retried.events} == {key}
    # The same id with another request is refused, still storing nothing.
    reused = open_app.submit_move(
        SubmitMove(old_game, never, Call(token, key, "another request"))
    )
    assert isinstance(reused, Rejected), reused
    assert reused.reason == "REQUEST_ID_REUSED"
    assert len(open_app.recorder.select_events(old_game)) == revision


def _digests_of_rows(game_id: UUID, states: list[dict[str, Any]]) -> list[str]:
    """Computes the record digests from the stored rows alone (docs/audit.md)."""
    key = record_digest.record_key(_seed(states))
    previous = record_digest.genesis(key, f"games/{game_id}")
    digests = []
    for revision, state in enumerate(states, 1):
        entry = record_digest.entry(
            revision=revision,
            time=datetime.fromisoformat(state["timestamp"]["_data_"]),
            actor=None if state["actor"] == -1 else state["actor"],
            move_number=state["move_number"],
            request_key=request_key(state["request_id"]),
            event=state["payload"],
            command=state["command"],
        )
        previous = record_digest.next_digest(key, previous, entry)
        digests.append(previous)
    return digests


def test_the_digests_of_an_old_game_are_those_of_its_rows_as_stored(
    open_app: GamesApp, old_game: UUID, states: list[dict[str, Any]]
) -> None:
    expected = _digests_of_rows(old_game, states)
    recorded = open_app.recorded_events(old_game)
    assert [item.digest for item in recorded] == expected
    record = open_app.get_game(old_game)
    assert record is not None
    assert record.digest == expected[-1]
    # The same digests, and every event, as a spectator lists them.
    request = game_service_pb2.ListGameEventsRequest(
        parent=f"games/{old_game}", page_size=1000
    )
    listed = list_game_events(open_app, request, None)
    assert [event.revision for event in listed.events] == list(
        range(1, len(states) + 1)
    )
    assert [event.record_digest for event in listed.events] == expected
    assert not listed.next_page_token


def test_an_old_game_exports_and_verifies(
    open_app: GamesApp, old_game: UUID, states: list[dict[str, Any]]
) -> None:
    key = SigningKey.generate()
    text = export_game(open_app, old_game, key)
    assert isinstance(text, str), text
    for state in states:
        assert state["request_id"] not in text  # only keys, never raw ids
    lines = [json.loads(line) for line in text.splitlines()]
    exported = [line["event"] for line in lines[1:-1]]
    assert exported == [state["payload"] for state in states]  # as stored
    assert lines[-1]["chain"] == _digests_of_rows(old_game, states)[-1]
    report = verify(text, public_keys=[key.public])
    assert report.ok, report.failures
    receipt = (len(states) // 2, lines[len(states) // 2]["digest"])
    assert verify(text, public_keys=[key.public], receipts=[receipt]).ok


def test_an_old_game_started_under_another_missed_turns_rule_is_reported(
    open_app: GamesApp, old_game: UUID
) -> None:
    """Only 0, the rule of games started before one was recorded, is let pass."""
    text = export_game(open_app, old_game, SigningKey.generate())
    assert isinstance(text, str), text
    lines = [json.loads(line) for line in text.splitlines()]
    (started,) = [line for line in lines if line.get("type") == "table.GameStarted"]
    assert "missed_turns_gone" not in started["event"]
    started["event"]["missed_turns_gone"] = 1
    report = verify("".join(canonical(line) + "\n" for line in lines))
    assert any("missed_turns_gone is 3 instead of 1" in f for f in report.failures)
