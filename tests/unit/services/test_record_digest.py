"""Test vectors of the record digest (docs/audit.md, ``## Test vectors``).

A small Qwirkle game is played deterministically to its end: a fixed seed, a
fixed clock and fixed request ids. Its digests are recomputed here from the
definition alone (hashlib, hmac and json over the exported lines and over the
stored payloads, not through ``services.record_digest``) and must equal the
digests the server shows, those in the export and the vectors in the docs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.common.table import GameFinished, TableStatus
from domain.games.qwirkle import (
    Color,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    Tile,
)
from services.audit import export_game
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp, Seated
from services.request_ids import request_key
from services.signing import SigningKey
from tests.playing import TickingClock, sent_move

SEED = bytes(range(32))
DOC = Path(__file__).parents[3] / "docs" / "audit.md"

# The digests of the game below at revisions 1, 2 and its last, 13.
VECTORS = {
    1: "f6f64abcbd6b6b40a12ec56ea8bca3f0d963ed567f437c9c0ad9a7b03741b17e",
    2: "8f2c2c87d1394033776dbaf5d0adbfe517ad3cb767632bec46f19276170857c5",
    13: "5f154670601e833439e2c0c74fdd1bee34e2cf3dea5d8a5dcc3655fe0fc11a46",
}

# Seat 0 starts with this seed; it lays three blue tiles of its rack in a row.
FIRST_MOVE = PlaceTiles(
    0,
    (
        Placement(Tile(Color.BLUE, Shape.STARBURST), 0, 0),
        Placement(Tile(Color.BLUE, Shape.CRISSCROSS), 1, 0),
        Placement(Tile(Color.BLUE, Shape.DIAMOND), 2, 0),
    ),
)


@dataclass(frozen=True)
class Game:
    app: GamesApp
    game_id: UUID


def play() -> Game:
    """Plays the game of the test vectors: one move, then both seats resign."""
    app = GamesApp(
        {"PERSISTENCE_MODULE": "eventsourcing.popo"},
        allow_client_seed=True,
        clock=TickingClock(),
    )
    created = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), 2, "Ana", SEED, request_id="create-1")
    )
    assert isinstance(created, Seated)
    game_id = created.record.game_id
    joined = app.join_game(JoinGame(game_id, "Ben", request_id="join-1"))
    assert isinstance(joined, Seated)
    tokens = [created.token, joined.token]
    steps = [
        app.start_game(SeatRequest(game_id, Call(tokens[0], request_key("start-1")))),
        app.submit_move(
            SubmitMove(
                game_id, sent_move(FIRST_MOVE), Call(tokens[0], request_key("move-1"))
            )
        ),
        app.resign(SeatRequest(game_id, Call(tokens[0], request_key("resign-0")))),
        app.resign(SeatRequest(game_id, Call(tokens[1], request_key("resign-1")))),
    ]
    for step in steps:
        assert isinstance(step, Applied), step
    record = app.get_game(game_id)
    assert record is not None
    assert record.table.status is TableStatus.FINISHED
    return Game(app, game_id)


@pytest.fixture(scope="module")
def game() -> Game:
    return play()


# --- The definition, computed directly ---


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def _key(seed_hex: str) -> bytes:
    return hmac.new(
        bytes.fromhex(seed_hex), b"tabletop/record-digest/v1", hashlib.sha256
    ).digest()


def digests_of(seed_hex: str, game: str, entries: list[dict[str, Any]]) -> list[str]:
    """Returns the digest at each entry's revision, from the definition."""
    key = _key(seed_hex)
    previous = _mac(key, f"tabletop-record/v1\n{game}")
    found = []
    for entry in entries:
        previous = _mac(key, f"{previous}\n{_canonical(entry)}")
        found.append(previous)
    return found


def stored_entries(game: Game) -> list[dict[str, Any]]:
    """Returns each revision's entry, built by hand from what the store holds."""
    entries = []
    for item in game.app.recorded_events(game.game_id):
        assert item.payload is not None
        entries.append(
            {
                "revision": item.revision,
                "time": item.timestamp.isoformat(),
                "actor": item.actor,
                "move_number": item.move_number,
                "request_id": item.request_key,
                "type": item.payload["_type"],
                "event": item.payload,
                "command": item.stored_command,
            }
        )
    return entries


def exported_lines(game: Game) -> list[dict[str, Any]]:
    text = export_game(game.app, game.game_id, SigningKey.generate())
    assert isinstance(text, str)
    return [json.loads(line) for line in text.splitlines()]


def revealed_seed(game: Game) -> str:
    (finished,) = (
        item.event
        for item in game.app.recorded_events(game.game_id)
        if isinstance(item.event, GameFinished)
    )
    return finished.seed


def documented_vectors() -> dict[int, str]:
    """Returns the ``revision N: <hex>`` lines of the docs' test vectors."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("\n## Test vectors")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    pattern = re.compile(r"^revision (\d+): ([0-9a-f]{64})$", re.MULTILINE)
    return {int(revision): digest for revision, digest in pattern.findall(section)}


# --- The vectors ---


def test_the_game_finishes_and_reveals_its_seed(game: Game) -> None:
    assert revealed_seed(game) == SEED.hex()
    assert max(VECTORS) == len(stored_entries(game))


def test_digests_recomputed_from_the_stored_entries_match_the_server(
    game: Game,
) -> None:
    entries = stored_entries(game)
    digests = digests_of(revealed_seed(game), f"games/{game.game_id}", entries)
    for revision, digest in enumerate(digests, start=1):
        record = game.app.get_game(game.game_id, revision=revision)
        assert record is not None
        assert record.revision == revision
        assert record.digest == digest, revision
    shown = [item.digest for item in game.app.recorded_events(game.game_id)]
    assert shown == digests


def test_digests_recomputed_from_the_export_match_its_lines(game: Game) -> None:
    header, *body, trailer = exported_lines(game)
    assert header["finished"] is True
    entries = [
        {k: v for k, v in line.items() if k not in ("digest", "signature")}
        for line in body
    ]
    assert entries == stored_entries(game)
    digests = digests_of(trailer["seed"], header["game"], entries)
    assert [line["digest"] for line in body] == digests
    assert trailer["chain"] == digests[-1]


def test_the_vectors(game: Game) -> None:
    digests = digests_of(
        revealed_seed(game), f"games/{game.game_id}", stored_entries(game)
    )
    assert {revision: digests[revision - 1] for revision in VECTORS} == VECTORS


def test_the_documented_vectors() -> None:
    assert documented_vectors() == VECTORS


def test_a_changed_byte_in_any_entry_changes_the_digest(game: Game) -> None:
    """Every byte of every entry counts, at its revision and at the last."""
    entries = stored_entries(game)
    key = _key(revealed_seed(game))
    digests = digests_of(revealed_seed(game), f"games/{game.game_id}", entries)
    previous = [_mac(key, f"tabletop-record/v1\ngames/{game.game_id}"), *digests]
    for index, entry in enumerate(entries):
        text = _canonical(entry).encode("utf-8")
        start = f"{previous[index]}\n".encode()
        for at in range(len(text)):
            changed = text[:at] + bytes([text[at] ^ 0x01]) + text[at + 1 :]
            digest = hmac.new(key, start + changed, hashlib.sha256).hexdigest()
            assert digest != digests[index], (entry["revision"], at)
            if at == 0:  # and the change carries to the last revision
                for later in entries[index + 1 :]:
                    digest = _mac(key, f"{digest}\n{_canonical(later)}")
                assert digest != digests[-1]
