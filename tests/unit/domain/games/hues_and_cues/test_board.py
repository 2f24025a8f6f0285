"""The board: squares, names, distance and the colour table (spec §1.1, §1.2)."""

from __future__ import annotations

import hashlib

import pytest

from domain.games.hues_and_cues.board import (
    ALL_SQUARES,
    COLORS,
    Square,
    color,
    distance,
    hex_color,
    on_board,
    parse_square,
    square_named,
)


def test_the_board_has_480_distinct_squares_in_row_major_order() -> None:
    assert len(ALL_SQUARES) == len(set(ALL_SQUARES)) == 480
    assert str(ALL_SQUARES[0]) == "A1"
    assert str(ALL_SQUARES[29]) == "A30"
    assert str(ALL_SQUARES[-1]) == "P30"
    assert all(on_board(s.row, s.column) for s in ALL_SQUARES)


def test_every_square_name_parses_back_to_its_square() -> None:
    for square in ALL_SQUARES:
        assert parse_square(str(square)) == square
        assert square_named(str(square)) == square


@pytest.mark.parametrize(
    ("text", "square"),
    [
        ("H15", Square(7, 14)),
        ("h 15", Square(7, 14)),
        ("h15", Square(7, 14)),
        ("A01", Square(0, 0)),
    ],
)
def test_typed_names_are_read_in_either_case_with_one_space_or_a_zero(
    text: str, square: Square
) -> None:
    assert parse_square(text) == square
    assert square_named(str(square)) == square  # written back in its one name


@pytest.mark.parametrize("text", ["Q1", "A31", "A0", "", "H", "15", "H  15", "HH15"])
def test_names_of_no_square_are_refused(text: str) -> None:
    assert parse_square(text) is None
    assert square_named(text) is None


@pytest.mark.parametrize("text", ["h15", "H 15", "h 15", "A01", "P030", " H15", "H15 "])
def test_a_square_is_named_in_one_spelling_only(text: str) -> None:
    # D30: what a person may type is not a name; parse_square reads the first four.
    assert square_named(text) is None


def test_distance_is_chebyshev() -> None:
    h15 = Square(7, 14)
    assert distance(h15, h15) == 0
    assert distance(h15, Square(6, 13)) == 1  # diagonal neighbour
    assert distance(h15, Square(9, 12)) == 2
    assert distance(Square(0, 0), Square(15, 29)) == 29


@pytest.mark.parametrize(
    ("name", "rgb", "hex_"),
    [
        ("A1", (251, 208, 208), "#FBD0D0"),
        ("A16", (208, 251, 251), "#D0FBFB"),
        ("D20", (137, 159, 245), "#899FF5"),
        ("H1", (238, 43, 43), "#EE2B2B"),
        ("H15", (43, 238, 199), "#2BEEC7"),
        ("I8", (149, 236, 19), "#95EC13"),
        ("O26", (94, 8, 94), "#5E085E"),
        ("P1", (71, 6, 6), "#470606"),
        ("P30", (71, 6, 19), "#470613"),
    ],
)
def test_the_colour_vectors(name: str, rgb: tuple[int, int, int], hex_: str) -> None:
    square = parse_square(name)
    assert square is not None
    assert color(square) == rgb
    assert hex_color(square) == hex_


def test_the_colour_table_checksums() -> None:
    assert len(set(COLORS)) == 480
    assert sum(sum(rgb) for rgb in COLORS) == 192780
    text = "".join(f"{s}:{hex_color(s)}\n" for s in ALL_SQUARES)
    assert (
        hashlib.sha256(text.encode()).hexdigest()
        == "235342afa08bf1935c531e12fbded39c563672e4817595773aecd9297ff5e16f"
    )
