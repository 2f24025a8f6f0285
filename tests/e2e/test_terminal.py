"""The terminal client under a pseudo-terminal, against a real server and PostgreSQL."""

from __future__ import annotations

import json
import random
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2

from tests.e2e.client import (
    get,
    legal_moves,
    play_to_end,
    seat_of,
    start_two_seats,
    submit,
)
from tests.e2e.conftest import Server, start_server
from tests.e2e.terminal_screen import Screen
from tests.e2e.terminal_screen import spawn as _spawn
from tests.pg import fresh_schema

SEED = bytes(range(32))
GLYPHS = {1: "●", 2: "✚", 3: "◆", 4: "■", 5: "✸", 6: "♣"}
ANY_PROMPT = r"(your move|\(q quits\))> "
MOVES = {"tiles_placed", "tiles_exchanged", "turn_passed"}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server on PostgreSQL for every test of the module."""
    with fresh_schema() as url:
        running = start_server(url, dev=True)
        yield running
        assert running.stop() == 0


def _cell(screen: str, x: int, y: int) -> str:
    """Returns the character the last drawn grid shows at (x, y)."""
    lines = screen.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("y\\x"))
    labels = lines[head].split()[1:]
    column = len("y\\x ") + 3 * (labels.index(str(x)) + 1) - 1
    for line in lines[head + 1 :]:
        if line[:4].strip() == str(y):
            return line[column]
    pytest.fail(f"row {y} is not drawn")


def _check_board(screen: Screen, game: game_pb2.Game) -> None:
    drawn = screen.last_screen()
    for placement in game.qwirkle_view.public_state.board:
        glyph = GLYPHS[placement.tile.shape]
        assert _cell(drawn, placement.at.x, placement.at.y) == glyph


def _events(server: Server, name: str) -> list[event_pb2.GameEvent]:
    reply = server.stub.ListGameEvents(
        game_service_pb2.ListGameEventsRequest(parent=name, page_size=1000),
        timeout=10,
    )
    return list(reply.events)


def _move_revision(server: Server, name: str, after: int) -> int:
    """Returns the revision of the first placement, exchange or pass after one."""
    for event in _events(server, name):
        kind = event.qwirkle.WhichOneof("event")
        if event.revision > after and kind in MOVES:
            return event.revision
    pytest.fail(f"no move after revision {after}")


def _caught_up(screen: Screen, server: Server, name: str, after: int) -> str:
    """Waits for a move after a revision and for the screen to show it."""
    deadline = time.monotonic() + 15
    while (game := get(server.stub, name)).revision <= after:
        assert time.monotonic() < deadline, "the move did not reach the server"
        time.sleep(0.05)
    moved = _move_revision(server, name, after)
    screen.expect(rf"r{moved}: \w+ (placed|exchanged|passed)")
    screen.expect(ANY_PROMPT)
    shown = screen.last_screen()
    assert f"revision {game.revision}, move {game.move_count} " in shown
    return shown


def _terminal_turn(screen: Screen, server: Server, name: str, token: str) -> None:
    """Plays the terminal's turn: a bad number first, then move 1 of the list."""
    revision, moves = legal_moves(server.stub, name, token)
    if not screen.last_screen().endswith("your move> "):
        screen.expect("your move> ")
    assert f"{len(moves)} legal moves; page 1/" in screen.last_screen()
    screen.child.sendline(str(len(moves) + 1))
    screen.expect(rf"no move {len(moves) + 1}: choose 1 to {len(moves)}")
    screen.expect("your move> ")
    screen.child.sendline("1")
    shown = _caught_up(screen, server, name, revision)
    assert re.search(r"r\d+: Ana (placed|exchanged|passed)", shown)
    assert "waiting for Ben" in shown


def _stub_turn(screen: Screen, server: Server, name: str, token: str) -> None:
    """Plays the stub seat's first legal move and waits for the screen to show it."""
    revision, moves = legal_moves(server.stub, name, token)
    submit(server.stub, name, token, moves[0], expected_revision=revision)
    shown = _caught_up(screen, server, name, revision)
    assert re.search(r"r\d+: Ben (placed|exchanged|passed)", shown)
    assert "waiting for Ben" not in shown


def test_a_terminal_seat_plays_qwirkle_against_a_stub_seat(
    server: Server, tmp_path: Path
) -> None:
    screen = _spawn(
        server, tmp_path, "play", "qwirkle", "--players", "2", "--name", "Ana"
    )
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    path = tmp_path / "tabletop" / "seats" / f"{name.removeprefix('games/')}.json"
    screen.expect(re.escape(f"Seat token saved to {path}"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    ana = json.loads(path.read_text())["seat_token"]
    screen.expect(r"Waiting for players: 1/2 seated \(Ana\)")
    ben = server.stub.JoinGame(
        game_service_pb2.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    ).seat_token
    screen.expect("Qwirkle  games/")  # drawn once the game has started
    for _ in range(4):
        game = get(server.stub, name, ana)
        if seat_of(game.current_player) == 0:
            _terminal_turn(screen, server, name, ana)
        else:
            _stub_turn(screen, server, name, ben)
    game = get(server.stub, name, ana)
    _check_board(screen, game)
    rack = [GLYPHS[tile.shape] for tile in game.qwirkle_view.private_state.rack]
    shown = re.search(r"Your rack: (.*)", screen.last_screen())
    assert shown is not None
    assert [word[0] for word in shown.group(1).split("  ")] == rack
    screen.child.sendline("q")
    assert screen.finish() == 0
    assert ana not in screen.text
    assert ben not in screen.text


def test_play_against_bots_seats_them_and_they_play_their_turns(
    server: Server, tmp_path: Path
) -> None:
    screen = _spawn(
        server,
        tmp_path,
        *("play", "qwirkle", "--bots", "2", "--bot-delay", "0", "--name", "Ana"),
    )
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    path = tmp_path / "tabletop" / "seats" / f"{name.removeprefix('games/')}.json"
    ana = json.loads(path.read_text())["seat_token"]
    screen.expect("Qwirkle  games/")  # three seated: the game started
    game = get(server.stub, name, ana)
    assert [p.display_name for p in game.players] == ["Ana", "Bot 1", "Bot 2"]
    if seat_of(game.current_player) != 0:  # the bots open: wait for Ana's turn
        screen.expect("your move> ", timeout=30)
    _terminal_turn_against_bots(screen, server, name, ana)
    # The two bots move next, each once, and the turn comes back to Ana.
    screen.expect(r"r\d+: Bot 1 (placed|exchanged|passed)", timeout=30)
    screen.expect(r"r\d+: Bot 2 (placed|exchanged|passed)", timeout=30)
    screen.expect("your move> ", timeout=30)
    screen.child.sendline("q")
    assert screen.finish() == 0


def _terminal_turn_against_bots(
    screen: Screen, server: Server, name: str, token: str
) -> None:
    """Plays move 1 of the terminal's list and waits for the screen to show it."""
    revision, _ = legal_moves(server.stub, name, token)
    if not screen.last_screen().endswith("your move> "):
        screen.expect("your move> ")
    screen.child.sendline("1")
    screen.expect(r"r\d+: Ana (placed|exchanged|passed)", timeout=30)
    assert get(server.stub, name).revision > revision


def test_spectate_shows_moves_live_and_ends_with_the_final_scores(
    server: Server, tmp_path: Path
) -> None:
    name, tokens = start_two_seats(server.stub, SEED)
    screen = _spawn(server, tmp_path, "spectate", name.removeprefix("games/"))
    screen.expect("spectating; q quits")
    game = get(server.stub, name)
    seat = seat_of(game.current_player)
    revision, moves = legal_moves(server.stub, name, tokens[seat])
    submit(server.stub, name, tokens[seat], moves[0], expected_revision=revision)
    mover = ("Ana", "Ben")[seat]
    screen.expect(rf"r\d+: {mover} (placed|exchanged)")
    screen.expect(rf"r\d+: {mover} scored \d+|spectating")
    play_to_end(server.stub, name, tokens, random.Random(7).choice)
    final = get(server.stub, name)
    ranked = sorted(final.players, key=lambda p: (-p.score, p.seat))
    scores = ", ".join(f"{p.display_name} {p.score}" for p in ranked)
    screen.expect(re.escape(f"Final scores: {scores}"), timeout=30)
    assert screen.finish() == 0


def test_replay_steps_back_and_forth_through_the_revisions(
    server: Server, tmp_path: Path
) -> None:
    name, tokens = start_two_seats(server.stub, SEED)
    for _ in range(2):
        game = get(server.stub, name)
        seat = seat_of(game.current_player)
        revision, moves = legal_moves(server.stub, name, tokens[seat])
        submit(server.stub, name, tokens[seat], moves[0], expected_revision=revision)
    events = _events(server, name)
    total = len(events)
    placed = next(e for e in events if e.qwirkle.HasField("tiles_placed"))
    screen = _spawn(server, tmp_path, "replay", name)
    screen.expect(rf"revision 1/{total}  game created")
    screen.child.sendline("n")
    screen.expect(rf"revision 2/{total}  Ana joined")
    screen.child.sendline(f"g {placed.revision}")
    mover = ("Ana", "Ben")[seat_of(placed.qwirkle.tiles_placed.player)]
    screen.expect(rf"revision {placed.revision}/{total}  {mover} placed")
    snapshot = server.stub.GetGameRevision(
        game_service_pb2.GetGameRevisionRequest(
            name=f"{name}/revisions/{placed.revision}"
        ),
        timeout=10,
    ).snapshot
    screen.expect("replay> ")
    _check_board(screen, snapshot)
    screen.child.sendline("p")
    screen.expect(rf"revision {placed.revision - 1}/{total}  ")
    screen.child.sendline(f"g {total + 5}")
    screen.expect(rf"no revision {total + 5}: choose 1 to {total}")
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_a_refused_join_shows_the_servers_reason_without_a_traceback(
    server: Server, tmp_path: Path
) -> None:
    name, tokens = start_two_seats(server.stub, SEED)
    screen = _spawn(server, tmp_path, "play", "--join", name, "--name", "Cy")
    screen.expect(r"FAILED_PRECONDITION GAME_ALREADY_STARTED: ")
    assert screen.finish() == 1
    assert not any(token in screen.text for token in tokens)
