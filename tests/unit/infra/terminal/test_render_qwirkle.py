"""Qwirkle's grid, tile glyphs and colours, and the rack."""

from __future__ import annotations

from tabletop.v1 import common_pb2, event_pb2, game_pb2, move_pb2, qwirkle_pb2

from infra.terminal import render_qwirkle
from infra.terminal.render import describe_event, describe_move, render_game
from tests.unit.infra.terminal.drawing import new_game, screen

q = qwirkle_pb2
RED = (229, 57, 53)
BLUE = (30, 136, 229)


def _tile(color: q.QwirkleColor, shape: q.QwirkleShape) -> q.QwirkleTile:
    return q.QwirkleTile(color=color, shape=shape)


def _game() -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana", "Ben")
    game.current_player = "games/g1/players/0"
    public = game.qwirkle_view.public_state
    for color, shape, x, y in (
        (q.QWIRKLE_COLOR_RED, q.QWIRKLE_SHAPE_CIRCLE, 0, 0),
        (q.QWIRKLE_COLOR_RED, q.QWIRKLE_SHAPE_SQUARE, 1, 0),
        (q.QWIRKLE_COLOR_BLUE, q.QWIRKLE_SHAPE_CIRCLE, 0, -1),
    ):
        public.board.add(tile=_tile(color, shape), at=common_pb2.Coordinate(x=x, y=y))
    public.bag_size = 93
    public.rack_sizes.extend([6, 6])
    game.qwirkle_view.private_state.rack.extend(
        [
            _tile(q.QWIRKLE_COLOR_GREEN, q.QWIRKLE_SHAPE_CLOVER),
            _tile(q.QWIRKLE_COLOR_PURPLE, q.QWIRKLE_SHAPE_STARBURST),
        ]
    )
    return game


def _cell(text: str, x: int, y: int) -> str:
    """Returns the character drawn at grid cell (x, y)."""
    lines = text.splitlines()
    head = next(line for line in lines if line.startswith("y\\x"))
    labels = head.split()[1:]
    column = len("y\\x ") + render_qwirkle.CELL * (labels.index(str(x)) + 1) - 1
    row = next(line for line in lines if line[:4].strip() == str(y) and "·" in line)
    return row[column]


def test_each_tile_is_drawn_with_its_glyph_at_its_coordinates() -> None:
    text, _ = screen(render_game(_game(), None, "games/g1/players/0"))
    assert _cell(text, 0, 0) == "●"
    assert _cell(text, 1, 0) == "■"
    assert _cell(text, 0, -1) == "●"
    assert _cell(text, -1, 0) == "·"  # the free ring around the tiles
    assert _cell(text, 2, 1) == "·"


def test_tiles_are_coloured_in_true_colour() -> None:
    _, styled = screen(render_game(_game(), None, "games/g1/players/0"))
    assert "38;2;{};{};{}m●".format(*RED) in styled
    assert "38;2;{};{};{}m■".format(*RED) in styled
    assert "38;2;{};{};{}m●".format(*BLUE) in styled


def test_the_callers_rack_bag_and_scores_are_shown() -> None:
    text, _ = screen(render_game(_game(), None, "games/g1/players/0"))
    assert "Your rack: ♣ green clover  ✸ purple starburst" in text
    assert "bag 93 tiles; racks: Ana 6, Ben 6" in text
    assert "▶  Ana" in text
    assert "you are Ana" in text


def test_a_spectator_sees_no_rack() -> None:
    game = _game()
    game.qwirkle_view.ClearField("private_state")
    text, _ = screen(render_game(game, None))
    assert "Your rack" not in text


def test_an_empty_grid_says_where_the_first_move_goes() -> None:
    game = new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana", "Ben")
    game.qwirkle_view.public_state.bag_size = 96
    text, _ = screen(render_game(game, None))
    assert "the first move covers 0,0" in text


def test_every_shape_has_its_own_glyph() -> None:
    glyphs = [glyph for _, glyph in render_qwirkle.SHAPES.values()]
    assert len(set(glyphs)) == 6


def test_moves_and_events_read_as_sentences() -> None:
    tile = _tile(q.QWIRKLE_COLOR_RED, q.QWIRKLE_SHAPE_DIAMOND)
    place = move_pb2.Move(
        qwirkle=q.QwirkleMove(
            place_tiles=q.QwirklePlaceTiles(
                placements=[
                    q.QwirklePlacement(tile=tile, at=common_pb2.Coordinate(x=2))
                ]
            )
        )
    )
    assert describe_move(place).plain == "place ◆ red diamond at 2,0"
    swap = move_pb2.Move(
        qwirkle=q.QwirkleMove(exchange_tiles=q.QwirkleExchangeTiles(tiles=[tile]))
    )
    assert describe_move(swap).plain == "exchange ◆ red diamond"
    event = event_pb2.GameEvent(
        revision=9,
        qwirkle=q.QwirkleEvent(
            turn_scored=q.QwirkleTurnScored(player="games/g1/players/1", points=5)
        ),
    )
    assert describe_event(event, {"games/g1/players/1": "Ben"}) == "Ben scored 5"


def test_the_focus_is_the_glyph_of_the_tile_placed_last() -> None:
    game = _game()
    focus = render_qwirkle.focus(game)
    assert focus is not None
    text, _ = screen(render_qwirkle.grid(game.qwirkle_view.public_state.board))
    assert text.splitlines()[focus.line][focus.column] == "●"  # blue circle, 0,-1
    assert focus.line == 2  # y = -1, under the x labels and the free row y = -2
    assert render_qwirkle.focus(new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana")) is None


def test_columns_widen_so_that_labels_below_minus_nine_stay_apart() -> None:
    game = _game()
    game.qwirkle_view.public_state.board.add(
        tile=_tile(q.QWIRKLE_COLOR_RED, q.QWIRKLE_SHAPE_CLOVER),
        at=common_pb2.Coordinate(x=-11, y=0),
    )
    text, _ = screen(render_game(game, None))
    labels = next(line for line in text.splitlines() if line.startswith("y\\x"))
    assert labels.split()[1:4] == ["-12", "-11", "-10"]
    focus = render_qwirkle.focus(game)
    assert focus is not None
    assert text.splitlines()[focus.line + 1][focus.column] == "♣"  # under the header
