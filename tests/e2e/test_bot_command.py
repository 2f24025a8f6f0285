"""``tabletop bot``: a bot process takes a seat and plays it to the end of the game."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.bot_client import join_as_bot
from infra.terminal.seats import KeptBot, Seat, save_seat, seat_path
from tests.e2e.client import auth, create_qwirkle, get, legal_moves, submit
from tests.e2e.conftest import Server

GAME_SECONDS = 120


def bot(server: Server, *args: str, state: Path | None = None) -> subprocess.Popen[str]:
    """Starts ``tabletop bot`` against the server; its seats kept under ``state``."""
    command = [sys.executable, "-m", "infra.cli", "bot", *args]
    env = dict(os.environ, XDG_STATE_HOME=str(state)) if state else None
    return subprocess.Popen(  # noqa: S603 (our own CLI)
        [*command, "--server", server.address, "--delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_a_bot_takes_the_next_seat_and_plays_until_the_game_ends(
    server: Server,
) -> None:
    created = create_qwirkle(server.stub)
    name = created.game.name
    process = bot(server, name, "--seat", "1", "--name", "Robo")
    assert process.stdout is not None
    assert process.stdout.readline().strip() == f"tabletop: Robo plays seat 1 of {name}"
    game = get(server.stub, name)
    assert [p.display_name for p in game.players] == ["Ana", "Robo"]
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(created.seat_token), timeout=10
    )
    ana, chooser = created.seat_token, random.Random(3)
    deadline = time.monotonic() + GAME_SECONDS
    while (game := get(server.stub, name)).state != game_pb2.GAME_STATE_FINISHED:
        assert time.monotonic() < deadline, "the game does not end"
        if game.current_player.endswith("/0"):  # Ana's turn; the bot plays seat 1
            revision, moves = legal_moves(server.stub, name, ana)
            submit(server.stub, name, ana, chooser.choice(moves), revision)
        else:
            time.sleep(0.01)
    out, err = process.communicate(timeout=GAME_SECONDS)
    assert process.returncode == 0, err
    finished = get(server.stub, name)
    assert finished.state == game_pb2.GAME_STATE_FINISHED
    bot_moves = int(out.split("made ")[1].split()[0])
    assert 0 < bot_moves < finished.move_count
    assert "Traceback" not in err


def test_a_seat_already_taken_is_refused_with_a_clear_message(server: Server) -> None:
    created = create_qwirkle(server.stub)
    process = bot(server, created.game.name, "--seat", "0")
    _, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert "cannot take seat 0" in err
    assert "Traceback" not in err
    assert len(get(server.stub, created.game.name).players) == 1  # nothing joined


def test_a_bot_seat_kept_by_play_is_taken_over_with_its_seat_number(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = create_qwirkle(server.stub)
    name = created.game.name
    kept_bot, index = join_as_bot(server.stub, name, "Bot 1")
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(created.seat_token), timeout=10
    )
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    bots = (KeptBot(kept_bot.player, kept_bot.token),)
    ana = Seat(name, created.player, created.seat_token, server.address, bots=bots)
    save_seat(ana, seat_path(name))  # as `tabletop play --bots 1` keeps it
    process = bot(server, name, "--seat", str(index), state=tmp_path)
    assert process.stdout is not None
    try:
        line = process.stdout.readline().strip()
        assert line == f"tabletop: Bot plays seat 1 of {name}"
        if get(server.stub, name).current_player.endswith("/0"):  # Ana opens
            revision, moves = legal_moves(server.stub, name, created.seat_token)
            submit(server.stub, name, created.seat_token, moves[0], revision)
        deadline = time.monotonic() + GAME_SECONDS
        while get(server.stub, name).current_player.endswith("/1"):
            assert time.monotonic() < deadline, "the bot does not move"
            time.sleep(0.02)
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_a_bot_on_the_players_machine_adds_a_seat_instead_of_taking_theirs(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = create_qwirkle(server.stub)
    name = created.game.name
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    ana = Seat(name, created.player, created.seat_token, server.address)
    save_seat(ana, seat_path(name))  # as `tabletop play` keeps the host's seat
    process = bot(server, name, state=tmp_path)
    assert process.stdout is not None
    try:
        line = process.stdout.readline().strip()
        assert line == f"tabletop: Bot plays seat 1 of {name}"
        assert [p.display_name for p in get(server.stub, name).players][1] == "Bot"
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_a_started_game_names_the_players_kept_seat_to_hand_over(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = create_qwirkle(server.stub)
    name = created.game.name
    join_as_bot(server.stub, name, "Bot 1")
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(created.seat_token), timeout=10
    )
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    ana = Seat(name, created.player, created.seat_token, server.address)
    save_seat(ana, seat_path(name))
    _, err = bot(server, name, state=tmp_path).communicate(timeout=30)
    assert "cannot take a seat" in err
    assert "your seat 0 is kept here: --seat 0 hands it to the bot" in err
    assert "Traceback" not in err
