"""The audit record: export, and an offline verification that catches tampering.

Games are played through the use cases on the in-memory store, with a takeback
by consent and an exchange; their exports must verify, and every kind of
tampering must be reported with a message that names what failed. A forger who
knows the seed (revealed when the game ends) can recompute every record digest,
but holds no private key: the signatures catch what the digests cannot.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from domain.common.undo import UndoProposed
from domain.games.qwirkle import ExchangeTiles, PlaceTiles, QwirkleConfig
from infra.cli import main
from infra.settings import Settings, SettingsError, read_token_file
from services.audit import (
    FORMAT,
    Report,
    canonical,
    export_game,
    export_records,
    signed_message,
    verify,
)
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RespondUndo,
    SeatRequest,
    SubmitMove,
)
from services.games import Applied, GamesApp, Seated
from services.record_digest import genesis, next_digest, record_key
from services.records import CODEC
from services.signing import PublicKey, SigningKey
from tests.playing import TickingClock, sent_move

SEED = bytes(range(32))
SEED_HEX = SEED.hex()
# The server's key, and another that is not the server's.
KEY = SigningKey.generate()
OTHER_KEY = SigningKey.generate()


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
        clock=TickingClock(),
    )


def _open(app: GamesApp, players: int) -> tuple[UUID, list[str]]:
    created = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), 0, "Ana", SEED, request_id="create-1")
    )
    assert isinstance(created, Seated)
    game_id, tokens = created.record.game_id, [created.token]
    for seat in range(1, players):
        joined = app.join_game(JoinGame(game_id, f"P{seat}", request_id=f"join-{seat}"))
        assert isinstance(joined, Seated)
        tokens.append(joined.token)
    assert isinstance(app.start_game(SeatRequest(game_id, Call(tokens[0]))), Applied)
    return game_id, tokens


def _play(app: GamesApp, game_id: UUID, tokens: list[str], move: Any) -> Applied:
    played = app.submit_move(
        SubmitMove(game_id, sent_move(move), Call(tokens[move.seat]))
    )
    assert isinstance(played, Applied), played
    return played


def _take_back(app: GamesApp, game_id: UUID, tokens: list[str], seat: int) -> None:
    proposed = app.propose_undo(SeatRequest(game_id, Call(tokens[seat])))
    assert isinstance(proposed, Applied), proposed
    (event,) = (e.event for e in proposed.events)
    assert isinstance(event, UndoProposed)
    for other in range(len(tokens)):
        if other != seat:
            answer = app.respond_undo(
                RespondUndo(
                    game_id, event.proposal_id, accept=True, call=Call(tokens[other])
                )
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
def other() -> Played:
    """The same game (same name, same seed), played with other choices."""
    return play_game(seed=8)


@pytest.fixture(scope="module")
def record(finished: Played) -> str:
    """The export of the whole game."""
    text = export_game(finished.app, finished.game_id, KEY)
    assert isinstance(text, str)
    return text


# --- Helpers over an exported record ---


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def text_of(items: list[dict[str, Any]]) -> str:
    return "".join(canonical(item) + "\n" for item in items)


def redigested(items: list[dict[str, Any]], seed_hex: str = SEED_HEX) -> str:
    """Returns the record after recomputing every digest and the trailer's chain.

    What a forger who knows the seed (revealed at the end) can do: the digests
    then hold for the content as edited; the signatures are left as they were.
    """
    key = record_key(seed_hex)
    digest = genesis(key, items[0]["game"])
    for item in items[1:-1]:
        content = {k: v for k, v in item.items() if k not in ("digest", "signature")}
        item["digest"] = digest = next_digest(key, digest, content)
    items[-1]["chain"] = digest
    return text_of(items)


def resigned(items: list[dict[str, Any]], key: SigningKey) -> str:
    """Returns the record with every line signed by ``key``, named in the header."""
    items[0]["key"] = key.public.fingerprint
    game = items[0]["game"]
    for item in items:
        item.pop("signature", None)
        item["signature"] = key.sign(signed_message(game, item))
    return text_of(items)


def verified(text: str | bytes, *keys: PublicKey, **receipts: Any) -> Report:
    """Returns the report of ``text`` checked with the server's public key."""
    return verify(text, public_keys=list(keys) or [KEY.public], **receipts)


def line_of(text: str, event_type: str, nth: int = 0) -> int:
    """Returns the index (0-based line) of the nth event line of a type."""
    found = [
        index
        for index, item in enumerate(lines_of(text))
        if item.get("type") == event_type
    ]
    return found[nth]


def failures(text: str | bytes) -> list[str]:
    report = verified(text)
    assert not report.ok
    return report.failures


def _flip(char: str) -> str:
    if char.isdigit():
        return str((int(char) + 1) % 10)
    if char.isalpha():
        return "b" if char == "a" else "a"
    return "x" if char != "x" else "y"


def _content(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in ("digest", "signature")}


def first_changed(real: str, forged: str) -> int:
    """Returns the first revision whose line a forgery changed (beyond digests)."""
    before = {item["revision"]: item for item in lines_of(real)[1:-1]}
    for item in lines_of(forged)[1:-1]:
        if _content(item) != _content(before.get(item["revision"], {})):
            return int(item["revision"])
    msg = "the forgery changed no line"
    raise AssertionError(msg)


def assert_forgery_caught(real: str, forged: str) -> Report:
    """Checks a forgery with kept signatures is caught at its first changed line."""
    revision = first_changed(real, forged)
    report = verified(forged)
    assert not report.ok
    assert report.signature.startswith("invalid"), report.render()
    assert any(
        f.startswith(f"revision {revision}: the signature does not hold")
        for f in report.failures
    ), report.failures
    return report


def assert_other_key_named(forged: str) -> None:
    """Checks a forgery re-signed with another key is refused for its key."""
    report = verified(forged)
    assert not report.ok
    assert report.signature.startswith("invalid"), report.render()
    assert any(
        f"signed by {OTHER_KEY.public.fingerprint}, which is not a given public key"
        in f
        for f in report.failures
    ), report.failures
    # ... while under the forger's own key, the chain alone would hold.
    assert verify(forged, public_keys=[OTHER_KEY.public]).signature.startswith("valid")


# --- The format ---


def test_an_exported_finished_game_verifies(finished: Played, record: str) -> None:
    report = verified(record)
    assert report.ok, report.render()
    assert not report.unchecked
    assert report.finished
    assert report.game == f"games/{finished.game_id}"
    assert report.signature == f"valid (key {KEY.public.fingerprint})"
    assert report.chain == "valid"
    assert report.redecided.startswith("all ")
    assert report.redecided.endswith(" re-decided")
    assert report.receipts == "none given"
    rendered = report.render()
    assert "re-decided" in rendered
    assert rendered.rstrip().endswith("RESULT: VERIFIED")
    items = lines_of(record)
    assert items[0]["format"] == FORMAT == "tabletop-audit/v2"
    assert items[0]["key"] == KEY.public.fingerprint
    assert items[-1]["seed"] == SEED_HEX
    assert {"qwirkle.TilesExchanged", "table.MovesUndone"} <= {
        item.get("type") for item in items
    }


def test_without_a_public_key_the_signatures_are_not_checked(record: str) -> None:
    report = verify(record)
    assert report.ok, report.render()
    assert report.signature.startswith("not checked")
    assert any("--public-key" in skipped for skipped in report.unchecked)
    assert "UNCHECKED" in report.render()


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def test_every_line_is_canonical_json_and_digests_and_signatures_follow_the_rule(
    finished: Played, record: str
) -> None:
    lines = record.splitlines()
    assert record.endswith("\n")
    items = [json.loads(line) for line in lines]
    assert all(canonical(item) == line for item, line in zip(items, lines, strict=True))
    name = f"games/{finished.game_id}"
    # The digests, as docs/audit.md spells them, independently of the code.
    key = hmac.digest(SEED, b"tabletop/record-digest/v1", hashlib.sha256)
    digest = _mac(key, f"tabletop-record/v1\n{name}")
    for item in items[1:-1]:
        content = {k: v for k, v in item.items() if k not in ("digest", "signature")}
        text = json.dumps(
            content, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        digest = _mac(key, f"{digest}\n{text}")
        assert item["digest"] == digest
        stored = finished.app.get_game(finished.game_id, revision=item["revision"])
        assert stored is not None
        assert stored.digest == digest
    assert {k: v for k, v in items[-1].items() if k != "signature"} == {
        "chain": digest,
        "events": len(items) - 2,
        "seed": SEED_HEX,
    }
    assert items[0]["revision"] == len(items) - 2
    # Every line: the signature of "tabletop-audit/v2\n" + game + "\n" + the line.
    public = Ed25519PublicKey.from_public_bytes(KEY.public.raw)
    for item in items:
        content = {k: v for k, v in item.items() if k != "signature"}
        message = f"tabletop-audit/v2\n{name}\n{canonical(content)}".encode()
        public.verify(base64.b64decode(item["signature"]), message)  # raises if not


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
    end = line.index(',"move_number":')
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


def test_a_changed_digit_breaks_the_digest_and_the_signature_of_its_line(
    record: str,
) -> None:
    items = lines_of(record)
    index = line_of(record, "qwirkle.TurnScored", 3)
    revision = items[index]["revision"]
    lines = record.splitlines(keepends=True)
    points = items[index]["event"]["points"]
    lines[index] = lines[index].replace(
        f'"points":{points},', f'"points":{points + 1},'
    )
    report = verified("".join(lines))
    assert not report.ok
    assert report.chain == "broken"
    assert report.signature == f"invalid (1 of {len(items)} lines)"
    assert (
        f"revision {revision}: the digest does not match the record up to this "
        "revision (the line, or one before it, was changed after the digest was "
        f"made) (line {index + 1})"
    ) in report.failures
    assert (
        f"revision {revision}: the signature does not hold for this line: changed "
        f"after the server signed it (line {index + 1})"
    ) in report.failures


def test_a_dropped_line_is_reported(record: str) -> None:
    lines = record.splitlines(keepends=True)
    del lines[17]  # revision 17
    found = failures("".join(lines))
    assert "revision 17 is missing" in found
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
    found = failures(text_of(items))
    assert any("the revealed seed does not match the commitment" in f for f in found)
    assert any("the signature does not hold" in f for f in found), found


def test_an_edited_score_is_caught_by_re_deciding_even_with_recomputed_digests(
    record: str,
) -> None:
    items = lines_of(record)
    index = line_of(record, "table.GameFinished")
    revision = items[index]["revision"]
    items[index]["event"]["scores"][1] += 10
    report = verified(redigested(items))
    assert not report.ok
    assert report.chain == "valid"
    assert report.redecided == "failed"
    found = report.failures
    assert not any("digest" in failure or "chain" in failure for failure in found)
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
    found = failures(redigested(items))
    assert any(
        failure.startswith(
            f"revision {revision}: re-deciding the recorded command gives {event_type}("
        )
        for failure in found
    ), found


def test_an_injected_field_is_reported(record: str) -> None:
    items = lines_of(record)
    index = line_of(record, "qwirkle.TurnScored")
    items[index]["event"]["bonus"] = 100
    found = failures(redigested(items))
    assert any("the event holds fields the game does not define" in f for f in found)


# --- Forgeries by one who knows the seed but holds no private key ---


def _forged_move(record: str, other: str) -> str:
    """The other game's lines under this game's name, with this game's signatures.

    Both games have the same name and seed, so the digests of the other game
    are what a forger recomputes; the signatures are those of the real record,
    line by line (the forger can make no other).
    """
    signatures = [item["signature"] for item in lines_of(record)]
    items = lines_of(other)
    assert items[0]["game"] == lines_of(record)[0]["game"]
    text = redigested(items)
    items = lines_of(text)
    for index, item in enumerate(items):
        item["signature"] = signatures[min(index, len(signatures) - 1)]
    return text_of(items)


@pytest.fixture(scope="module")
def other_record(other: Played) -> str:
    text = export_game(other.app, other.game_id, KEY)
    assert isinstance(text, str)
    return text


def _scores(text: str) -> list[int]:
    items = lines_of(text)
    scores = items[line_of(text, "table.GameFinished")]["event"]["scores"]
    assert isinstance(scores, list)
    return scores


def test_an_edited_move_with_recomputed_digests_is_caught_by_its_signature(
    record: str, other_record: str
) -> None:
    forged = _forged_move(record, other_record)
    assert _scores(forged) != _scores(record)
    changed = lines_of(forged)[first_changed(record, forged)]
    assert changed["command"]["move"]["_type"] == "qwirkle.PlaceTiles"
    report = assert_forgery_caught(record, forged)
    # The forged game is a game the rules allow, and its digests hold: only the
    # signatures tell it from the real one.
    assert report.chain == "valid", report.failures
    assert report.redecided.startswith("all "), report.failures
    assert all("signature" in failure for failure in report.failures)
    # The header, changed for the other game's last revision, is named by its line.
    last = lines_of(forged)[0]["revision"]
    assert not any(f.startswith(f"revision {last}:") for f in report.failures)
    assert any(
        f.startswith("line 1: the signature does not hold for this line:")
        for f in report.failures
    ), report.failures


def test_an_edited_move_re_signed_with_another_key_is_refused(
    record: str, other_record: str
) -> None:
    assert_other_key_named(
        resigned(lines_of(_forged_move(record, other_record)), OTHER_KEY)
    )


def _edited_scores(record: str) -> list[dict[str, Any]]:
    items = lines_of(record)
    index = line_of(record, "table.GameFinished")
    scores = items[index]["event"]["scores"]
    scores[0], scores[1] = scores[1] + 50, scores[0]
    items[index]["event"]["winners"] = [0]
    redigested(items)
    return items


def test_edited_final_scores_are_caught_by_the_signature_too(record: str) -> None:
    forged = text_of(_edited_scores(record))
    revision = first_changed(record, forged)
    assert lines_of(forged)[line_of(forged, "table.GameFinished")]["revision"] == (
        revision
    )
    report = assert_forgery_caught(record, forged)
    assert report.chain == "valid"
    assert report.redecided == "failed"
    assert any(
        f.startswith(
            f"revision {revision}: the signature does not hold for this line and "
            "the line after it:"
        )
        for f in report.failures
    ), report.failures


def test_edited_final_scores_re_signed_with_another_key_are_refused(
    record: str,
) -> None:
    assert_other_key_named(resigned(_edited_scores(record), OTHER_KEY))


def _renamed(record: str) -> list[dict[str, Any]]:
    items = lines_of(record)
    index = line_of(record, "table.PlayerJoined", 1)
    assert items[index]["event"]["display_name"] == "P1"
    items[index]["event"]["display_name"] = "Mallory"
    assert items[index]["command"]["_type"] == "table.JoinTable"
    items[index]["command"]["display_name"] = "Mallory"
    redigested(items)
    return items


def test_a_renamed_player_is_caught_only_by_the_signature(record: str) -> None:
    forged = text_of(_renamed(record))
    report = assert_forgery_caught(record, forged)
    assert first_changed(record, forged) == 3
    assert report.chain == "valid"
    assert report.redecided.startswith("all "), report.failures
    assert all("signature" in failure for failure in report.failures)


def test_a_renamed_player_re_signed_with_another_key_is_refused(record: str) -> None:
    assert_other_key_named(resigned(_renamed(record), OTHER_KEY))


def _swapped_seats(record: str) -> list[dict[str, Any]]:
    """Seat 0 and seat 1 trade names and tokens, everywhere the record says them."""
    items = lines_of(record)
    first, second = (line_of(record, "table.PlayerJoined", n) for n in (0, 1))
    assert items[first - 1]["command"]["_type"] == "table.CreateTable"
    said = (
        (items[first - 1]["command"], items[first]["event"]),
        (items[second]["command"], items[second]["event"]),
    )
    for name in ("display_name", "token_hash"):
        a, b = said[0][1][name], said[1][1][name]
        for value, places in ((b, said[0]), (a, said[1])):
            for place in places:
                place[name] = value
    redigested(items)
    return items


def test_swapped_seats_are_caught_by_the_signature(record: str) -> None:
    forged = text_of(_swapped_seats(record))
    joined = [
        item for item in lines_of(forged) if item.get("type") == "table.PlayerJoined"
    ]
    assert [item["event"]["display_name"] for item in joined[:2]] == ["P1", "Ana"]
    report = assert_forgery_caught(record, forged)
    assert first_changed(record, forged) == 1
    assert report.chain == "valid"
    assert report.redecided.startswith("all "), report.failures


def test_swapped_seats_re_signed_with_another_key_are_refused(record: str) -> None:
    assert_other_key_named(resigned(_swapped_seats(record), OTHER_KEY))


def test_a_signature_that_names_the_key_but_is_not_its_is_reported(
    record: str,
) -> None:
    items = _renamed(record)
    resigned(items, OTHER_KEY)
    items[0]["key"] = KEY.public.fingerprint  # claims the server's key
    report = verified(text_of(items))
    assert not report.ok
    assert report.signature == f"invalid ({len(items)} of {len(items)} lines)"
    assert any("signature does not hold" in f for f in report.failures)


# --- Receipts and keys ---


def test_a_receipt_of_the_game_is_held_by_its_record(
    finished: Played, record: str
) -> None:
    for revision in (1, 17, len(lines_of(record)) - 2):
        shown = finished.app.get_game(finished.game_id, revision=revision)
        assert shown is not None
        report = verified(record, receipts=[(revision, shown.digest)])
        assert report.ok, report.render()
        assert report.receipts == "1 of 1 matched"


def test_a_receipt_of_the_real_game_fails_against_a_forgery(
    finished: Played, record: str, other_record: str
) -> None:
    forged = _forged_move(record, other_record)
    revision = first_changed(record, forged)
    shown = finished.app.get_game(finished.game_id, revision=revision)
    assert shown is not None
    before = finished.app.get_game(finished.game_id, revision=revision - 1)
    assert before is not None
    report = verified(
        forged, receipts=[(revision - 1, before.digest), (revision, shown.digest)]
    )
    assert not report.ok
    assert report.receipts == "1 of 2 matched"
    assert any(
        f.startswith(f"revision {revision}: the receipt's digest {shown.digest}")
        for f in report.failures
    ), report.failures


def test_a_receipt_past_the_record_is_reported(record: str) -> None:
    report = verified(record, receipts=[(10_000, "0" * 64)])
    assert not report.ok
    assert report.receipts == "0 of 1 matched"
    assert any(
        f.startswith("revision 10000: the record has no such revision")
        for f in report.failures
    )


def test_a_record_signed_before_a_key_changed_verifies_with_the_old_key(
    finished: Played,
) -> None:
    old, new = SigningKey.generate(), SigningKey.generate()
    text = export_game(finished.app, finished.game_id, old)
    assert isinstance(text, str)
    assert verify(text, public_keys=[old.public]).ok
    report = verify(text, public_keys=[new.public])
    assert not report.ok
    assert report.signature == "invalid"
    assert report.failures == [
        (
            f"the record says it is signed by {old.public.fingerprint}, which is "
            f"not a given public key ({new.public.fingerprint})"
        )
    ]
    both = verify(text, public_keys=[new.public, old.public])
    assert both.ok, both.render()
    assert both.signature == f"valid (key {old.public.fingerprint})"


# --- A game in progress ---


@pytest.fixture(scope="module")
def unfinished() -> Played:
    return play_game(finish=False)


def test_an_unfinished_export_hides_the_seed_and_checks_its_signatures(
    unfinished: Played,
) -> None:
    text = export_game(unfinished.app, unfinished.game_id, KEY)
    assert isinstance(text, str)
    assert SEED_HEX not in text
    assert SEED_HEX.upper() not in text
    items = lines_of(text)
    assert items[0]["finished"] is False
    assert items[1]["event"]["seed"] == ""
    assert items[-1]["seed"] is None
    report = verified(text)
    assert report.ok, report.render()
    assert report.unchecked
    assert report.chain.startswith("not checked")
    assert report.redecided.startswith("not checked")
    assert report.signature == f"valid (key {KEY.public.fingerprint})"
    assert "could not be re-decided" in report.render()
    index = line_of(text, "qwirkle.TurnScored")
    revision = items[index]["revision"]
    tampered = text.replace('"points":', '"points":1', 1)
    report = verified(tampered)
    assert not report.ok
    assert report.chain.startswith("not checked")
    assert report.signature.startswith("invalid")
    assert any(
        f.startswith(f"revision {revision}: the signature does not hold")
        for f in report.failures
    ), report.failures


def test_an_unfinished_export_that_reveals_the_seed_is_reported(
    unfinished: Played,
) -> None:
    recorded = unfinished.app.recorded_events(unfinished.game_id)
    name = f"games/{unfinished.game_id}"
    text = export_records(name, recorded, datetime.now(UTC), KEY)
    items = lines_of(text)
    items[1]["event"]["seed"] = SEED_HEX
    found = failures(text_of(items))
    assert any("GameCreated holds the seed" in failure for failure in found)
    assert any(f.startswith("revision 1: the signature") for f in found), found


def test_an_unknown_game_is_not_found() -> None:
    refused = export_game(_app(), UUID(int=1), KEY)
    assert isinstance(refused, Rejected)
    assert refused.reason == "GAME_NOT_FOUND"


def test_garbage_is_reported_not_raised() -> None:
    for text in ("", "\n", "{}", "[1]\n", "not json\n", b"\xff\xfe\n"):
        report = verified(text)
        assert not report.ok
        assert "NOT VERIFIED" in report.render()


def test_three_seats_verify_too() -> None:
    game = play_game(players=3, seed=3)
    text = export_game(game.app, game.game_id, KEY)
    assert isinstance(text, str)
    assert verified(text).ok


# --- The command line and the operator credential ---


def _pem(key: PublicKey) -> str:
    public = Ed25519PublicKey.from_public_bytes(key.raw)
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def test_the_command_line_exits_0_1_or_2(
    finished: Played,
    record: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = tmp_path / "game.jsonl"
    good.write_text(record, encoding="utf-8")
    text_key = KEY.public.text
    assert main(["audit", "verify", str(good), "--public-key", text_key]) == 0
    out = capsys.readouterr().out
    assert "RESULT: VERIFIED" in out
    assert f"signature:           valid (key {KEY.public.fingerprint})" in out
    # Without a key: everything else holds, the signatures are not checked.
    assert main(["audit", "verify", str(good)]) == 0
    assert "UNCHECKED" in capsys.readouterr().out
    # A key in a file, as text or as PEM; one of several keys.
    as_text = tmp_path / "key.txt"
    as_text.write_text(text_key + "\n", encoding="utf-8")
    as_pem = tmp_path / "key.pem"
    as_pem.write_text(_pem(KEY.public), encoding="utf-8")
    for path in (as_text, as_pem):
        argv = ["audit", "verify", str(good), "--public-key", OTHER_KEY.public.text]
        assert main([*argv, "--public-key", str(path)]) == 0, path
        assert "RESULT: VERIFIED" in capsys.readouterr().out
    # A receipt held, and one not.
    shown = finished.app.get_game(finished.game_id, revision=9)
    assert shown is not None
    argv = ["audit", "verify", str(good), "--public-key", text_key]
    assert main([*argv, "--receipt", f"9:{shown.digest.upper()}"]) == 0
    assert "receipts:            1 of 1 matched" in capsys.readouterr().out
    assert main([*argv, "--receipt", f"9:{'0' * 64}"]) == 1
    assert "revision 9: the receipt's digest" in capsys.readouterr().out
    # Tampered: 1, and the report says what failed.
    bad = tmp_path / "tampered.jsonl"
    bad.write_text(record.replace('"points":', '"points":1', 1), encoding="utf-8")
    assert main(["audit", "verify", str(bad), "--public-key", text_key]) == 1
    out = capsys.readouterr().out
    assert "the digest does not match the record" in out
    assert "the signature does not hold" in out
    assert "NOT VERIFIED" in out
    # Only another key: 1.
    other = ["audit", "verify", str(good), "--public-key", OTHER_KEY.public.text]
    assert main(other) == 1
    assert "which is not a given public key" in capsys.readouterr().out
    # What cannot be read: 2.
    assert main(["audit", "verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    for wrong in ("ed25519:AAAA", "ed25519:" + "A" * 43 + "é", str(tmp_path / "none")):
        assert main(["audit", "verify", str(good), "--public-key", wrong]) == 2, wrong
        assert capsys.readouterr().err.startswith("tabletop: ")
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("-----BEGIN PUBLIC KEY-----\nnope\n", encoding="utf-8")
    assert main(["audit", "verify", str(good), "--public-key", str(garbage)]) == 2
    assert "not an Ed25519 public key" in capsys.readouterr().err


@pytest.mark.parametrize(
    "receipt", ["9", "9:abc", "0:" + "0" * 64, "x:" + "0" * 64, "9:" + "g" * 64]
)
def test_a_malformed_receipt_is_an_argument_error(
    record: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], receipt: str
) -> None:
    good = tmp_path / "game.jsonl"
    good.write_text(record, encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["audit", "verify", str(good), "--receipt", receipt])
    assert exited.value.code == 2
    assert "--receipt" in capsys.readouterr().err


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
    """Records exported before T19 hold no ``reveals`` in their ``MovePlayed``.

    Their digests were made over the events as stored, and the server signed
    them so: the record is rebuilt that way.
    """
    items = lines_of(record)
    stripped = 0
    for item in items[1:-1]:
        if item["type"] == "table.MovePlayed":
            del item["event"]["reveals"]
            item["event"].pop("_v", None)  # stored at schema version 1
            stripped += 1
    assert stripped > 0
    redigested(items)
    report = verified(resigned(items, KEY))
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
    redigested(items)
    found = failures(resigned(items, KEY))
    assert any("MovePlayed" in failure for failure in found)
