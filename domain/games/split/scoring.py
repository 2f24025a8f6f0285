"""The score sheet: row values, totals and the final ranking (spec §1.3, §5; pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.common.rules import top_seats
from domain.games.split.model import (
    NEGATIVE_POINTS,
    ROW_BOXES,
)


def row_value(marks: int) -> int:
    """Returns a rank row's value: ``T(min(m, 8))`` (§1.3, D9)."""
    filled = min(marks, ROW_BOXES)
    return filled * (filled + 1) // 2


def total(rows: Sequence[int], negatives: int) -> int:
    """Returns a sheet's total: the row values less 2 per negative mark (§1.3, D10)."""
    return sum(row_value(marks) for marks in rows) - NEGATIVE_POINTS * negatives


def totals(marks: Sequence[Sequence[int]], negatives: Sequence[int]) -> tuple[int, ...]:
    """Returns every seat's total."""
    return tuple(total(rows, neg) for rows, neg in zip(marks, negatives, strict=True))


def winners(
    scores: Sequence[int],
    negatives: Sequence[int],
    seats: Iterable[int] | None = None,
) -> tuple[int, ...]:
    """Returns the winners: best total, then fewer negative marks, then shared (D15).

    Only ``seats`` compete when given; by default every seat does.
    """
    if len(scores) != len(negatives):
        msg = "one total and one negative count per seat"
        raise ValueError(msg)
    among = range(len(scores)) if seats is None else seats
    return top_seats(among, lambda seat: (scores[seat], -negatives[seat]))
