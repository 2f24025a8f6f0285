"""``tabletop replay`` on a small terminal, against a real server and PostgreSQL:
a finished Qwirkle game whose grid is wider and taller than 80x24 replays in
frames that fit, its board pans to every edge and centres again, and a resized
terminal is drawn again at its new size while the replay waits for a command."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.e2e.client import get, play_to_end, start_two_seats
from tests.e2e.conftest import Server
from tests.e2e.terminal_screen import Screen, spawn

pytestmark = pytest.mark.e2e

SMALL, LARGE = (24, 80), (50, 160)
PROMPT = "replay> "
X_LABELS = re.compile(r"^y\\x (.*)$", re.MULTILINE)  # the grid's first line
Y_LABEL = re.compile(r"^ *(-?\d+) +[·●✚◆■✸♣]", re.MULTILINE)  # a grid row


def _fits(frame: str, rows: int, columns: int) -> None:
    """Checks that a drawn frame, its prompt's line included, fits the terminal."""
    lines = frame[: frame.rfind(PROMPT) + len(PROMPT)].split("\n")
    assert len(lines) <= rows, f"{len(lines)} rows:\n{frame}"
    widest = max(cell_len(line) for line in lines)
    assert widest <= columns, f"{widest} columns:\n{frame}"


def _xs(frame: str) -> list[str]:
    """Returns the x labels the frame shows, the first and last perhaps cut."""
    found = X_LABELS.search(frame)
    assert found is not None, frame
    return found.group(1).split()


def _ys(frame: str) -> list[int]:
    return [int(y) for y in Y_LABEL.findall(frame)]


def _typed(screen: Screen, line: str) -> str:
    """Types a line; returns the frame drawn after it, checked to fit 80x24."""
    screen.child.sendline(line)
    screen.expect(PROMPT)
    frame = screen.frames()[-1]
    assert "not understood" not in frame
    _fits(frame, *SMALL)
    return frame


def test_a_replay_pans_its_board_and_is_drawn_again_when_resized(
    server: Server, tmp_path: Path
) -> None:
    name, tokens = start_two_seats(server.stub, bytes(range(32)))
    play_to_end(server.stub, name, tokens, random.Random(3).choice)
    final = get(server.stub, name)
    board = final.qwirkle_view.public_state.board
    xs, ys = [p.at.x for p in board], [p.at.y for p in board]
    total = final.revision
    screen = spawn(server, tmp_path, "replay", name, size=SMALL)
    screen.expect(PROMPT)
    centred = _typed(screen, f"g {total}")
    assert f"revision {total}/{total}" in centred
    assert "<, >, ^, v: pan" in centred  # the help line names the pan keys
    shown = _xs(centred)
    assert str(min(xs) - 1) not in shown or str(max(xs) + 1) not in shown

    left = _xs(_typed(screen, "<" * 12))
    assert left[0] == str(min(xs) - 1)  # the free ring's column, at the edge
    right = _xs(_typed(screen, ">" * 24))
    assert right[-1] == str(max(xs) + 1)
    top = _ys(_typed(screen, "^" * 12))
    assert top[0] == min(ys) - 1
    bottom = _ys(_typed(screen, "v" * 24))
    assert bottom[-1] == max(ys) + 1
    assert len(top) == len(bottom) < max(ys) - min(ys) + 3  # a window of the rows
    again = _typed(screen, ".")
    assert _xs(again) == shown
    assert f"revision {total}/{total}" in again  # a pan is not a step

    screen.child.resize(*LARGE)
    screen.expect(PROMPT)  # drawn again with nothing typed
    larger = screen.frames()[-1]
    _fits(larger, *LARGE)
    assert f"revision {total}/{total}" in larger
    assert len(_xs(larger)) > len(shown)
    assert len(_ys(larger)) > len(_ys(again))
    screen.child.resize(*SMALL)
    screen.expect(PROMPT)
    assert _xs(screen.frames()[-1]) == shown  # back to the centred window
    _fits(screen.frames()[-1], *SMALL)

    screen.child.sendline("q")
    assert screen.finish() == 0
