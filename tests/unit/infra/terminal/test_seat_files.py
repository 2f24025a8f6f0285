"""Seat files against those who would read or take another's seat: two people's
files never meet, a file is written only where it is named, and a crafted file
is not taken for a seat."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import cast

import pytest
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from infra.bot_client import BotSeat
from infra.terminal.kept_seats import same_name
from infra.terminal.seats import (
    KeptBot,
    Seat,
    load_kept,
    named_seat_path,
    save_seat,
    seat_path,
)

GAME = "games/abc"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keeps the seats under a temporary ``$XDG_STATE_HOME``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("李雷", "王芳"),  # nothing left of either but the fallback
        ("Zoë", "Zoe"),
        ("Anna!", "Anna"),
        ("Jo Ann", "jo-ann"),
        ("player", "¿?"),
    ],
)
def test_two_people_never_share_a_seat_file(state: Path, one: str, other: str) -> None:
    assert not same_name(one, other)
    assert named_seat_path(GAME, one) != named_seat_path(GAME, other)


@pytest.mark.parametrize(("one", "other"), [("Anna", " anna "), ("ZOË", "zoë")])
def test_one_person_finds_their_seat_file_again(
    state: Path, one: str, other: str
) -> None:
    assert same_name(one, other)
    assert named_seat_path(GAME, one) == named_seat_path(GAME, other)


@pytest.mark.parametrize("name", ["../../x", "/etc/passwd", "..", "a/../../b", "\x00"])
def test_a_name_stays_in_the_seats_directory(state: Path, name: str) -> None:
    path = named_seat_path(GAME, name)
    assert path.parent == state / "tabletop" / "seats"
    assert path.name.startswith("abc.")
    assert path.name.endswith(".json")
    assert "/" not in path.name
    assert ".." not in path.name.removeprefix("abc.")


def test_a_seat_is_not_written_through_a_link(state: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("untouched")
    path = seat_path(GAME)
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere)
    bots = (KeptBot(f"{GAME}/players/1", "bot secret"),)
    seat = Seat(GAME, f"{GAME}/players/0", "secret", "h:1", bots=bots)
    save_seat(seat, path)
    assert elsewhere.read_text() == "untouched"
    assert not path.is_symlink()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_kept(path) == seat


def test_a_seat_file_readable_by_others_is_replaced_by_one_that_is_not(
    state: Path,
) -> None:
    path = seat_path(GAME)
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    path.chmod(0o644)
    before = path.stat().st_ino
    save_seat(Seat(GAME, f"{GAME}/players/0", "secret", "h:1"), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_ino != before  # never the old file, open to others
    assert [kept.name for kept in path.parent.iterdir()] == [path.name]


@pytest.mark.parametrize(
    "player",
    ["x", "games/abc/players/", "games/abc/players/-1", "games/other/players/0"],
)
def test_a_crafted_seat_file_is_no_seat(state: Path, player: str) -> None:
    path = seat_path(GAME)
    path.parent.mkdir(parents=True)
    data = {"game": GAME, "player": player, "seat_token": "t", "server": "h:1"}
    path.write_text(json.dumps(data))
    assert load_kept(path) is None


def test_a_crafted_bot_is_left_out(state: Path) -> None:
    path = seat_path(GAME)
    path.parent.mkdir(parents=True)
    bots = [
        {"player": f"{GAME}/players/1", "seat_token": "b1"},
        {"player": "x", "seat_token": "b2"},
        {"player": "games/other/players/2", "seat_token": "b3"},
    ]
    data = {
        "game": GAME,
        "player": f"{GAME}/players/0",
        "seat_token": "t",
        "server": "h:1",
        "bots": bots,
    }
    path.write_text(json.dumps(data))
    kept = load_kept(path)
    assert kept is not None
    assert kept.bots == (KeptBot(f"{GAME}/players/1", "b1"),)


def test_a_seat_and_its_bots_never_show_their_secrets_in_a_repr() -> None:
    bot = KeptBot(f"{GAME}/players/1", "bot-secret")
    seat = Seat(
        GAME, f"{GAME}/players/0", "seat-secret", "h:1", "code-secret", bots=(bot,)
    )
    playing = BotSeat(cast("GameServiceStub", None), GAME, "bot-secret", bot.player)
    for shown in (repr(seat), repr(bot), repr(playing)):
        assert "secret" not in shown, shown
    assert f"{GAME}/players/1" in repr(bot)
