"""Seats that outlive ``tabletop play``, under a pseudo-terminal, against a real
server and PostgreSQL: a game against a bot quit (``q`` or Ctrl-C) and resumed,
the bot playing on; a second person joining from the same machine; a table the
game cannot seat.
"""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tabletop.v1 import game_pb2

from tests.e2e.client import get
from tests.e2e.conftest import Server, start_server
from tests.e2e.terminal_screen import Screen, spawn
from tests.pg import fresh_schema

BOT_MOVE = r"r(\d+): Bot 1 (placed|exchanged|passed)"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server for the module."""
    with fresh_schema() as url:
        running = start_server(url, dev=True)
        yield running
        assert running.stop() == 0


def _seat_file(state: Path, game_id: str, suffix: str = "") -> Path:
    return state / "tabletop" / "seats" / f"{game_id}{suffix}.json"


def _bot_moves_after(screen: Screen, revision: int) -> None:
    """Waits for the log to show a move of Bot 1 made after ``revision``."""
    while int(screen.expect(BOT_MOVE, timeout=30).group(1)) <= revision:
        pass


@pytest.mark.parametrize("quit_by", ["q", "ctrl-c"])
def test_a_game_against_a_bot_waits_when_quit_and_the_bot_plays_on_when_resumed(
    server: Server, tmp_path: Path, quit_by: str
) -> None:
    screen = spawn(
        server,
        tmp_path,
        *("play", "qwirkle", "--bots", "1", "--bot-delay", "0", "--name", "Ana"),
    )
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    game_id = name.removeprefix("games/")
    screen.expect("your move> ", timeout=30)  # after the bot's move, if it opened
    screen.child.sendline("1")
    screen.expect(r"r\d+: Ana (placed|exchanged|passed)", timeout=30)
    if quit_by == "q":
        screen.child.sendline("q")
    else:
        screen.child.process.send_signal(signal.SIGINT)
    screen.expect(
        re.escape(
            "You left the table; the game waits for you (and your 1 bot). "
            f"Resume with: tabletop play --join {game_id}"
        )
    )
    if quit_by == "ctrl-c":  # the notice starts under the prompt, not after it
        assert "> You left the table" not in screen.last_screen()
    assert screen.finish() == (0 if quit_by == "q" else 130)
    path = _seat_file(tmp_path, game_id)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [b["player"] for b in json.loads(path.read_text())["bots"]] == [
        f"{name}/players/1"
    ]
    left_at = get(server.stub, name).revision

    resumed = spawn(server, tmp_path, "play", "--join", game_id, "--bot-delay", "0")
    resumed.expect(re.escape(f"Resuming your seat at {name}"))
    if get(server.stub, name).current_player.endswith("/0"):  # Ana's turn first
        resumed.expect("your move> ", timeout=30)
        resumed.child.sendline("1")
    _bot_moves_after(resumed, left_at)  # the resumed client runs the bot again
    resumed.expect("your move> ", timeout=30)
    game = get(server.stub, name)
    assert game.state == game_pb2.GAME_STATE_IN_PROGRESS
    assert game.current_player == f"{name}/players/0"
    resumed.child.sendline("q")
    resumed.expect("You left the table")
    assert resumed.finish() == 0


def _lobby(screen: Screen, resume: str) -> None:
    """Waits for the lobby's prompt, quits it and sees how to resume."""
    screen.expect(r"\(q quits\)> ")
    screen.child.sendline("q")
    screen.expect(r"You left the table; the game waits for you\. ")
    screen.expect(re.escape(f"Resume with: tabletop play --join {resume}\n"))
    assert screen.finish() == 0


def test_joining_with_another_name_takes_a_new_seat_unless_resume_is_asked(
    server: Server, tmp_path: Path
) -> None:
    ana = spawn(server, tmp_path, "play", "qwirkle", "--players", "3", "--name", "Ana")
    name = ana.expect(r"Game (games/[0-9a-f-]+)").group(1)
    game_id = name.removeprefix("games/")
    _lobby(ana, game_id)
    kept = _seat_file(tmp_path, game_id).read_text()

    # Ben, on the same machine: the machine's player sits there, so he is a guest.
    ben = spawn(server, tmp_path, "play", "--join", game_id, "--name", "Ben")
    ben.expect("Ben joins as a guest")
    ben.expect(re.escape(f"you are {name}/players/1"))
    ben.expect(re.escape(str(_seat_file(tmp_path, game_id, ".ben"))))
    _lobby(ben, f"{game_id} --name Ben")
    assert _seat_file(tmp_path, game_id).read_text() == kept
    players = get(server.stub, name).players
    assert [p.display_name for p in players] == ["Ana", "Ben"]

    again = spawn(server, tmp_path, "play", "--join", game_id, "--name", "Ben")
    again.expect(re.escape(f"Resuming your seat at {name}"))
    again.expect(re.escape(f"{game_id}.ben.json"))
    _lobby(again, f"{game_id} --name Ben")

    resume = ("play", "--join", game_id, "--name", "Ben", "--resume")
    anas = spawn(server, tmp_path, *resume)
    anas.expect(re.escape(f"Resuming your seat at {name} (seat kept in "))
    anas.expect(re.escape(f"{game_id}.json)"))
    _lobby(anas, game_id)
    assert len(get(server.stub, name).players) == 2


def test_too_few_bots_for_the_game_are_refused_naming_the_flag(
    server: Server, tmp_path: Path
) -> None:
    command = [sys.executable, "-m", "infra.cli", "play", "hues-and-cues"]
    command += ["--bots", "1", "--guest", "--server", server.address]
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), COLUMNS="200")
    done = subprocess.run(  # noqa: S603 (our own CLI)
        command, capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "tabletop: --bots 1: Hues and Cues needs at least 3 players; use " in (
        done.stdout
    )
    assert "max_players" not in done.stdout + done.stderr
    assert not (tmp_path / "tabletop" / "seats").exists()  # no table was opened
