"""The terminal client's tables, under a pseudo-terminal, against a real server and
PostgreSQL: private tables and invite codes, the host who starts, seats given up,
a table that closes, and resigning with ``r``.

The terminal holds one seat; the test acts for the other seats through the stubs.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, get, legal_moves, seat_of, submit
from tests.e2e.conftest import Server, start_server
from tests.e2e.playthrough import open_table
from tests.e2e.terminal_screen import Screen, spawn
from tests.pg import fresh_schema

QWIRKLE = game_pb2.GAME_TYPE_QWIRKLE
PRIVATE = game_pb2.VISIBILITY_PRIVATE
CONFIRM = "Resign? The server's bot will play your seat. y/n"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server for the module."""
    with fresh_schema() as url:
        running = start_server(url, dev=True)
        yield running
        assert running.stop() == 0


def _token(tmp_path: Path, name: str) -> str:
    """Returns the seat token the terminal kept for a game."""
    path = _seat_file(tmp_path, name)
    return str(json.loads(path.read_text())["seat_token"])


def _seat_file(tmp_path: Path, name: str) -> Path:
    return tmp_path / "tabletop" / "seats" / f"{name.removeprefix('games/')}.json"


def _private_table(server: Server, host: str = "Ana") -> tuple[str, str, str]:
    """Opens a private 2-seat Qwirkle table; returns its name, code, host token."""
    created = server.stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=QWIRKLE, max_players=2, visibility=PRIVATE),
            display_name=host,
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )
    return created.game.name, created.invite_code, created.seat_token


def _listed(server: Server, token: str | None = None) -> set[str]:
    metadata = auth(token) if token else ()
    reply = server.stub.ListGames(
        api.ListGamesRequest(page_size=500), metadata=metadata, timeout=10
    )
    return {game.name for game in reply.games}


def _join(server: Server, name: str, display_name: str, code: str = "") -> str:
    request = api.JoinGameRequest(
        name=name, display_name=display_name, invite_code=code
    )
    return server.stub.JoinGame(request, timeout=10).seat_token


def _shown_at_revision(screen: Screen, server: Server, name: str, prompt: str) -> str:
    """Waits for the screen drawn at the game's current revision, up to a prompt."""
    revision = get(server.stub, name).revision
    screen.expect(rf"(?s)revision {revision}, move \d+\b.*?{re.escape(prompt)}")
    return screen.last_screen()


def test_play_private_prints_the_invite_code_and_the_friends_command_line(
    server: Server, tmp_path: Path
) -> None:
    screen = spawn(server, tmp_path, *("play", "qwirkle", "--private", "--name", "Ana"))
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    code = screen.expect(r"Invite code: (\S+)").group(1)
    game_id = name.removeprefix("games/")
    friend = f"tabletop play --join {game_id} --code {code}"
    screen.expect(re.escape(f"A friend joins with: {friend}"))
    screen.expect(re.escape(f"Private table; invite code: {code}"))
    screen.expect(re.escape(f"Others join with: {friend}"))
    screen.expect("You are the host: the game starts when 2 sit.")
    assert get(server.stub, name).visibility == PRIVATE
    assert name not in _listed(server)  # private: listed only to its seats
    assert name in _listed(server, _token(tmp_path, name))
    assert json.loads(_seat_file(tmp_path, name).read_text())["invite_code"] == code

    _join(server, name, "Ben", code)
    screen.expect("Qwirkle  games/")  # the host started it once Ben sat
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_bots_take_their_seats_at_a_private_table_with_its_code(
    server: Server, tmp_path: Path
) -> None:
    screen = spawn(
        server,
        tmp_path,
        *("play", "qwirkle", "--private", "--bots", "1", "--bot-delay", "0"),
    )
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    screen.expect(r"Invite code: \S+")
    screen.expect("Qwirkle  games/")  # the bot sat: the game started
    game = get(server.stub, name)
    assert game.visibility == PRIVATE
    assert [p.display_name for p in game.players] == ["Player", "Bot 1"]
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_join_with_the_invite_code_takes_a_seat_and_waits_for_the_host(
    server: Server, tmp_path: Path
) -> None:
    name, code, ana = _private_table(server)
    game_id = name.removeprefix("games/")
    screen = spawn(
        server, tmp_path, *("play", "--join", game_id, "--code", code, "--name", "Ben")
    )
    screen.expect(r"Waiting for players: 2/2 seated \(Ana, Ben\)")
    screen.expect(re.escape(f"Private table; invite code: {code}"))
    screen.expect("Waiting for the host, Ana, to start the game.")
    screen.child.sendline("s")
    screen.expect("only the host, Ana, starts the game")
    assert get(server.stub, name).state == game_pb2.GAME_STATE_WAITING_FOR_PLAYERS
    server.stub.StartGame(api.StartGameRequest(name=name), metadata=auth(ana))
    screen.expect("Qwirkle  games/")
    shown = _shown_at_revision(screen, server, name, "> ")
    assert "you are Ben" in shown
    screen.child.sendline("q")
    assert screen.finish() == 0


@pytest.mark.parametrize("given", [None, "WRONG-CODE"], ids=["missing", "wrong"])
def test_join_without_the_right_invite_code_says_how_to_join(
    server: Server, tmp_path: Path, given: str | None
) -> None:
    name, code, _ = _private_table(server)
    args = ["play", "--join", name.removeprefix("games/"), "--name", "Cy"]
    if given is not None:
        args += ["--code", given]
    screen = spawn(server, tmp_path, *args)
    screen.expect(r"tabletop: PERMISSION_DENIED INVALID_INVITE_CODE: This table is")
    screen.expect(r"tabletop play --join GAME_ID --code CODE")
    assert screen.finish() == 1
    assert code not in screen.text
    assert len(get(server.stub, name).players) == 1
    assert not _seat_file(tmp_path, name).exists()


def test_only_the_host_is_offered_to_start_before_the_table_is_full(
    server: Server, tmp_path: Path
) -> None:
    screen = spawn(
        server, tmp_path, *("play", "qwirkle", "--players", "3", "--name", "Ana")
    )
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    screen.expect("You are the host: the game starts when 3 sit.")
    _join(server, name, "Ben")
    screen.expect(r"(?s)s: start now with 2.*r\d+: Ben joined")
    screen.child.sendline("s")
    screen.expect("Qwirkle  games/")
    game = get(server.stub, name)
    assert game.state == game_pb2.GAME_STATE_IN_PROGRESS
    assert [p.display_name for p in game.players] == ["Ana", "Ben"]
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_seats_given_up_are_logged_and_the_next_player_becomes_the_host(
    server: Server, tmp_path: Path
) -> None:
    game = game_pb2.Game(game_type=QWIRKLE, max_players=4)
    name, (ana, ben) = open_table(server, game, ("Ana", "Ben"))
    screen = spawn(server, tmp_path, *("play", "--join", name, "--name", "Cy"))
    screen.expect("Waiting for the host, Ana, to start the game.")
    server.stub.LeaveGame(api.LeaveGameRequest(name=name), metadata=auth(ben))
    screen.expect(r"r\d+: Ben left the table")
    server.stub.LeaveGame(api.LeaveGameRequest(name=name), metadata=auth(ana))
    # Cy moved down from seat 2 to seat 0: the host now.
    screen.expect(
        r"(?s)Waiting for players: 1/4 seated \(Cy\)\n.*"
        r"You are the host: the game starts when 4 sit\..*r\d+: Ana left the table"
    )
    kept = json.loads(_seat_file(tmp_path, name).read_text())
    assert kept["player"] == f"{name}/players/0"
    dee = _join(server, name, "Dee")
    screen.expect(r"s: start now with 2")
    screen.child.sendline("s")
    screen.expect("Qwirkle  games/")
    shown = _shown_at_revision(screen, server, name, "> ")
    assert "you are Cy" in shown
    assert get(server.stub, name, dee).host == f"{name}/players/0"
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_a_seat_the_host_removes_ends_the_client_and_forgets_the_seat(
    server: Server, tmp_path: Path
) -> None:
    game = game_pb2.Game(game_type=QWIRKLE, max_players=3)
    name, (ana,) = open_table(server, game, ("Ana",))
    screen = spawn(server, tmp_path, *("play", "--join", name, "--name", "Ben"))
    screen.expect("Waiting for the host, Ana, to start the game.")
    server.stub.RemovePlayer(
        api.RemovePlayerRequest(name=f"{name}/players/1"), metadata=auth(ana)
    )
    screen.expect(r"r\d+: Ben was removed by the host")
    screen.expect("The host removed you from the table; your seat token no longer")
    assert screen.finish() == 1
    assert not _seat_file(tmp_path, name).exists()


def test_a_table_that_waited_too_long_closes_under_the_lobby(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_TABLE_WAIT_SECONDS", "4")
    with fresh_schema() as url:
        brief = start_server(url, dev=True)
        try:
            screen = spawn(brief, tmp_path, "play", "qwirkle", "--name", "Ana")
            name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
            screen.expect(r"r\d+: the table closed: nobody started it in time")
            screen.expect(r"The table closed: nobody started it in time\.")
            assert screen.finish() == 1
            assert get(brief.stub, name).state == game_pb2.GAME_STATE_CLOSED
            assert name not in _listed(brief)
        finally:
            assert brief.stop() == 0


def _qwirkle_at_bens_turn(server: Server, tmp_path: Path) -> tuple[Screen, str, str]:
    """Seats Ana (stubs, host) and Ben (the terminal), starts the game and lets
    Ana open if she is first; returns the screen, the game's name, Ana's token."""
    game = game_pb2.Game(game_type=QWIRKLE, max_players=2)
    name, (ana,) = open_table(server, game, ("Ana",))
    screen = spawn(server, tmp_path, *("play", "--join", name, "--name", "Ben"))
    screen.expect("Waiting for the host, Ana, to start the game.")
    server.stub.StartGame(api.StartGameRequest(name=name), metadata=auth(ana))
    if seat_of(get(server.stub, name).current_player) == 0:
        _, moves = legal_moves(server.stub, name, ana)
        submit(server.stub, name, ana, moves[0])
    _shown_at_revision(screen, server, name, "your move> ")
    return screen, name, ana


def test_r_asks_first_and_anything_but_y_keeps_the_seat(
    server: Server, tmp_path: Path
) -> None:
    screen, name, _ = _qwirkle_at_bens_turn(server, tmp_path)
    assert "r: resign" in screen.last_screen()
    for answer in ("n", "", "maybe"):
        screen.child.sendline("r")
        screen.expect(re.escape(CONFIRM))
        screen.expect(re.escape("resign? y/n> "))
        screen.child.sendline(answer)
        screen.expect("not resigned: you keep playing")
        screen.expect("your move> ")
    game = get(server.stub, name)
    assert not any(player.resigned for player in game.players)
    assert "legal moves; page 1/" in screen.last_screen()
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_r_then_y_resigns_and_the_screen_follows_the_bot_to_the_end(
    server: Server, tmp_path: Path
) -> None:
    screen, name, ana = _qwirkle_at_bens_turn(server, tmp_path)
    screen.child.sendline("r")
    screen.expect(re.escape(CONFIRM))
    screen.child.sendline("y")
    screen.expect(r"r\d+: Ben resigned; the server's bot plays their seat")
    screen.expect(r"r\d+: the bot played for Ben \(resigned\)")
    screen.expect(r"r\d+: Ben (placed|exchanged|passed)")
    screen.expect(r"\(q quits\)> ")
    game = get(server.stub, name)
    assert [p.resigned for p in game.players] == [False, True]
    shown = screen.last_screen()
    assert "Ben (resigned; the bot plays)" in shown
    assert "You resigned: the server's bot plays your seat to the end." in shown
    assert "legal moves" not in shown

    # The bot answers each of Ana's moves; the screen follows without moves.
    revision, moves = legal_moves(server.stub, name, ana)
    reply = submit(server.stub, name, ana, moves[0], expected_revision=revision)
    played = reply.game.move_count + 1  # the bot's move for Ben follows Ana's
    screen.expect(rf"move {played}  you are Ben")
    screen.expect(r"r\d+: the bot played for Ben \(resigned\)")
    screen.expect(r"\(q quits\)> ")
    screen.child.sendline("1")
    screen.expect("you resigned: the server's bot plays your seat")

    # Once Ana resigns too, no seat is left playing: the game is abandoned.
    server.stub.ResignGame(api.ResignGameRequest(name=name), metadata=auth(ana))
    screen.expect(r"r\d+: the game was abandoned \(no seat left playing\); won by")
    screen.expect("The game was abandoned: no seat was left playing.")
    assert screen.finish() == 0
    assert get(server.stub, name).abandoned
