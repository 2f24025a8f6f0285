"""The 100 generated cue cards C001..C100 (spec §1.3, D3).

Card k takes one square from each quadrant j with ``q = (a_j * (k - 1) + b_j)
mod 120``; the 400 squares are all different and 80 squares are on no card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from domain.games.hues_and_cues.board import Square

CARD_COUNT = 100
SQUARES_PER_CARD = 4
_QUADRANT_SIZE = 120
_QUADRANT_COLUMNS = 15
# (a_j, b_j, row offset, column offset) for quadrants j = 0..3.
_QUADRANTS = ((37, 0, 0, 0), (53, 17, 0, 15), (77, 41, 8, 0), (91, 73, 8, 15))


@dataclass(frozen=True, slots=True)
class CueCard:
    """A cue card: its id (``C001``) and its four squares, quadrant order."""

    id: str
    squares: tuple[Square, ...]


def card_id(k: int) -> str:
    """Returns the id of card k (1..100)."""
    return f"C{k:03d}"


def _card(k: int) -> CueCard:
    i = k - 1
    squares = []
    for a, b, row_offset, column_offset in _QUADRANTS:
        q = (a * i + b) % _QUADRANT_SIZE
        squares.append(
            Square(
                row_offset + q // _QUADRANT_COLUMNS,
                column_offset + q % _QUADRANT_COLUMNS,
            )
        )
    return CueCard(card_id(k), tuple(squares))


# The deck in canonical order (DESIGN §4: C001..C100).
DECK: tuple[CueCard, ...] = tuple(_card(k) for k in range(1, CARD_COUNT + 1))
CARDS: Mapping[str, CueCard] = MappingProxyType({card.id: card for card in DECK})
