"""Fool! bot: stay out of the Fool's seat, and shed the costliest card that allows.

A card is *safe* when, among the cards already in the trick, it would not be one
of the worst (the Fool's) were the trick to end now; for the last player of a
trick that is exact. Among safe cards the bot plays the one that would cost most
if left in hand. With no safe card it plays the strongest card in the trick's
ranking (a later player may still play worse), the costliest of equals; the
last player, whose card is the Fool's anyway, just sheds the costliest.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.games.fool.model import Command, TrickCard, lead_color, penalty
from domain.games.fool.scoring import worst_first
from domain.games.fool.views import FoolView

NAME = "fool"
_LEAD_COLOUR_RANK = 100  # any card of the lead colour outranks every other card


def choose(view: FoolView, moves: Sequence[Command]) -> Command:
    """Returns the card the bot plays into the current trick."""
    last = len(view.public.trick) + 1 == len(view.public.participants)
    return max(moves, key=lambda move: _rank(view, move, last=last))


def would_be_fool(view: FoolView, move: Command) -> bool:
    """Returns whether the card would take a Fool disc if the trick ended now."""
    trick = (*view.public.trick, TrickCard(move.seat, move.card))
    worst = worst_first(trick)[: view.public.discs]
    return len(trick) - 1 in worst


def strength(view: FoolView, move: Command) -> int:
    """Returns the card's place in the trick's ranking: lead colour first (§3.3)."""
    card = move.card
    lead = lead_color((*view.public.trick, TrickCard(move.seat, card)))
    follows = card.wild or card.color is lead
    return card.value + (_LEAD_COLOUR_RANK if follows else 0)


def _rank(view: FoolView, move: Command, *, last: bool) -> tuple[bool, int, int]:
    """Ranks a card: safe first; then cost, or strength when the risk is open."""
    safe = not would_be_fool(view, move)
    cost = penalty(move.card)
    if safe or last:
        return (safe, cost, 0)
    return (safe, strength(view, move), cost)
