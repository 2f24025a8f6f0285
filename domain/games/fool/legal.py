"""The follow rule and every legal command of a seat (spec §3.2, D10).

Cards come in the canonical order of the hand: green, red, yellow, blue by
value, then wild 1s by copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from domain.games.fool.model import (
    Card,
    Color,
    Command,
    Phase,
    PlayCard,
    State,
    TrickCard,
    lead_color,
)


def must_follow(hand: Iterable[Card], trick: Iterable[TrickCard]) -> Color | None:
    """Returns the colour ``hand`` must follow in ``trick``, None if free (D10).

    Following is compulsory only while the lead colour is defined and the hand
    holds a card of it; wild 1s are always allowed and never compulsory.
    """
    lead = lead_color(trick)
    if lead is not None and any(card.color is lead for card in hand):
        return lead
    return None


def follows(card: Card, required: Color | None) -> bool:
    """Returns whether ``card`` obeys a follow requirement (None: anything goes)."""
    return required is None or card.wild or card.color is required


def playable(hand: Iterable[Card], trick: Iterable[TrickCard]) -> tuple[Card, ...]:
    """Returns the cards of ``hand`` that may be played into ``trick`` now."""
    cards = tuple(hand)
    required = must_follow(cards, trick)
    return tuple(card for card in cards if follows(card, required))


def legal_moves(state: State, seat: int) -> Iterator[Command]:
    """Yields every command ``decide`` accepts from ``seat`` now."""
    if state.phase is not Phase.PLAY or seat != state.to_move:
        return
    for card in playable(state.hands[seat], state.trick):
        yield PlayCard(seat, card)
