"""The Hues and Cues board in true colour, with guesses, target, frame and cues."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from tabletop.v1 import game_pb2, game_type_pb2, hues_and_cues_pb2

from infra.terminal.render import hint, render_game, typed_move
from infra.terminal.render_hues_and_cues import ROW_LETTERS, square_id
from tests.unit.infra.terminal.drawing import fitted, new_game, screen

h = hues_and_cues_pb2


def _rgb(row: int, column: int) -> tuple[int, int, int]:
    return (row * 16, column * 8, 200)


def _info() -> game_type_pb2.GameTypeInfo:
    catalog = h.HuesAndCuesCatalog(rows=16, columns=30)
    for row in range(16):
        for column in range(30):
            red, green, blue = _rgb(row, column)
            catalog.squares.add(
                square=h.HuesAndCuesSquare(
                    id=square_id(row, column), row=row, column=column
                ),
                hex=f"#{red:02X}{green:02X}{blue:02X}",
                red=red,
                green=green,
                blue=blue,
            )
    return game_type_pb2.GameTypeInfo(
        game_type=game_pb2.GAME_TYPE_HUES_AND_CUES, hues_and_cues=catalog
    )


def _square(name: str) -> hues_and_cues_pb2.HuesAndCuesSquare:
    row = ROW_LETTERS.index(name[0])
    return h.HuesAndCuesSquare(id=name, row=row, column=int(name[1:]) - 1)


def _game() -> game_pb2.Game:
    game = new_game(game_pb2.GAME_TYPE_HUES_AND_CUES, "Ana", "Ben", "Cy")
    view = game.hues_and_cues_view
    view.phase = h.HUES_AND_CUES_PHASE_SECOND_GUESSES
    view.round, view.regular_rounds = 2, 6
    view.cue_giver = "games/g1/players/0"
    view.cues.extend(["ocean", "deep sea"])
    view.pieces.add(player="games/g1/players/1", guess_no=1, square=_square("H15"))
    view.pieces.add(player="games/g1/players/2", guess_no=2, square=_square("A1"))
    return game


def _row(text: str, letter: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"{letter} "))


def _at(text: str, name: str) -> str:
    column = int(name[1:]) - 1
    start = 2 + 2 * column
    return _row(text, name[0])[start : start + 2]


def test_every_guess_is_drawn_with_its_players_marker_on_its_square() -> None:
    text, _ = screen(render_game(_game(), _info(), "games/g1/players/0"))
    assert _at(text, "H15") == "b1"
    assert _at(text, "A1") == "c2"
    assert "a1/a2 Ana  b1/b2 Ben  c1/c2 Cy" in text


def test_the_board_shows_all_480_squares_in_true_colour() -> None:
    _, styled = screen(render_game(_game(), _info()))
    for row, column in ((0, 0), (7, 14), (15, 29), (3, 22)):
        assert "48;2;{};{};{}m".format(*_rgb(row, column)) in styled
    rows = [line for line in styled.splitlines() if "48;2;" in line]
    assert len(rows) == 16


def test_the_round_and_the_cues_are_shown() -> None:
    text, _ = screen(render_game(_game(), _info()))
    assert (
        'round 2/6  second guesses  cue giver Ana  cues: "ocean" / "deep sea"' in text
    )


def test_a_scored_round_shows_its_target_frame_and_pieces() -> None:
    game = _game()
    view = game.hues_and_cues_view
    view.ClearField("pieces")
    view.phase = h.HUES_AND_CUES_PHASE_FIRST_CUE
    last = view.last_round
    last.round, last.pieces_in_frame = 1, 1
    last.target.CopyFrom(_square("D10"))
    piece = h.HuesAndCuesPiece(player="games/g1/players/1", guess_no=1)
    piece.square.CopyFrom(_square("E11"))
    last.pieces.add(piece=piece, distance=1, points=2)
    last.points.add(player="games/g1/players/1", points=2)
    text, _ = screen(render_game(game, _info()))
    assert _at(text, "D10") == "()"
    assert _at(text, "E11") == "b1"
    assert {_at(text, s) for s in ("C9", "C10", "C11", "D9", "D11", "E9", "E10")} == {
        ".."
    }
    assert _at(text, "F12") == "  "
    assert "round 1 scored: target D10, 1 piece(s) in the frame; Ben +2" in text


def test_the_cue_giver_sees_their_card_and_target() -> None:
    game = _game()
    view = game.hues_and_cues_view
    view.ClearField("pieces")
    view.card.squares.extend([_square("B3"), _square("C20")])
    view.target.CopyFrom(_square("C20"))
    text, _ = screen(render_game(game, _info(), "games/g1/players/0"))
    assert _at(text, "B3") == "<>"
    assert _at(text, "C20") == "()"
    assert "your target C20" in text


def test_without_the_catalogue_the_board_is_still_drawn() -> None:
    text, _ = screen(render_game(_game(), None))
    assert _at(text, "H15") == "b1"


def test_the_cue_givers_example_is_a_square_of_their_own_card() -> None:
    game = _game()
    view = game.hues_and_cues_view
    view.phase = h.HUES_AND_CUES_PHASE_FIRST_CUE
    view.card.squares.extend([_square("B3"), _square("C20")])
    example = hint(game)
    assert "or type a target and a cue: B3 ocean" in example
    assert typed_move(game, "B3 ocean", []) is not None  # as typed, it plays


def test_a_long_scored_round_wraps_on_an_80_column_screen() -> None:
    game = _game()
    for player in game.players:
        player.display_name = f"Player {player.display_name}"
    last = game.hues_and_cues_view.last_round
    last.round, last.pieces_in_frame = 1, 0
    last.target.CopyFrom(_square("G19"))
    for player in game.players:
        last.points.add(player=player.name, points=1)
    moves = Text("\n".join(f"{n:>4}  guess A{n}" for n in range(1, 10)))
    lines = fitted(80, 24, render_game(game, _info()), moves)
    assert "  games/g1  in progress" in lines[0]
    assert lines[-9:] == moves.plain.split("\n")
    text = " ".join(line.strip() for line in lines)
    assert "Player Ana +1, Player Ben +1, Player Cy +1" in text
    assert max(cell_len(line) for line in lines) <= 80
