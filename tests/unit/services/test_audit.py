"""The audit record: export, and an offline verification that catches tampering.

Games are played through the use cases on the in-memory store, with a takeback
by consent and an exchange; their exports must verify, and every kind of
tampering must be reported with a message that names what failed.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from domain.common.undo import UndoProposed
from domain.games.qwirkle import ExchangeTiles, PlaceTiles, QwirkleConfig
from infra.cli import main
from infra.settings import Settings, SettingsError, read_token_file
from services.audit import (
    FORMAT,
    canonical,
    export_game,
    export_records,
    genesis,
    line_hash,
    verify,
)
from services.games import Applied, Call, GamesApp, Seated
from services.records import CODEC
from tests.playing import always

SEED = bytes(range(32))
SEED_HEX = SEED.hex()


class Clock:
    """A clock the test moves by hand, one second per request."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@dataclass
class Played:
    """A game played through the use cases, and what the test needs of it."""

    app: GamesApp
    game_id: UUID
    tokens: list[str]
    # The revisions of the move that was taken back by consent.
    undone: list[int]


def _app() -> GamesApp:
    return GamesApp(
        {"PERSISTENCE_MODULE": "eventsourcing.popo"},
        allow_client_seed=True,
        clock=Clock(),
    )


def _open(app: GamesApp, players: int) -> tuple[UUID, list[str]]:
    created = app.create_game(
        "qwirkle", QwirkleConfig(), 0, "Ana", SEED, request_id="create-1"
    )
    assert isinstance(created, Seated)
    game_id, tokens = created.record.game_id, [created.token]
    for seat in range(1, players):
        joined = app.join_game(game_id, f"P{seat}", request_id=f"join-{seat}")
        assert isinstance(joined, Seated)
        tokens.append(joined.token)
    assert isinstance(app.start_game(game_id, tokens[0]), Applied)
    return game_id, tokens


def _play(app: GamesApp, game_id: UUID, tokens: list[str], move: Any) -> Applied:
    played = app.submit_move(game_id, tokens[move.seat], always(move))
    assert isinstance(played, Applied), played
    return played


def _take_back(app: GamesApp, game_id: UUID, tokens: list[str], seat: int) -> None:
    proposed = app.propose_undo(game_id, Call(tokens[seat]))
    assert isinstance(proposed, Applied), proposed
    (event,) = (e.event for e in proposed.events)
    assert isinstance(event, UndoProposed)
    for other in range(len(tokens)):
        if other != seat:
            answer = app.respond_undo(
                game_id, event.proposal_id, accept=True, call=Call(tokens[other])
            )
            assert isinstance(answer, Applied), answer


def play_game(players: int = 2, seed: int = 7, *, finish: bool = True) -> Played:
    """Plays random legal moves: a takeback by consent, an exchange, to the end."""
    app = _app()
    game_id, tokens = _open(app, players)
    chooser = random.Random(seed)
    undone: list[int] = []
    moves = 0
    while True:
        record = app.get_game(game_id)
        assert record is not None
        if record.table.status is not TableStatus.IN_PROGRESS:
            break
        if not finish and moves == 12:
            break
        (seat,) = record.rules.to_move(record.table.game)
        legal = list(record.rules.legal_moves(record.table.game, seat))
        placements = [m for m in legal if isinstance(m, PlaceTiles)]
        exchanges = [m for m in legal if isinstance(m, ExchangeTiles)]
        if moves in (2, 3) and exchanges:
            move = chooser.choice(exchanges)  # randomness beyond the deal
        else:
            move = chooser.choice(placements or legal)
        played = _play(app, game_id, tokens, move)
        moves += 1
        if moves == 1:  # drew tiles: only a takeback by consent undoes it
            undone = [e.revision for e in played.events]
            _take_back(app, game_id, tokens, seat)
    return Played(app, game_id, tokens, undone)


@pytest.fixture(scope="module")
def finished() -> Played:
    """A whole two-seat game."""
    return play_game()


@pytest.fixture(scope="module")
def record(finished: Played) -> str:
    """The export of the whole game."""
    text = export_game(finished.app, finished.game_id)
    assert isinstance(text, str)
    return text


# --- Helpers over an exported record ---


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def rechained(items: list[dict[str, Any]]) -> str:
    """Returns the record after recomputing every hash and the trailer's chain."""
    prev = genesis(items[0]["game"])
    for item in items[1:-1]:
        item["prev"] = prev
        item["hash"] = prev = line_hash(item)
    items[-1]["chain"] = prev
    return "".join(canonical(item) + "\n" for item in items)


def line_of(text: str, event_type: str, nth: int = 0) -> int:
    """Returns the index (0-based line) of the nth event line of a type."""
    found = [
        index
        for index, item in enumerate(lines_of(text))
        if item.get("type") == event_type
    ]
    return found[nth]


def failures(text: str | bytes) -> list[str]:
    report = verify(text)
    assert not report.ok
    return report.failures


def _flip(char: str) -> str:
    if char.isdigit():
        return str((int(char) + 1) % 10)
    if char.isalpha():
        return "b" if char == "a" else "a"
    return "x" if char != "x" else "y"


# --- The format ---


def test_an_exported_finished_game_verifies(finished: Played, record: str) -> None:
    report = verify(record)
    assert report.ok, report.render()
    assert not report.unchecked
    assert report.finished
    assert report.game == f"games/{finished.game_id}"
    rendered = report.render()
    assert "re-decided" in rendered
    assert rendered.rstrip().endswith("RESULT: VERIFIED")
    items = lines_of(record)
    assert items[0]["format"] == FORMAT
    assert items[-1]["seed"] == SEED_HEX
    assert {"qwirkle.TilesExchanged", "table.MovesUndone"} <= {
        item.get("type") for item in items
    }


def test_every_line_is_canonical_json_and_the_hash_rule_is_the_documented_one(
    finished: Played, record: str
) -> None:
    lines = record.splitlines()
    assert record.endswith("\n")
    items = [json.loads(line) for line in lines]
    assert all(canonical(item) == line for item, line in zip(items, lines, strict=True))
    name = f"games/{finished.game_id}"
    prev = hashlib.sha256(f"tabletop-audit/v1\n{name}".encode()).hexdigest()
    for item in items[1:-1]:
        assert item["prev"] == prev
        content = {key: value for key, value in item.items() if key != "hash"}
        text = (
            prev
            + "\n"
            + json.dumps(
                content, sort_keys=True, separators=(",", ":"), ensure_ascii=False
            )
        )
        prev = hashlib.sha256(text.encode("utf-8")).hexdigest()
        assert item["hash"] == prev
    assert items[-1] == {"chain": prev, "events": len(items) - 2, "seed": SEED_HEX}
    assert items[0]["revision"] == len(items) - 2


def test_the_undone_move_stays_in_the_record(finished: Played, record: str) -> None:
    stored = {e.revision: e for e in finished.app.recorded_events(finished.game_id)}
    items = {item["revision"]: item for item in lines_of(record)[1:-1]}
    assert finished.undone
    for revision in finished.undone:
        assert items[revision]["type"] == CODEC.name_of(stored[revision].event)
        assert items[revision]["event"] == CODEC.encode(stored[revision].event)
    undo = [item for item in items.values() if item["type"] == "table.MovesUndone"]
    assert len(undo) == 1
    assert undo[0]["revision"] > max(finished.undone)
    assert undo[0]["event"]["target_revision"] == min(finished.undone) - 1


def test_commands_are_on_the_first_line_of_each_request(record: str) -> None:
    items = lines_of(record)[1:-1]
    assert items[0]["command"]["_type"] == "table.CreateTable"
    assert items[1]["command"] is None  # the creator's PlayerJoined
    assert items[0]["actor"] == 0
    kinds = {item["command"]["_type"] for item in items if item["command"]}
    assert {"table.JoinTable", "table.StartTable", "table.PlayMove"} <= kinds
    assert {"table.ProposeTakeback", "table.AnswerTakeback"} <= kinds


# --- Tampering ---


@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95])
def test_a_changed_character_inside_an_event_is_reported(
    record: str, fraction: float
) -> None:
    lines = record.splitlines(keepends=True)
    index = line_of(record, "qwirkle.TilesExchanged")
    revision = lines_of(record)[index]["revision"]
    line = lines[index]
    start = line.index('"event":{') + len('"event":')
    end = line.index(',"hash":')
    position = start + int((end - start) * fraction)
    lines[index] = line[:position] + _flip(line[position]) + line[position + 1 :]
    found = failures("".join(lines))
    assert any(
        f"revision {revision}:" in failure or f"line {index + 1}" in failure
        for failure in found
    ), found


@pytest.mark.parametrize("offset", [3, 40, 77, 150])
def test_a_flipped_bit_in_an_event_is_reported(record: str, offset: int) -> None:
    data = bytearray(record.encode("utf-8"))
    index = line_of(record, "qwirkle.TurnScored", 2)
    line_start = sum(len(line) + 1 for line in record.encode().split(b"\n")[:index])
    position = data.index(b'"event":{', line_start) + offset
    data[position] ^= 0x01
    found = failures(bytes(data))
    assert any(f"line {index + 1}" in failure for failure in found), found


def test_a_changed_digit_breaks_the_hash_of_its_line(record: str) -> None:
    items = lines_of(record)
    index = line_of(record, "qwirkle.TurnScored", 3)
    revision = items[index]["revision"]
    lines = record.splitlines(keepends=True)
    points = items[index]["event"]["points"]
    lines[index] = lines[index].replace(
        f'"points":{points},', f'"points":{points + 1},'
    )
    found = failures("".join(lines))
    assert (
        f"revision {revision}: hash does not match its content (line {index + 1})"
        in (found)
    )


def test_a_dropped_line_is_reported(record: str) -> None:
    lines = record.splitlines(keepends=True)
    del lines[17]  # revision 17
    found = failures("".join(lines))
    assert "revision 17 is missing" in found
    assert any(
        "revision 18: prev does not match the hash of revision 16" in f for f in found
    )
    assert any("the trailer counts" in failure for failure in found)


def test_swapped_lines_are_reported(record: str) -> None:
    lines = record.splitlines(keepends=True)
    lines[17], lines[18] = lines[18], lines[17]
    found = failures("".join(lines))
    assert "revision 18 appears before 17" in found


def test_a_dropped_trailer_or_header_is_reported(record: str) -> None:
    lines = record.splitlines(keepends=True)
    assert any("the trailer is missing" in f for f in failures("".join(lines[:-1])))
    assert any("revision 1: the header" in f for f in failures("".join(lines[1:])))


def test_another_seed_in_the_trailer_is_reported(record: str) -> None:
    items = lines_of(record)
    items[-1]["seed"] = bytes(range(1, 33)).hex()
    found = failures("".join(canonical(item) + "\n" for item in items))
    assert any("the revealed seed does not match the commitment" in f for f in found)


def test_an_edited_score_is_caught_by_re_deciding_even_with_a_rebuilt_chain(
    record: str,
) -> None:
    items = lines_of(record)
    index = line_of(record, "table.GameFinished")
    revision = items[index]["revision"]
    items[index]["event"]["scores"][1] += 10
    found = failures(rechained(items))
    assert not any("hash" in failure or "chain" in failure for failure in found)
    assert any(
        failure.startswith(
            f"revision {revision}: re-deciding the recorded command gives "
            "table.GameFinished("
        )
        and "scores[1]" in failure
        for failure in found
    ), found
    assert any("GameFinished says scores" in failure for failure in found), found


@pytest.mark.parametrize("event_type", ["qwirkle.TilesDrawn", "qwirkle.TilesExchanged"])
def test_an_edited_random_draw_is_caught_by_re_deciding(
    record: str, event_type: str
) -> None:
    items = lines_of(record)
    index = line_of(record, event_type)
    revision = items[index]["revision"]
    field = "tiles" if event_type == "qwirkle.TilesDrawn" else "drawn"
    tile = items[index]["event"][field][0]
    tile["color"] = "red" if tile["color"] != "red" else "blue"
    found = failures(rechained(items))
    assert found[0].startswith(
        f"revision {revision}: re-deciding the recorded command gives {event_type}("
    ), found


def test_an_injected_field_is_reported(record: str) -> None:
    items = lines_of(record)
    index = line_of(record, "qwirkle.TurnScored")
    items[index]["event"]["bonus"] = 100
    found = failures(rechained(items))
    assert any("the event holds fields the game does not define" in f for f in found)


def test_an_unfinished_export_hides_the_seed_and_verifies_its_chain() -> None:
    game = play_game(finish=False)
    text = export_game(game.app, game.game_id)
    assert isinstance(text, str)
    assert SEED_HEX not in text
    assert SEED_HEX.upper() not in text
    items = lines_of(text)
    assert items[0]["finished"] is False
    assert items[1]["event"]["seed"] == ""
    assert items[-1]["seed"] is None
    report = verify(text)
    assert report.ok, report.render()
    assert report.unchecked
    assert "could not be re-decided" in report.render()
    assert "NOT checked" in report.render()
    tampered = text.replace('"points":', '"points":1', 1)
    assert not verify(tampered).ok


def test_an_unfinished_export_that_reveals_the_seed_is_reported() -> None:
    game = play_game(finish=False)
    recorded = game.app.recorded_events(game.game_id)
    text = export_records(f"games/{game.game_id}", recorded, datetime.now(UTC))
    items = lines_of(text)
    items[1]["event"]["seed"] = SEED_HEX
    found = failures(rechained(items))
    assert any("GameCreated holds the seed" in failure for failure in found)


def test_an_unknown_game_is_not_found() -> None:
    refused = export_game(_app(), UUID(int=1))
    assert isinstance(refused, Rejected)
    assert refused.reason == "GAME_NOT_FOUND"


def test_garbage_is_reported_not_raised() -> None:
    for text in ("", "\n", "{}", "[1]\n", "not json\n", b"\xff\xfe\n"):
        report = verify(text)
        assert not report.ok
        assert "NOT VERIFIED" in report.render()


def test_three_seats_verify_too() -> None:
    game = play_game(players=3, seed=3)
    text = export_game(game.app, game.game_id)
    assert isinstance(text, str)
    assert verify(text).ok


# --- The command line and the operator credential ---


def test_the_command_line_exits_0_1_or_2(
    record: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "game.jsonl"
    good.write_text(record, encoding="utf-8")
    assert main(["audit", "verify", str(good)]) == 0
    assert "RESULT: VERIFIED" in capsys.readouterr().out
    bad = tmp_path / "tampered.jsonl"
    bad.write_text(record.replace('"points":', '"points":1', 1), encoding="utf-8")
    assert main(["audit", "verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "hash does not match its content" in out
    assert "NOT VERIFIED" in out
    assert main(["audit", "verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_operator_token_comes_from_the_environment_or_a_file(
    tmp_path: Path,
) -> None:
    settings = Settings.from_env({"TABLETOP_OPERATOR_TOKEN": " s3cret \n"})
    assert settings.operator_token == "s3cret"
    assert "s3cret" not in repr(settings)
    assert Settings.from_env({}).operator_token is None
    path = tmp_path / "token"
    path.write_text("from-file\n", encoding="utf-8")
    assert read_token_file(str(path)) == "from-file"
    path.write_text("  \n", encoding="utf-8")
    with pytest.raises(SettingsError, match="empty"):
        read_token_file(str(path))
    with pytest.raises(SettingsError, match="cannot read"):
        read_token_file(str(tmp_path / "nope"))


def test_an_unreadable_token_file_stops_the_server_from_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nope")
    assert main(["serve", "--operator-token-file", missing]) == 2
    assert re.search("operator token file .*nope", capsys.readouterr().err)


def test_a_record_made_before_moves_were_judged_for_reveals_verifies(
    record: str,
) -> None:
    """Records exported before T19 hold no ``reveals`` in their ``MovePlayed``."""
    items = lines_of(record)
    stripped = 0
    for item in items[1:-1]:
        if item["type"] == "table.MovePlayed":
            del item["event"]["reveals"]
            stripped += 1
    assert stripped > 0
    report = verify(rechained(items))
    assert report.ok, report.failures


def test_a_record_whose_move_hides_a_reveal_is_reported(record: str) -> None:
    items = lines_of(record)
    revealing = [
        item
        for item in items[1:-1]
        if item["type"] == "table.MovePlayed" and item["event"]["reveals"]
    ]
    assert revealing, "the game's last move reveals every rack"
    revealing[-1]["event"]["reveals"] = False
    assert any("MovePlayed" in failure for failure in failures(rechained(items)))
