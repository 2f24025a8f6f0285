"""Trick resolution, round points and the final ranking (spec §3.3, §4; pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.common.rules import top_seats
from domain.games.fool.events import TrickResolved
from domain.games.fool.model import (
    EMPTY_HAND_POINTS,
    SCORE_LIMIT,
    TEN_LIMIT,
    Card,
    EndReason,
    TrickCard,
    discs_in_use,
    lead_color,
    penalty,
)


def worst_first(trick: Sequence[TrickCard]) -> list[int]:
    """Returns the trick's card indices from the worst card to the best (§3.3).

    Off-colour cards rank below every card of the lead colour (wild 1s count as
    lead colour with value 1); then the lower value is worse; on equal values the
    card played later is worse (D4, D5). With no lead colour every card is a 1.
    """
    lead = lead_color(trick)

    def rank(index: int) -> tuple[bool, int, int]:
        card = trick[index].card
        return (card.wild or card.color is lead, card.value, -index)

    return sorted(range(len(trick)), key=rank)


def resolve(trick: Sequence[TrickCard], players: int) -> TrickResolved:
    """Returns the outcome of a complete trick: winner and Fools (§3.3, D3-D5)."""
    order = worst_first(trick)
    return TrickResolved(
        cards=tuple(trick),
        lead_color=lead_color(trick),
        winner=trick[order[-1]].seat,
        fools=tuple(trick[i].seat for i in order[: discs_in_use(players)]),
    )


def hand_points(hand: Sequence[Card], *, holds_disc: bool) -> int:
    """Returns a seat's round points (§4.1, D9).

    An empty hand scores +10, or 0 when its player holds a Fool disc after the
    last trick; otherwise minus the cards left (wild 1s cost 5 each).
    """
    if not hand:
        return 0 if holds_disc else EMPTY_HAND_POINTS
    return -sum(penalty(card) for card in hand)


def round_points(
    hands: Sequence[Sequence[Card]], fools: Sequence[int]
) -> tuple[int, ...]:
    """Returns every seat's points for a round that just ended."""
    return tuple(
        hand_points(hand, holds_disc=seat in fools) for seat, hand in enumerate(hands)
    )


def end_reasons(
    totals: Sequence[int], ten_counts: Sequence[int]
) -> tuple[EndReason, ...]:
    """Returns why the game ends after a round's scoring, empty if it goes on."""
    reasons: list[EndReason] = []
    if any(total <= SCORE_LIMIT for total in totals):
        reasons.append(EndReason.SCORE_LIMIT)
    if any(count >= TEN_LIMIT for count in ten_counts):
        reasons.append(EndReason.TEN_LIMIT)
    return tuple(reasons)


def winners(
    totals: Sequence[int],
    ten_counts: Sequence[int],
    seats: Iterable[int] | None = None,
) -> tuple[int, ...]:
    """Returns the winning seats: best total, then best ten count, then shared (D8).

    Only ``seats`` compete when given; by default every seat does.
    """
    if len(totals) != len(ten_counts):
        msg = "one total and one ten count per seat"
        raise ValueError(msg)
    among = range(len(totals)) if seats is None else seats
    return top_seats(among, lambda seat: (totals[seat], ten_counts[seat]))
