"""Round and game scoring (spec §4, D12-D14, D16). Pure helpers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.common.rules import top_seats
from domain.games.gnoming_a_round.cards import Card, Kind
from domain.games.gnoming_a_round.model import FIRST_OUT_BONUS, FIRST_OUT_PENALTY

# §1.2: the three rows and the three columns; diagonals never count (D13).
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
)


@dataclass(frozen=True, slots=True)
class LayoutScore:
    """A layout's step-4 score, its wild mulligan and the lines that are sets."""

    points: int
    wild: int | None
    sets: tuple[int, ...]  # indexes into LINES


def set_value(
    cards: Sequence[Card], line: Sequence[int], wild: int | None
) -> int | None:
    """Returns V when a line is a set of value V with this wild mulligan (§4.1 step 2).

    A set is three positives of one value, or two of them and the wild mulligan;
    a negative, a hazard or a dead mulligan spoils the line.
    """
    values: list[int] = []
    for position in line:
        card = cards[position]
        if card.kind is Kind.POSITIVE:
            values.append(card.value)
        elif card.kind is not Kind.MULLIGAN or position != wild:
            return None
    if len(values) >= len(line) - 1 and len(set(values)) == 1:
        return values[0]
    return None


def _score_with(cards: Sequence[Card], wild: int | None) -> LayoutScore:
    sets = []
    points = 0
    in_set: set[int] = set()
    for index, line in enumerate(LINES):
        value = set_value(cards, line, wild)
        if value is not None:
            sets.append(index)
            points -= value
            in_set.update(line)
    # Step 3 (D13): a card in one or two sets scores nothing itself.
    points += sum(c.points for p, c in enumerate(cards) if p not in in_set)
    return LayoutScore(points, wild, tuple(sets))


def score_layout(cards: Sequence[Card]) -> LayoutScore:
    """Returns a final layout's step-4 score (§4.1 steps 1-4).

    With mulligans, the wild one is the one giving the lowest score, the lowest
    position on a tie (D12); ``min`` keeps the first of equal scores.
    """
    mulligans = [p for p, card in enumerate(cards) if card.kind is Kind.MULLIGAN]
    options: list[int | None] = [*mulligans] if mulligans else [None]
    return min((_score_with(cards, wild) for wild in options), key=lambda s: s.points)


def first_out_adjustment(base_scores: Sequence[int], first_out: int) -> int:
    """Returns -5 if nobody scored strictly lower than ``first_out``, else +5 (D14)."""
    mine = base_scores[first_out]
    lower = any(
        score < mine for seat, score in enumerate(base_scores) if seat != first_out
    )
    return FIRST_OUT_PENALTY if lower else FIRST_OUT_BONUS


def winners(
    totals: Sequence[int],
    last_round: Sequence[int] | None,
    seats: Iterable[int] | None = None,
) -> tuple[int, ...]:
    """Returns the lowest totals' seats, narrowed by the third-round score (D16).

    Without ``last_round`` (the third round not yet scored) a tie on the totals
    is shared. Only ``seats`` compete when given; by default every seat does.
    """
    among = range(len(totals)) if seats is None else seats
    if last_round is None:
        return top_seats(among, lambda seat: (-totals[seat],))
    return top_seats(among, lambda seat: (-totals[seat], -last_round[seat]))
