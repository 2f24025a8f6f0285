"""Gnoming A Round bot: keep the card that lowers the layout's expected score most.

The bot scores a layout with the game's own scoring, a face-down card counting
as the mean of the cards it has not seen (and as part of no set). A held card
goes where it lowers that estimate most, and a drawn card is rejected when it
lowers nothing. A discard top is taken when keeping it gains more than a blind
draw is expected to; a bounce is made when it gains. A move that turns the last
face-down card up counts the first-out adjustment against the other layouts'
estimates. Discards cover the more useful top card, hazard answers flip a card
(free information), and the initial flip takes the first pair.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from domain.games.gnoming_a_round.cards import CANONICAL, HAZARD_POINTS, Card, Kind
from domain.games.gnoming_a_round.model import (
    FIRST_OUT_BONUS,
    FIRST_OUT_PENALTY,
    POSITIONS,
    Bounce,
    Command,
    Discard,
    DrawFromPile,
    Keep,
    Phase,
    Reject,
    StopBounce,
    TakeFromDiscard,
)
from domain.games.gnoming_a_round.scoring import score_layout
from domain.games.gnoming_a_round.views import GnomingARoundView

NAME = "gnoming_a_round"
_UNKNOWN = Card(Kind.HAZARD, 0, 0)  # stands in for a face-down card: in no set
EVERY_POSITION = range(POSITIONS)

Shown = tuple[Card | None, ...]  # a layout as the view shows it: None is face down


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What the bot reads from its view: layouts, unseen cards, the round's end."""

    seat: int
    layouts: tuple[Shown, ...]
    unseen: tuple[Card, ...]
    hidden_mean: float  # a face-down card's expected points: the unseen cards' mean
    triggered: bool


def choose(view: GnomingARoundView, moves: Sequence[Command]) -> Command:
    """Returns the bot's command for the phase its view shows."""
    known = knowledge(view, moves[0].seat)
    match view.public.phase:
        case Phase.DRAW:
            return _draw(view, known, moves)
        case Phase.DECIDE:
            held = view.public.held_card
            if view.private is not None and view.private.drawn_card is not None:
                held = view.private.drawn_card
            return _decide(known, held, moves)
        case Phase.BOUNCE:
            return _bounce(known, view.public.held_card, moves)
        case Phase.DISCARD:
            return _discard(view, moves)
        case _:
            return moves[0]  # initial flip, hazard answer: the first face-down card


def knowledge(view: GnomingARoundView, seat: int) -> Knowledge:
    """Returns what a seat's view tells: every face-up card and the unseen rest."""
    public = view.public
    seen = {c for layout in public.layouts for c in layout if c is not None}
    seen.update(c for c in public.discard_tops if c is not None)
    seen.update(public.removed)
    if public.held_card is not None:
        seen.add(public.held_card)
    if view.private is not None and view.private.drawn_card is not None:
        seen.add(view.private.drawn_card)
    unseen = tuple(c for c in CANONICAL if c not in seen)
    return Knowledge(
        seat=seat,
        layouts=public.layouts,
        unseen=unseen,
        hidden_mean=sum(c.points for c in unseen) / max(len(unseen), 1),
        triggered=public.round_end_trigger is not None,
    )


def estimate(known: Knowledge, layout: Shown) -> float:
    """Returns a layout's expected step-4 score (§4.1), face-down cards averaged."""
    cards = [_UNKNOWN if card is None else card for card in layout]
    hidden = sum(1 for card in layout if card is None)
    return score_layout(cards).points + (known.hidden_mean - HAZARD_POINTS) * hidden


def gain(known: Knowledge, card: Card, position: int) -> float:
    """Returns how much keeping ``card`` at ``position`` lowers the bot's estimate."""
    before = known.layouts[known.seat]
    after = (*before[:position], card, *before[position + 1 :])
    mine = estimate(known, after)
    result = estimate(known, before) - mine
    if None not in after and not known.triggered:
        others = [estimate(known, lay) for s, lay in enumerate(known.layouts)]
        lower = any(v < mine for s, v in enumerate(others) if s != known.seat)
        result -= FIRST_OUT_PENALTY if lower else FIRST_OUT_BONUS
    return result


def best_gain(known: Knowledge, card: Card, positions: Sequence[int]) -> float:
    """Returns the most a card gains at any of ``positions`` (0 with none)."""
    return max((gain(known, card, p) for p in positions), default=0.0)


def draw_value(known: Knowledge) -> float:
    """Returns a blind draw's expected gain: each unseen card kept well or rejected."""
    kinds = Counter((c.kind, c.value) for c in known.unseen)
    shows_mulligan = any(
        c is not None and c.kind is Kind.MULLIGAN for c in known.layouts[known.seat]
    )
    total = 0.0
    for (kind, value), count in kinds.items():
        if kind is Kind.MULLIGAN and shows_mulligan:
            continue  # D12: it could only be rejected
        card = Card(kind, value, 0)
        total += count * max(0.0, best_gain(known, card, EVERY_POSITION))
    return total / max(len(known.unseen), 1)


def _draw(
    view: GnomingARoundView, known: Knowledge, moves: Sequence[Command]
) -> Command:
    """Takes a discard top worth more than a blind draw, else draws."""
    takes = [m for m in moves if isinstance(m, TakeFromDiscard)]
    draw = next((m for m in moves if isinstance(m, DrawFromPile)), None)
    values: dict[TakeFromDiscard, float] = {}
    for move in takes:
        top = view.public.discard_tops[move.pile - 1]
        values[move] = 0.0 if top is None else best_gain(known, top, EVERY_POSITION)
    best = max(takes, key=values.__getitem__, default=None)
    if best is None:
        return draw if draw is not None else moves[0]
    if draw is None or values[best] > draw_value(known):
        return best
    return draw


def _decide(known: Knowledge, held: Card | None, moves: Sequence[Command]) -> Command:
    """Keeps the held card where it gains most; rejects a draw that gains nothing."""
    keeps = [m for m in moves if isinstance(m, Keep)]
    reject = next((m for m in moves if isinstance(m, Reject)), None)
    if held is None or not keeps:
        return reject if reject is not None else moves[0]
    best = max(keeps, key=lambda m: gain(known, held, m.position))
    if reject is not None and gain(known, held, best.position) <= 0:
        return reject
    return best


def _bounce(known: Knowledge, card: Card | None, moves: Sequence[Command]) -> Command:
    """Bounces the displaced card where it gains, else stops the chain."""
    bounces = [m for m in moves if isinstance(m, Bounce)]
    stop = next((m for m in moves if isinstance(m, StopBounce)), moves[0])
    if card is None or not bounces:
        return stop
    best = max(bounces, key=lambda m: gain(known, card, m.position))
    return best if gain(known, card, best.position) > 0 else stop


def _discard(view: GnomingARoundView, moves: Sequence[Command]) -> Command:
    """Covers the discard top the next player would like most (fewest points)."""
    discards = [m for m in moves if isinstance(m, Discard) and m.pile is not None]
    if len(discards) < len(moves) or not discards:
        return moves[0]
    tops = view.public.discard_tops

    def appeal(move: Discard) -> int:
        top = tops[(move.pile or 1) - 1]
        return -(top.points if top is not None else HAZARD_POINTS)

    return max(discards, key=appeal)
