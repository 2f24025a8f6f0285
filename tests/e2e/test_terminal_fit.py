"""The terminal client on small terminals, against a real server and PostgreSQL:
every frame of play, spectate and replay fits 80x24, a resized terminal is drawn
again at its new size, the board pans, a server that goes away is shown and its
return noticed, and a message stays until the person's turn starts."""

from __future__ import annotations

import random
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len
from tabletop.v1 import game_service_pb2

from tests.e2e.client import (
    get,
    legal_moves,
    play_to_end,
    seat_of,
    start_two_seats,
    submit,
)
from tests.e2e.conftest import Server, start_server
from tests.e2e.terminal_screen import Screen, spawn
from tests.pg import fresh_schema

pytestmark = pytest.mark.e2e

SMALL = (24, 80)
MOVE_PROMPT = "your move> "
ANY_PROMPT = r"(your move|\(q quits\))> "
LOST = "connection lost, retrying..."
REVISION = re.compile(r"revision\s+(\d+),")
ROW = re.compile(r"^([A-P]) ", re.MULTILINE)  # a Hues and Cues board row
ENTRY = re.compile(r"^\s+\d+  \S", re.MULTILINE)  # a line of the move list
PAGES = re.compile(r"(\d+) legal moves; page \d+/(\d+)")
# Each game, the bots it is played against, and its title.
GAMES = (
    ("qwirkle", 1, "Qwirkle"),
    ("hues-and-cues", 2, "Hues and Cues"),
    ("split", 1, "Split"),
    ("gnoming-a-round", 2, "Gnoming A Round"),
    ("fool", 3, "Fool!"),
)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server on PostgreSQL for most tests of the module."""
    with fresh_schema() as url:
        running = start_server(url, dev=True)
        yield running
        assert running.stop() == 0


def _fits(frame: str, rows: int, columns: int) -> None:
    """Checks that a drawn frame, its prompt's line included, fits the terminal."""
    prompt = frame.rfind("> ")  # what follows it is the echo of typed lines
    lines = frame[: prompt + 2 if prompt >= 0 else None].split("\n")
    assert len(lines) <= rows, f"{len(lines)} rows:\n{frame}"
    widest = max(cell_len(line) for line in lines)
    assert widest <= columns, f"{widest} columns:\n{frame}"


def _all_fit(screen: Screen, rows: int, columns: int) -> None:
    frames = screen.frames()
    assert frames
    for frame in frames:
        _fits(frame, rows, columns)


def _revision(frame: str) -> int:
    found = REVISION.search(frame)
    assert found is not None, frame
    return int(found.group(1))


def _typed_move(frame: str) -> str:
    """Returns what to type for the first listed move (a cue where one is due)."""
    if "or type a target and a cue" in frame:
        return "1 ocean"
    if "or type a second cue" in frame:
        return "skip"
    return "1"


def _my_turn(screen: Screen, *, logged: bool = True) -> str:
    """Waits for the person's turn; returns its frame, checked: the table's
    header, the log (once a move was made) and the prompt on a line of its own."""
    screen.expect(MOVE_PROMPT, timeout=30)
    frame = screen.frames()[-1]
    assert frame.endswith(f"\n{MOVE_PROMPT}")
    assert "games/" in frame
    assert not logged or re.search(r"r\d+: ", frame), f"no log line:\n{frame}"
    return frame


def _play(screen: Screen, frame: str) -> None:
    """Types the first listed move and waits until the game has moved on."""
    before = _revision(frame)
    screen.child.sendline(_typed_move(frame))
    while True:
        screen.expect(ANY_PROMPT, timeout=30)
        shown = screen.frames()[-1]
        assert "not understood" not in shown
        if _revision(shown) > before:
            return


def _redrawn(screen: Screen, entries: int) -> str:
    """Waits for the person's turn drawn with a page of ``entries`` moves (the
    page's size follows the terminal's height); returns that frame."""
    for _ in range(20):  # a redraw for each item of the feed, then the resize
        screen.expect(MOVE_PROMPT)
        frame = screen.frames()[-1]
        paged = PAGES.search(frame)  # a move's first line may be cut, not its page
        if paged and -(-int(paged[1]) // entries) == int(paged[2]):
            return frame
    pytest.fail(f"never drawn with {entries} moves a page:\n{frame}")


@pytest.mark.parametrize(("game", "bots", "title"), GAMES)
def test_every_game_fits_an_80_by_24_terminal_turn_after_turn(
    server: Server, tmp_path: Path, game: str, bots: int, title: str
) -> None:
    args = ("play", game, "--bots", str(bots), "--bot-delay", "0", "--name", "Ana")
    screen = spawn(server, tmp_path, *args, "--guest", title=title, size=SMALL)
    for turn in range(3):
        # The log has the rows the table and the moves leave: maybe none,
        # beside a board.
        logged = turn > 0 and game not in ("qwirkle", "hues-and-cues")
        frame = _my_turn(screen, logged=logged)
        assert title in frame
        if game == "hues-and-cues":  # its board is taller than 24 rows
            assert "<, >, ^, v: pan" in frame
        elif game != "qwirkle":  # no board: nothing pans
            assert "<, >, ^, v: pan" not in frame
        _play(screen, frame)
    _all_fit(screen, *SMALL)
    screen.child.sendline("q")
    assert screen.finish() == 0
    _all_fit(screen, *SMALL)


def test_a_resized_terminal_is_drawn_again_at_its_new_size(
    server: Server, tmp_path: Path
) -> None:
    args = ("play", "qwirkle", "--bots", "1", "--bot-delay", "0", "--name", "Ana")
    screen = spawn(server, tmp_path, *args, "--guest", size=SMALL)
    frame = _my_turn(screen, logged=False)
    assert len(ENTRY.findall(frame)) == 5  # a page of the list fits 24 rows
    screen.child.resize(40, 100)
    taller = _redrawn(screen, 10)  # nothing typed
    _fits(taller, 40, 100)
    assert "you are Ana" in taller.split("\n")[0]  # the header wraps no more
    screen.child.resize(20, 60)
    smaller = _redrawn(screen, 3)
    _fits(smaller, 20, 60)
    _play(screen, smaller)  # the move list still plays
    screen.child.sendline("q")
    assert screen.finish() == 0


def _after(screen: Screen, line: str, marker: str) -> str:
    """Types a line, then a marker the client does not understand; returns the
    frame that says so, drawn once both lines were read."""
    screen.child.sendline(line)
    screen.child.sendline(marker)
    screen.expect(re.escape(f"not understood: '{marker}'"))
    screen.expect(MOVE_PROMPT)
    return screen.frames()[-1]


def test_the_board_pans_and_centres_again(server: Server, tmp_path: Path) -> None:
    args = ("play", "hues-and-cues", "--bots", "2", "--bot-delay", "0", "--name", "Ana")
    screen = spawn(
        server, tmp_path, *args, "--guest", title="Hues and Cues", size=SMALL
    )
    _my_turn(screen, logged=False)
    centred = ROW.findall(_after(screen, ".", "zz1"))
    assert 0 < len(centred) < 16  # 24 rows show a window of the 16 board rows
    top = ROW.findall(_after(screen, "^" * 12, "zz2"))
    assert top[0] == "A"
    bottom = ROW.findall(_after(screen, "v" * 24, "zz3"))
    assert bottom[-1] == "P"
    assert len(bottom) == len(top) == len(centred)
    assert ROW.findall(_after(screen, ".", "zz4")) == centred
    _all_fit(screen, *SMALL)
    screen.child.sendline("q")
    assert screen.finish() == 0


def _drawn_at(screen: Screen, revision: int) -> str:
    """Waits for a frame of the game at ``revision`` or later; returns it."""
    while True:
        screen.expect(ANY_PROMPT, timeout=30)
        frame = screen.frames()[-1]
        if _revision(frame) >= revision:
            return frame


def test_a_message_stays_until_the_persons_turn_starts(
    server: Server, tmp_path: Path
) -> None:
    screen = spawn(
        server, tmp_path, "play", "qwirkle", "--players", "3", "--name", "Ana",
        "--guest", size=SMALL,
    )  # fmt: skip
    name = screen.expect(r"Game (games/[0-9a-f-]+)").group(1)
    screen.expect(r"Waiting for players")
    tokens = {
        seat: server.stub.JoinGame(
            game_service_pb2.JoinGameRequest(name=name, display_name=who), timeout=10
        ).seat_token
        for seat, who in ((1, "Ben"), (2, "Cy"))
    }
    screen.expect("Qwirkle  games/")  # drawn once the game has started
    screen.expect(ANY_PROMPT)
    while (seat := seat_of(get(server.stub, name).current_player)) != 1:
        if seat == 0:  # Ana plays: Ben is next
            _play(screen, _my_turn(screen, logged=False))
        else:  # Cy plays: Ana is next
            revision, moves = legal_moves(server.stub, name, tokens[seat])
            submit(server.stub, name, tokens[seat], moves[0], revision)
    screen.child.sendline("zz")
    screen.expect("not your turn: waiting for Ben")
    screen.expect(ANY_PROMPT)
    for seat in (1, 2):  # Ben's move leaves it Cy's turn, Cy's makes it Ana's
        revision, moves = legal_moves(server.stub, name, tokens[seat])
        submit(server.stub, name, tokens[seat], moves[0], expected_revision=revision)
        if seat == 1:
            assert "not your turn: waiting for Ben" in _drawn_at(screen, revision + 1)
    frame = _my_turn(screen, logged=False)
    assert "not your turn" not in frame
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_spectate_and_replay_of_a_whole_game_fit_80_by_24(
    server: Server, tmp_path: Path
) -> None:
    name, tokens = start_two_seats(server.stub, bytes(range(32)))
    spectator = spawn(server, tmp_path, "spectate", name, size=SMALL)
    spectator.expect("spectating; q quits")
    play_to_end(server.stub, name, tokens, random.Random(3).choice)
    spectator.expect("Final scores: ", timeout=60)
    assert spectator.finish() == 0
    _all_fit(spectator, *SMALL)
    final = get(server.stub, name)
    xs = [p.at.x for p in final.qwirkle_view.public_state.board]
    assert min(xs) <= -10  # so columns of four characters, and the grid with its
    assert 4 + 4 * (max(xs) - min(xs) + 3) > SMALL[1]  # ring is wider than 80
    total = final.revision
    replay = spawn(server, tmp_path, "replay", name, size=SMALL)
    replay.expect("replay> ")
    replay.child.sendline(f"g {total}")
    replay.expect(rf"revision {total}/{total}")
    replay.expect("replay> ")
    _all_fit(replay, *SMALL)
    replay.child.sendline("q")
    assert replay.finish() == 0


def _free_address() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def _crash(server: Server) -> None:
    """Kills the server, as a crash or a lost network would take it away."""
    server.channel.close()
    server.process.kill()
    server.process.wait(timeout=30)


def test_a_server_that_goes_away_is_shown_and_its_return_noticed(
    tmp_path: Path,
) -> None:
    with fresh_schema() as url:
        address = _free_address()
        running = start_server(url, dev=True, listen=address)
        args = ("play", "qwirkle", "--bots", "1", "--bot-delay", "0", "--name", "Ana")
        screen = spawn(running, tmp_path, *args, "--guest", size=SMALL)
        try:
            _my_turn(screen, logged=False)
            _crash(running)
            screen.expect(re.escape(LOST))
            screen.expect(MOVE_PROMPT)  # still drawn, the moves kept
            _fits(screen.frames()[-1], *SMALL)
            running = start_server(url, dev=True, listen=address)
            frame = screen.frames()[-1]
            while LOST in frame:  # until drawn without the notice
                screen.expect(ANY_PROMPT, timeout=30)
                frame = screen.frames()[-1]
            assert frame.endswith(MOVE_PROMPT)
            _play(screen, frame)  # moves go through again
            screen.child.sendline("q")
            assert screen.finish() == 0
        finally:
            running.stop()
