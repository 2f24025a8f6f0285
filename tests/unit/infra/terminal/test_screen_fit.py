"""Fitting a screen to the terminal: the board's window, panning, the log's rows."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.text import Text
from tabletop.v1 import common_pb2, game_pb2, hues_and_cues_pb2, move_pb2
from tabletop.v1 import qwirkle_pb2 as q

from infra.terminal.menu import menu_of, with_page_size
from infra.terminal.render import render_game
from infra.terminal.render_common import Board, Focus, Focused
from infra.terminal.screen import (
    Keys,
    Pan,
    draw,
    log_text,
    menu_rows,
    panned,
)
from tests.unit.infra.terminal.drawing import new_game

ME = "games/g1/players/0"
CENTRED = Pan()
COLOURS = (q.QWIRKLE_COLOR_RED, q.QWIRKLE_COLOR_BLUE, q.QWIRKLE_COLOR_GREEN)
SHAPES = (q.QWIRKLE_SHAPE_CIRCLE, q.QWIRKLE_SHAPE_SQUARE, q.QWIRKLE_SHAPE_CLOVER)
MENU = Text("\n".join(f"{n:>4}  move {n}" for n in range(1, 6)))


def _frame(
    width: int, height: int, *parts: RenderableType | None, pan: Pan = CENTRED
) -> tuple[list[str], Pan]:
    """Draws the parts on a terminal of that size; returns its lines and the pan."""
    out = io.StringIO()
    console = Console(
        file=out, width=width, height=height, force_terminal=True, color_system=None
    )
    used = draw(console, *parts, pan=pan)
    text = out.getvalue().replace("\x1b[2J", "").replace("\x1b[H", "")
    assert text.endswith("\n")  # the prompt goes on a line of its own
    return text.removesuffix("\n").split("\n"), used


def _fits(lines: list[str], width: int, height: int) -> None:
    assert len(lines) <= height - 1  # a line is left for the prompt
    assert max(cell_len(line) for line in lines) <= width


def _qwirkle(*cells: tuple[int, int]) -> game_pb2.Game:
    """Returns a game whose board holds a tile at each cell, in that order."""
    game = new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana", "Ben", "Cy")
    public = game.qwirkle_view.public_state
    for index, (x, y) in enumerate(cells):
        tile = q.QwirkleTile(color=COLOURS[index % 3], shape=SHAPES[index % 3])
        public.board.add(tile=tile, at=common_pb2.Coordinate(x=x, y=y))
    public.rack_sizes.extend([6, 6, 6])
    return game


def _row(lines: list[str], y: int) -> str:
    return next(line for line in lines if line[:4].strip() == str(y))


def _labels(lines: list[str]) -> list[str]:
    return next(line for line in lines if line.startswith("y\\x")).split()[1:]


# A late board: 31 columns of tiles, 10 rows, the last tile placed at -12,9.
WIDE = (*((x, x % 5) for x in range(-14, 17)), (-12, 9))


def test_a_late_qwirkle_board_is_windowed_around_the_last_tile() -> None:
    game = _qwirkle(*WIDE)
    log = log_text([f"r{n}: Ana placed a tile" for n in range(1, 30)])
    lines, used = _frame(80, 24, render_game(game, None, ME), log, MENU)
    _fits(lines, 80, 24)
    assert used == Pan()
    labels = _labels(lines)
    assert "-12" in labels
    assert "16" not in labels  # the far right is out of the window
    assert _row(lines, 9)  # the last tile's row is shown
    assert lines[-5:] == MENU.plain.split("\n")  # the moves are never cut


def test_labels_below_minus_nine_stay_apart() -> None:
    lines, _ = _frame(200, 60, render_game(_qwirkle(*WIDE), None, ME))
    labels = _labels(lines)
    assert labels[:4] == ["-15", "-14", "-13", "-12"]
    assert labels[-1] == "17"


def test_panning_moves_the_window_and_stops_at_the_edge() -> None:
    game = _qwirkle(*WIDE)
    table = render_game(game, None, ME)
    _, used = _frame(80, 24, table, MENU, pan=Pan(0, 1))
    assert used == Pan(0, 1)
    right, used = _frame(80, 24, table, MENU, pan=Pan(0, 50))
    assert "17" in _labels(right)  # the right edge, and no further
    assert used.columns < 50
    again, _ = _frame(80, 24, table, MENU, pan=Pan(0, used.columns))
    assert again == right
    back, _ = _frame(80, 24, table, MENU, pan=Pan(0, used.columns - 1))
    assert _labels(back) != _labels(right)  # one step back moves at once
    assert all(line.startswith(("y\\x", "  ", " -")) for line in right[2:9])


def test_panning_up_and_down_keeps_the_x_labels_in_view() -> None:
    table = render_game(_qwirkle(*WIDE), None, ME)
    up, _ = _frame(80, 24, table, MENU, pan=Pan(-9, 0))
    down, _ = _frame(80, 24, table, MENU, pan=Pan(9, 0))
    assert _row(up, -1)
    assert _row(down, 10)
    assert _labels(up) == _labels(down)


def test_the_log_takes_the_rows_left_over() -> None:
    game = _qwirkle((0, 0))
    log = log_text([f"r{n}: Ana placed a tile" for n in range(1, 101)])
    tall, _ = _frame(100, 60, render_game(game, None, ME), log, MENU)
    _fits(tall, 100, 60)
    assert len(tall) == 59  # the log fills the screen
    assert tall[-6] == "r100: Ana placed a tile"  # newest last
    short, _ = _frame(80, 24, render_game(_qwirkle(*WIDE), None, ME), log, MENU)
    shown = [line for line in short if line.startswith("r")]
    assert shown == ["r100: Ana placed a tile"][: len(shown)]  # none, or the newest


def _crowded() -> game_pb2.Game:
    """Returns a late Qwirkle game with a long id, seen from Ana's seat."""
    game = _qwirkle(*WIDE)
    game.name = "games/afdfa25f-865d-5edb-99e9-966107dba45c"
    game.revision, game.move_count = 27, 5
    for player in game.players:
        player.name = f"{game.name}/players/{player.seat}"
    tile = q.QwirkleTile(color=COLOURS[0], shape=SHAPES[0])
    game.qwirkle_view.private_state.rack.extend([tile] * 6)
    return game


def test_on_a_turn_the_log_and_moves_leave_the_scores_and_the_rack() -> None:
    game = _crowded()
    log = log_text([f"r{n}: Ana placed a tile" for n in range(1, 30)])
    error = Text("MOVE_NOT_UNDOABLE: the move revealed tiles")
    table = render_game(game, None, f"{game.name}/players/0")
    lines, _ = _frame(80, 24, table, log, MENU, error)
    _fits(lines, 80, 24)
    assert lines[0].startswith("Qwirkle  games/afdfa25f…  in progress  revision 27")
    assert [line.split()[0] for line in lines if line.endswith(" 0")] == [
        "Ana",
        "Ben",
        "Cy",
    ]
    assert any(line.startswith("Your rack: ") for line in lines)
    assert lines[-6:] == [*MENU.plain.split("\n"), error.plain]
    assert _row(lines, 9)  # a window of the board, around the last tile


def test_the_header_fits_one_line_and_is_never_cropped() -> None:
    game = _crowded()
    me = f"{game.name}/players/0"
    wide, _ = _frame(120, 24, render_game(game, None, me))
    assert wide[0].endswith(
        f"{game.name}  in progress  revision 27, move 5  you are Ana"
    )
    narrow, _ = _frame(80, 24, render_game(game, None, me))
    assert narrow[0] == (
        "Qwirkle  games/afdfa25f…  in progress  revision 27, move 5  you are Ana"
    )
    tiny, _ = _frame(60, 24, render_game(game, None, me))
    assert tiny[0] == "Qwirkle  games/afdfa25f…  in progress  revision 27, move 5"
    tallest = Text("\n".join(f"move {n}" for n in range(30)))
    crowded, _ = _frame(80, 12, render_game(game, None, me), tallest)
    assert crowded[0].startswith("Qwirkle  games/")


def test_a_table_without_a_board_scrolls_and_the_rest_stays() -> None:
    table = Text("\n".join(f"line {n}" for n in range(40)))
    top, used = _frame(60, 20, table, MENU)
    assert top[0] == "line 0"
    assert used == Pan()
    lower, used = _frame(60, 20, table, MENU, pan=Pan(3, 0))
    assert lower[0] != "line 0"
    assert used == Pan(3, 0)
    bottom, used = _frame(60, 20, table, MENU, pan=Pan(99, 0))
    assert bottom[-6] == "line 39"
    assert bottom[-5:] == MENU.plain.split("\n")
    assert used.lines < 99


def test_long_lines_wrap_and_a_wide_board_is_cut_to_the_width() -> None:
    board = Board(Text("\n".join("#" * 300 for _ in range(5))))
    lines, _ = _frame(50, 20, Focused(board, Focus(2, 290)), Text("x " * 100))
    _fits(lines, 50, 20)
    assert lines[0] == "#" * 50


def test_hues_and_cues_keeps_the_target_in_view() -> None:
    game = new_game(game_pb2.GAME_TYPE_HUES_AND_CUES, "Ana", "Ben", "Cy")
    view = game.hues_and_cues_view
    view.target.CopyFrom(hues_and_cues_pb2.HuesAndCuesSquare(id="O28", row=14))
    view.target.column = 27
    lines, _ = _frame(50, 24, render_game(game, None, ME), MENU)
    _fits(lines, 50, 24)
    rows = [line[0] for line in lines if line[:1].isalpha() and line[1:2] == " "]
    assert "O" in rows
    assert "A" not in rows


@pytest.mark.parametrize(
    ("typed", "pan"),
    [
        ("<", Pan(1, 1)),
        ("<<<", Pan(1, -1)),
        (">", Pan(1, 3)),
        ("^", Pan(0, 2)),
        ("vv", Pan(3, 2)),
        (".", Pan()),
    ],
)
def test_pan_commands(typed: str, pan: Pan) -> None:
    assert panned(typed, Pan(1, 2)) == pan


@pytest.mark.parametrize("typed", ["", "<>", "v1", "1", "vote", "< <"])
def test_other_lines_are_no_pan(typed: str) -> None:
    assert panned(typed, Pan()) is None


def test_the_move_list_pages_by_the_terminals_height() -> None:
    assert menu_rows(24) == 5
    assert menu_rows(10) == 3
    assert menu_rows(200) == 12
    moves = [move_pb2.Move(qwirkle=q.QwirkleMove(pass_turn=q.QwirklePass()))] * 40
    menu = with_page_size(menu_of(moves, 3), 12)
    paged = with_page_size(replace(menu, page=2), 5)
    assert paged.page_size == 5
    assert paged.page * 5 <= 24 < (paged.page + 1) * 5  # move 25 is still shown


def test_the_pan_keys_are_named_only_when_something_pans() -> None:
    keys = Keys(("7 legal moves",), ("q: quit",))
    short, _ = _frame(80, 24, Text("Split: no board\nscores"), MENU, keys)
    assert short[-1] == "7 legal moves   q: quit"
    tall = Text("\n".join(f"line {n}" for n in range(40)))
    scrolled, _ = _frame(80, 24, tall, MENU, keys)
    assert scrolled[-1] == "7 legal moves   <, >, ^, v: pan   q: quit"
    board, _ = _frame(80, 24, render_game(_qwirkle(*WIDE), None, ME), MENU, keys)
    assert board[-1] == "7 legal moves   <, >, ^, v: pan   q: quit"
    small, _ = _frame(80, 24, render_game(_qwirkle((0, 0)), None, ME), MENU, keys)
    assert small[-1] == "7 legal moves   q: quit"


def test_a_replays_revision_line_shows_under_a_board_too_tall() -> None:
    status = Text("revision 284/284  the game finished; won by Ana")
    table = Group(render_game(_crowded(), None), status)
    help_line = Keys(
        ("n or Enter next   p previous   g N go to revision N",), ("q quit",)
    )
    lines, _ = _frame(80, 24, table, help_line, Text("the last revision"))
    _fits(lines, 80, 24)
    assert lines[0].startswith("Qwirkle  games/")
    assert status.plain in lines
    assert lines[-2].endswith("<, >, ^, v: pan   q quit")
