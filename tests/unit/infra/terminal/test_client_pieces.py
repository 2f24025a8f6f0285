"""Seat files, error lines, game ids, replay steps and the command line."""

from __future__ import annotations

import json
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from tabletop.v1 import game_pb2, game_type_pb2

from infra.cli import build_parser
from infra.settings import DEFAULT_LISTEN
from infra.terminal.bot_seats import check_seats
from infra.terminal.commands import DEFAULT_SERVER
from infra.terminal.connection import ClientError, describe_error, game_name
from infra.terminal.replay import step
from infra.terminal.seats import (
    KeptBot,
    Seat,
    load_seat,
    named_seat_path,
    save_seat,
    seat_path,
)


class _FailedCall(grpc.RpcError):
    """A failed call as a stub raises it, with a google.rpc.Status trailer."""

    def __init__(self, reason: str | None) -> None:
        details = []
        if reason is not None:
            info = any_pb2.Any()
            info.Pack(
                error_details_pb2.ErrorInfo(reason=reason, domain="tabletop.games")
            )
            details.append(info)
        self.status = status_pb2.Status(
            code=code_pb2.FAILED_PRECONDITION,
            message="It is not your turn.",
            details=details,
        )

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.FAILED_PRECONDITION

    def details(self) -> str:
        return self.status.message

    def trailing_metadata(self) -> Any:  # pairs, as grpc returns them
        return (("grpc-status-details-bin", self.status.SerializeToString()),)


def test_an_error_shows_its_code_reason_and_message() -> None:
    assert (
        describe_error(_FailedCall("NOT_YOUR_TURN"))
        == "FAILED_PRECONDITION NOT_YOUR_TURN: It is not your turn."
    )
    assert (
        describe_error(_FailedCall(None)) == "FAILED_PRECONDITION: It is not your turn."
    )


def test_a_seat_is_kept_readable_by_its_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path = seat_path("games/abc")
    assert path == tmp_path / "tabletop" / "seats" / "abc.json"
    seat = Seat("games/abc", "games/abc/players/1", "secret", "127.0.0.1:1")
    save_seat(seat, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_seat(path) == seat
    assert load_seat(tmp_path / "missing.json") is None


def test_a_seat_file_may_be_chosen(tmp_path: Path) -> None:
    assert seat_path("games/abc", str(tmp_path / "s.json")) == tmp_path / "s.json"


def test_game_ids_are_accepted_with_or_without_the_prefix() -> None:
    game_id = "afdfa25f-865d-5edb-99e9-966107dba45c"
    assert game_name(game_id) == game_name(f"games/{game_id}") == f"games/{game_id}"
    assert game_name(f" {game_id.upper()}\n") == f"games/{game_id}"
    for typed in ("games/../x", "nonexistent", "abc-1", f"games/{game_id}x"):
        with pytest.raises(ClientError, match=r"^not a game id: .*a game id is a UUID"):
            game_name(typed)


@pytest.mark.parametrize(
    ("text", "revision", "expected"),
    [
        ("n", 3, (4, "")),
        ("", 3, (4, "")),
        ("p", 3, (2, "")),
        ("g 9", 3, (9, "")),
        ("n", 10, (10, "the last revision")),
        ("p", 1, (1, "the first revision")),
        ("g 11", 3, (3, "no revision 11: choose 1 to 10")),
    ],
)
def test_replay_steps_between_the_first_and_last_revision(
    text: str, revision: int, expected: tuple[int, str]
) -> None:
    assert step(text, revision, 10) == expected


def test_the_default_server_is_where_serve_listens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert DEFAULT_SERVER == DEFAULT_LISTEN
    monkeypatch.delenv("TABLETOP_SERVER", raising=False)
    args = build_parser().parse_args(["spectate", "abc"])
    assert (args.command, args.game_id, args.server) == (
        "spectate",
        "abc",
        DEFAULT_LISTEN,
    )
    monkeypatch.setenv("TABLETOP_SERVER", "10.0.0.2:7000")
    args = build_parser().parse_args(["play", "qwirkle", "--players", "3"])
    assert (args.server, args.game_type, args.players) == (
        "10.0.0.2:7000",
        "qwirkle",
        3,
    )


def test_play_needs_a_game_or_a_game_to_join(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from infra.cli import main  # noqa: PLC0415

    assert main(["play", "--server", "127.0.0.1:1"]) == 2
    assert "name a game to create" in capsys.readouterr().out


def test_the_bots_seats_are_kept_with_the_players_and_old_files_still_load(
    tmp_path: Path,
) -> None:
    path = tmp_path / "seat.json"
    bots = (KeptBot("games/abc/players/1", "bot-secret"),)
    seat = Seat("games/abc", "games/abc/players/0", "secret", "h:1", name="Ana")
    save_seat(replace(seat, bots=bots), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_seat(path) == replace(seat, bots=bots)
    old = {"game": "games/abc", "player": "games/abc/players/0"}
    path.write_text(json.dumps({**old, "seat_token": "secret", "server": "h:1"}))
    assert load_seat(path) == Seat("games/abc", "games/abc/players/0", "secret", "h:1")


def test_another_persons_seat_is_kept_in_a_file_named_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    seats = tmp_path / "tabletop" / "seats"
    assert named_seat_path("games/abc", " Ben ") == seats / "abc.ben.json"
    oneil = named_seat_path("games/abc", "Ben O'Neil")
    assert oneil.parent == seats
    assert oneil.name.startswith("abc.ben-o-neil-")  # then the name's hash


QWIRKLE_INFO = game_type_pb2.GameTypeInfo(
    game_type=game_pb2.GAME_TYPE_QWIRKLE,
    display_name="Qwirkle",
    min_players=2,
    max_players=4,
)


@pytest.mark.parametrize(
    ("bots", "players", "error"),
    [
        (4, 5, "--bots 4: Qwirkle seats at most 4 players, you and 3 bots"),
        (2, 2, "--players 2 leaves no seat for you and 2 bots; use --players 3"),
        (0, 1, "--players 1: Qwirkle is played by 2 to 4 players"),
        (0, 5, "--players 5: Qwirkle is played by 2 to 4 players"),
    ],
)
def test_a_table_the_game_cannot_seat_is_refused_naming_the_flag(
    bots: int, players: int, error: str
) -> None:
    with pytest.raises(ClientError, match=re.escape(error)):
        check_seats(bots, players, QWIRKLE_INFO)


def test_too_few_bots_for_the_game_say_how_many_it_needs() -> None:
    info = game_type_pb2.GameTypeInfo(
        game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
        display_name="Hues and Cues",
        min_players=3,
        max_players=10,
    )
    with pytest.raises(ClientError) as refused:
        check_seats(1, 2, info)
    assert str(refused.value) == (
        "--bots 1: Hues and Cues needs at least 3 players; use --bots 2 or more, "
        "or --players 3 to wait for other players too"
    )
    check_seats(2, 3, info)  # seated: nothing to refuse
    check_seats(1, 3, info)  # --players 3 --bots 1 waits for one more player
