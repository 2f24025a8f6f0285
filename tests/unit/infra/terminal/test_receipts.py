"""The receipts the terminal client keeps in a seat file, and reads back for
``tabletop audit verify --kept-receipts``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import grpc
import pytest
from rich.console import Console
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2_grpc

from infra.terminal import session as sessions
from infra.terminal.connection import Connection
from infra.terminal.feed import Feed, Item
from infra.terminal.lines import LineReader
from infra.terminal.lobby import Table
from infra.terminal.receipts import kept_receipts, latest_receipt, with_receipt
from infra.terminal.seats import Seat, load_seat, save_seat, seat_path
from infra.terminal.session import Session, keep_receipt, take_items

GAME = "games/abc"
DIGEST = "0123456789abcdef" * 4


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keeps the seats under a temporary ``$XDG_STATE_HOME``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


def _seat(revision: int = 0, digest: str = "", game: str = GAME) -> Seat:
    return Seat(
        game, f"{game}/players/0", "secret", "127.0.0.1:1", "", revision, digest
    )


def _session(path: Path, seat: Seat) -> Session:
    """A session of the seat kept at ``path``, on a channel never connected."""
    channel = grpc.insecure_channel("127.0.0.1:1")
    connection = Connection(channel, game_service_pb2_grpc.GameServiceStub(channel))
    table = Table(connection, seat, created=False, path=path)
    console = Console(file=io.StringIO())
    feed = Feed(connection, seat.game, 0)
    return Session(console, table, None, LineReader(), feed, game_pb2.Game(name=GAME))


def _event(revision: int, digest: str) -> event_pb2.GameEvent:
    return event_pb2.GameEvent(revision=revision, record_digest=digest)


def test_no_seat_file_keeps_no_receipt(state: Path) -> None:
    assert kept_receipts(GAME) == []
    assert not (state / "tabletop").exists()


def test_a_kept_receipt_is_read_back(state: Path) -> None:
    save_seat(_seat(7, DIGEST), seat_path(GAME))
    assert kept_receipts(GAME) == [(7, DIGEST)]
    save_seat(_seat(7, DIGEST.upper()), seat_path(GAME))
    assert kept_receipts(GAME) == [(7, DIGEST)]


def test_a_seat_without_a_receipt_keeps_none(state: Path) -> None:
    save_seat(_seat(), seat_path(GAME))
    assert kept_receipts(GAME) == []


def test_the_seat_of_another_game_at_the_path_keeps_none(state: Path) -> None:
    save_seat(_seat(7, DIGEST, game="games/other"), seat_path(GAME))
    assert kept_receipts(GAME) == []


@pytest.mark.parametrize(
    ("revision", "digest"),
    [
        (0, DIGEST),
        (-3, DIGEST),
        (True, DIGEST),
        ("7", DIGEST),
        (7, DIGEST[:-1]),
        (7, DIGEST + "0"),
        (7, "z" * 64),
        (7, 12),
        (7.0, DIGEST),
    ],
    ids=[
        "revision-0",
        "negative",
        "bool",
        "revision-text",
        "short",
        "long",
        "not-hex",
        "digest-number",
        "revision-float",
    ],
)
def test_a_malformed_receipt_is_not_kept(
    state: Path, revision: object, digest: object
) -> None:
    path = seat_path(GAME)
    save_seat(_seat(), path)
    data = json.loads(path.read_text())
    data.update(receipt_revision=revision, receipt_digest=digest)
    path.write_text(json.dumps(data))
    assert load_seat(path) is not None  # the seat token still works
    assert kept_receipts(GAME) == []


def test_a_receipt_replaces_only_an_older_one() -> None:
    seat = _seat(5, DIGEST)
    assert with_receipt(seat, 6, "f" * 64) == _seat(6, "f" * 64)
    assert with_receipt(seat, 5, "f" * 64) is seat
    assert with_receipt(seat, 4, "f" * 64) is seat
    assert with_receipt(seat, 9, "") is seat  # no digest: nothing to keep


def test_the_latest_receipt_of_a_batch_is_its_highest_revision_with_a_digest() -> None:
    events = [_event(4, "a" * 64), _event(6, "c" * 64), _event(5, "b" * 64)]
    assert latest_receipt(events) == (6, "c" * 64)
    assert latest_receipt([*events, _event(7, "")]) == (6, "c" * 64)
    assert latest_receipt([]) == (0, "")


def test_keeping_a_receipt_saves_the_seat_file(state: Path) -> None:
    path = seat_path(GAME)
    session = _session(path, _seat())
    keep_receipt(session, 3, DIGEST)
    assert session.table.seat == _seat(3, DIGEST)
    assert load_seat(path) == _seat(3, DIGEST)
    assert kept_receipts(GAME) == [(3, DIGEST)]
    keep_receipt(session, 2, "f" * 64)  # older: the receipt stays
    assert load_seat(path) == _seat(3, DIGEST)


def test_a_seat_given_up_keeps_nothing(state: Path) -> None:
    path = seat_path(GAME)
    session = _session(path, _seat())
    session.gone = "You left; your seat token no longer works."
    keep_receipt(session, 3, DIGEST)
    assert session.table.seat == _seat()
    assert not path.exists()


def test_a_burst_of_events_writes_the_seat_file_once(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = seat_path(GAME)
    session = _session(path, _seat())
    writes: list[Seat] = []

    def counted(seat: Seat, where: Path) -> None:
        writes.append(seat)
        save_seat(seat, where)

    monkeypatch.setattr(sessions, "save_seat", counted)
    for revision in (2, 3):
        session.feed.items.put(Item("events", (_event(revision, f"{revision}" * 64),)))
    take_items(session, Item("events", (_event(1, "1" * 64),)))
    assert writes == [_seat(3, "3" * 64)]
    assert kept_receipts(GAME) == [(3, "3" * 64)]
