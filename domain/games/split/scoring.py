"""The score sheet: row values, totals and the final ranking (spec §1.3, §5; pure)."""

from __future__ import annotations

from collections.abc import Sequence

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


def winners(scores: Sequence[int], negatives: Sequence[int]) -> tuple[int, ...]:
    """Returns the winners: best total, then fewer negative marks, then shared (D15)."""
    best = max(zip(scores, (-n for n in negatives), strict=True))
    return tuple(
        seat
        for seat, key in enumerate(zip(scores, (-n for n in negatives), strict=True))
        if key == best
    )
