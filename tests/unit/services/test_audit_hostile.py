"""Hostile records and keys: ``verify`` reports them, never crashes or hangs.

Each test is an attack found against the verifier: a file made to crash it,
exhaust its memory, spoof its report, re-spell a valid signature, or make a
receipt look binding when it cannot be.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from infra.cli import main
from services.audit import export_game
from services.record_digest import canonical
from services.signing import SigningKey
from tests.unit.services.test_audit import (
    KEY,
    lines_of,
    play_game,
    resigned,
    text_of,
    verified,
)


@pytest.fixture(scope="module")
def record() -> str:
    game = play_game()
    text = export_game(game.app, game.game_id, KEY)
    assert isinstance(text, str)
    return text


@pytest.fixture(scope="module")
def unfinished_record() -> str:
    game = play_game(finish=False)
    text = export_game(game.app, game.game_id, KEY)
    assert isinstance(text, str)
    return text


def _with(record: str, index: int, **changes: Any) -> list[dict[str, Any]]:
    items = lines_of(record)
    items[index].update(changes)
    return items


def test_a_lone_surrogate_is_reported_not_raised(record: str) -> None:
    items = lines_of(record)
    line = canonical(items[3]).replace('"actor":', '"x":"\\ud800","actor":', 1)
    lines = record.splitlines()
    lines[3] = line
    report = verified("\n".join(lines) + "\n")
    assert not report.ok
    assert any("line 4" in failure for failure in report.failures), report.failures
    report.render().encode("utf-8")  # printable, whatever the file held


def test_an_unknown_type_in_a_foreign_key_is_reported_not_raised(
    record: str,
) -> None:
    for foreign in ({"_type": "nope"}, {"_type": "table.GameCreated", "_v": 99}):
        items = lines_of(record)
        items[3]["event"]["extra"] = foreign
        report = verified(text_of(items))
        assert not report.ok
        assert any(f.startswith("revision 3:") for f in report.failures)


def test_a_huge_revision_costs_no_memory(record: str) -> None:
    items = _with(record, 3, revision=10**15)
    report = verified(text_of(items))
    assert not report.ok
    assert len(report.render()) < 20_000


def test_text_from_the_file_cannot_spoof_the_report(record: str) -> None:
    spoof = "x\nsignature: valid\nRESULT: VERIFIED\n\x1b[8m"
    items = _with(record, 0, game_type=spoof)
    items[4]["type"] = "\ud800" + spoof
    text = canonical(items[0]) + "\n" + "".join(canonical(i) + "\n" for i in items[1:])
    rendered = verified(text.encode("utf-8", "surrogatepass")).render()
    assert "\x1b" not in rendered
    assert "\nRESULT: VERIFIED" not in rendered
    assert rendered.count("\n") == len(rendered.splitlines())  # no line break added
    rendered.encode("utf-8")


def test_a_re_spelled_signature_does_not_verify(record: str) -> None:
    items = lines_of(record)
    signature = items[2]["signature"]
    raw = base64.b64decode(signature)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    # 64 bytes end in one byte: two characters, the second with 4 unused bits.
    last = alphabet[alphabet.index(signature[-3]) ^ 1]
    items[2]["signature"] = signature[:-3] + last + "=="
    assert items[2]["signature"] != signature
    assert base64.b64decode(items[2]["signature"]) == raw  # the same 64 bytes
    report = verified(text_of(items))
    assert not report.ok
    assert any(f.startswith("revision 2:") for f in report.failures)


def test_a_receipt_of_a_game_in_progress_is_not_called_binding(
    unfinished_record: str,
) -> None:
    items = lines_of(unfinished_record)
    revision, digest = items[5]["revision"], items[5]["digest"]
    items[3]["event"]["display_name"] = "Mallory"  # the operator rewrites
    forged = resigned(items, KEY)  # and re-signs with its own key
    report = verified(forged, receipts=[(revision, digest)])
    assert report.ok  # nothing checkable fails...
    assert "not binding" in report.receipts  # ...and the report says why
    assert any("receipts" in skipped for skipped in report.unchecked)


def test_a_fifo_as_public_key_is_refused_not_waited_on(
    record: str, tmp_path: Path
) -> None:
    fifo = tmp_path / "key"
    os.mkfifo(fifo)
    exported = tmp_path / "game.jsonl"
    exported.write_text(record)
    assert main(["audit", "verify", str(exported), "--public-key", str(fifo)]) == 2


def test_a_record_that_is_not_json_lines_of_objects_reports_each_line() -> None:
    values: list[object] = [1, [], "x", None]
    lines = [json.dumps(value) for value in values]
    report = verified("\n".join(lines) + "\n")
    assert not report.ok
    assert SigningKey.generate().public.fingerprint not in report.render()
