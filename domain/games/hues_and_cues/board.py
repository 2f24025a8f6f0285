"""The 16 x 30 board: squares, their names, distance and colours (spec §1.1, §1.2).

Rows are lettered A (top) to P, columns numbered 1 (left) to 30 (D1). Colours
are presentation only (D2): no rule reads them. A square has one name
(``H15``): ``square_named`` reads only that, as the API does (D30), while
``parse_square`` also reads the other ways a person may type it (``h 15``,
``H07``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from math import floor

ROWS = 16
COLUMNS = 30
ROW_LETTERS = "ABCDEFGHIJKLMNOP"
_SQUARE = re.compile(r"([A-Pa-p]) ?([0-9]{1,2})")


@dataclass(frozen=True, slots=True, order=True)
class Square:
    """A square: ``row`` 0..15 (A..P) and ``column`` 0..29 (column 1 is 0)."""

    row: int
    column: int

    def __str__(self) -> str:
        return f"{ROW_LETTERS[self.row]}{self.column + 1}"

    @property
    def id(self) -> str:
        """Returns the square's name, ``A1`` to ``P30`` (§1.1)."""
        return str(self)


def on_board(row: int, column: int) -> bool:
    """Returns whether ``(row, column)`` is one of the 480 squares."""
    return 0 <= row < ROWS and 0 <= column < COLUMNS


def parse_square(text: str) -> Square | None:
    """Returns the square ``text`` names, None if it names none.

    Lenient, for what a person types (§1.1): either case, one optional space
    and a leading zero (``H15``, ``h 15``, ``H07``).
    """
    found = _SQUARE.fullmatch(text)
    if found is None:
        return None
    row = ROW_LETTERS.index(found.group(1).upper())
    column = int(found.group(2)) - 1
    return Square(row, column) if on_board(row, column) else None


def distance(a: Square, b: Square) -> int:
    """Returns the Chebyshev distance: diagonal neighbours are 1 apart (§1.1)."""
    return max(abs(a.row - b.row), abs(a.column - b.column))


ALL_SQUARES: tuple[Square, ...] = tuple(
    Square(row, column) for row in range(ROWS) for column in range(COLUMNS)
)
_BY_NAME = {str(square): square for square in ALL_SQUARES}


def square_named(name: str) -> Square | None:
    """Returns the square whose name is exactly ``name`` (``H15``), else None (D30).

    One spelling per square: a capital row letter, then the column number
    without a leading zero, nothing else.
    """
    return _BY_NAME.get(name)


def _channel(value: Fraction) -> int:
    return floor(value * 255 + Fraction(1, 2))


def _rgb(square: Square) -> tuple[int, int, int]:
    """Computes a square's colour with exact rational arithmetic (§1.2)."""
    hue = 12 * square.column
    lightness = Fraction(90 - 5 * square.row, 100)
    saturation = Fraction(85, 100)
    chroma = (1 - abs(2 * lightness - 1)) * saturation
    sector = Fraction(hue, 60)
    x = chroma * (1 - abs(sector % 2 - 1))
    m = lightness - chroma / 2
    zero = Fraction(0)
    r1, g1, b1 = (
        (chroma, x, zero),
        (x, chroma, zero),
        (zero, chroma, x),
        (zero, x, chroma),
        (x, zero, chroma),
        (chroma, zero, x),
    )[floor(sector)]
    return (_channel(r1 + m), _channel(g1 + m), _channel(b1 + m))


COLORS: tuple[tuple[int, int, int], ...] = tuple(_rgb(s) for s in ALL_SQUARES)


def color(square: Square) -> tuple[int, int, int]:
    """Returns a square's ``(red, green, blue)``, each 0..255."""
    return COLORS[square.row * COLUMNS + square.column]


def hex_color(square: Square) -> str:
    """Returns a square's colour as upper-case ``#RRGGBB``."""
    red, green, blue = color(square)
    return f"#{red:02X}{green:02X}{blue:02X}"
