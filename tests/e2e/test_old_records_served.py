"""A game stored by an older release, served by a real server today.

The rows of ``tests/fixtures/records/qwirkle-9ef3adb.json`` (a finished Qwirkle
game written by commit 9ef3adb, see the README there) are inserted verbatim into
a fresh store before ``tabletop serve`` starts on it. Through gRPC the game then
shows FINISHED with its recorded scores, replays, streams and exports, and every
record digest it shows is the one computed here from the stored rows alone,
with nothing but ``hashlib``, ``hmac`` and ``json`` (docs/audit.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from tabletop.v1 import event_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.cli import main
from infra.event_store import create_app
from infra.settings import Settings
from tests.e2e.client import STREAM_DEADLINE, export, signing_key
from tests.e2e.conftest import Server, start_server
from tests.old_records import QWIRKLE_9EF3ADB, insert_rows, load_records
from tests.pg import fresh_schema

pytestmark = pytest.mark.e2e

RECORDS = load_records(QWIRKLE_9EF3ADB)
STATES: list[dict[str, Any]] = [json.loads(row["state"]) for row in RECORDS["rows"]]
NAME = f"games/{RECORDS['game_id']}"
LAST = len(STATES)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def _request_key(request_id: str) -> str:
    if not request_id:
        return ""
    label = b"tabletop/request-id/v1\x00"
    return hashlib.sha256(label + request_id.encode("utf-8")).hexdigest()


def _finished() -> dict[str, Any]:
    (finished,) = [
        s["payload"] for s in STATES if s["payload"]["_type"] == "table.GameFinished"
    ]
    assert isinstance(finished, dict)
    return finished


def _digests() -> dict[int, str]:
    """Returns the record digest of every revision, from the stored rows alone."""
    seed = bytes.fromhex(_finished()["seed"])
    key = hmac.new(seed, b"tabletop/record-digest/v1", hashlib.sha256).digest()
    previous = _mac(key, f"tabletop-record/v1\n{NAME}")
    digests = {}
    for revision, state in enumerate(STATES, 1):
        entry = {
            "revision": revision,
            "time": state["timestamp"]["_data_"],
            "actor": None if state["actor"] == -1 else state["actor"],
            "move_number": state["move_number"],
            "request_id": _request_key(state["request_id"] or ""),
            "type": state["payload"]["_type"],
            "event": state["payload"],
            "command": state["command"],
        }
        previous = _mac(key, f"{previous}\n{_canonical(entry)}")
        digests[revision] = previous
    return digests


DIGESTS = _digests()


@pytest.fixture(scope="module", params=["postgres", "sqlite"])
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """Yields the URL of a store of each kind holding only the fixture's rows."""
    with contextlib.ExitStack() as stack:
        if request.param == "postgres":
            url = stack.enter_context(fresh_schema())
        else:
            path = tmp_path_factory.mktemp("old-records") / "games.sqlite3"
            url = f"sqlite:///{path}"
        app = create_app(Settings(database=url, dev_mode=False))
        try:
            insert_rows(app.recorder, RECORDS)
        finally:
            app.close()
        yield url


@pytest.fixture(scope="module")
def server(database: str) -> Iterator[Server]:
    """Yields a server started on the store after the rows were put in."""
    running = start_server(database, dev=False, operator_token=secrets.token_hex(16))
    yield running
    assert running.stop() == 0


def test_the_digests_computed_here_cover_every_stored_row() -> None:
    """A guard on the test itself: the fixture is the old game it stands for."""
    assert RECORDS["written_by"] == "9ef3adb"
    assert sorted(DIGESTS) == list(range(1, LAST + 1))
    assert len(set(DIGESTS.values())) == LAST
    assert STATES[-1]["payload"]["_type"] == "table.GameFinished"
    # Version-1 envelopes: the raw request id is stored, not its key.
    assert all(len(s["request_id"]) == 36 for s in STATES)


def test_get_game_shows_the_old_game_finished_with_its_scores_and_digest(
    server: Server,
) -> None:
    reply = server.stub.GetGame(api.GetGameRequest(name=NAME), timeout=10)
    game = reply.game
    finished = _finished()
    assert game.state == game_pb2.GAME_STATE_FINISHED
    assert game.revision == LAST
    assert [player.score for player in game.players] == finished["scores"]
    assert list(game.winners) == [f"{NAME}/players/{s}" for s in finished["winners"]]
    assert game.seed == finished["seed"]
    assert game.record_digest == DIGESTS[LAST]
    # Showing it twice (its digests now stored) changes nothing.
    again = server.stub.GetGame(api.GetGameRequest(name=NAME), timeout=10)
    assert again.game.record_digest == DIGESTS[LAST]


@pytest.mark.parametrize("revision", [1, 2, LAST // 2, LAST])
def test_every_replayed_revision_shows_the_digest_of_the_stored_rows(
    server: Server, revision: int
) -> None:
    reply = server.stub.GetGameRevision(
        api.GetGameRevisionRequest(name=f"{NAME}/revisions/{revision}"), timeout=10
    )
    assert reply.snapshot.revision == revision
    assert reply.snapshot.record_digest == DIGESTS[revision]
    if revision == LAST:
        assert reply.snapshot.state == game_pb2.GAME_STATE_FINISHED
    else:
        assert reply.snapshot.state != game_pb2.GAME_STATE_FINISHED


@pytest.mark.parametrize("batch", [False, True], ids=["events", "batches"])
def test_the_stream_sends_every_old_event_with_its_digest_then_the_end(
    server: Server, batch: bool
) -> None:
    request = api.StreamGameRequest(name=NAME, after_revision=0, batch_events=batch)
    call = server.stub.StreamGame(request, timeout=STREAM_DEADLINE)
    items = list(call)
    assert call.code() == grpc.StatusCode.OK, call.details()
    # Every event, then the finished game as the stream's last item.
    *sent, final = items
    assert final.WhichOneof("item") == "snapshot"
    assert final.snapshot.state == game_pb2.GAME_STATE_FINISHED
    assert final.snapshot.revision == LAST
    assert final.snapshot.record_digest == DIGESTS[LAST]
    events: list[event_pb2.GameEvent] = []
    for item in sent:
        assert item.WhichOneof("item") == ("events" if batch else "event")
        if batch:
            assert 1 <= len(item.events.events) <= 100
            events.extend(item.events.events)
        else:
            events.append(item.event)
    assert [event.revision for event in events] == list(range(1, LAST + 1))
    assert {e.revision: e.record_digest for e in events} == DIGESTS


def test_the_old_game_exports_and_the_audit_command_verifies_it(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert server.operator_token is not None
    records = export(server.channel, NAME, server.operator_token)
    for state in STATES:
        assert state["request_id"] not in records  # only keys, never raw ids
    lines = [json.loads(line) for line in records.splitlines()]
    exported = {line["revision"]: line for line in lines if "digest" in line}
    assert {r: line["digest"] for r, line in exported.items()} == DIGESTS
    assert [exported[r]["event"] for r in sorted(exported)] == [
        state["payload"] for state in STATES
    ]  # as stored
    assert lines[-1]["chain"] == DIGESTS[LAST]

    path = tmp_path / "game.jsonl"
    path.write_text(records, encoding="utf-8")
    key = signing_key(server.channel).text
    command = ["audit", "verify", str(path), "--public-key", key]
    middle = LAST // 2
    receipts = [f"{LAST}:{DIGESTS[LAST]}", f"{middle}:{DIGESTS[middle]}"]
    assert main([*command, "--receipt", receipts[0], "--receipt", receipts[1]]) == 0
    output = capsys.readouterr().out
    assert "receipts:            2 of 2 matched" in output
    assert "RESULT: VERIFIED" in output
