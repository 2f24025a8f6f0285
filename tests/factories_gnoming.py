"""Tiny Gnoming A Round state builders for tests.

Cards are written as tokens: ``7`` (positive), ``-3`` (negative), ``H``
(hazard), ``M`` (mulligan); a leading ``~`` marks a face-down layout card. A
layout is nine tokens in position order; piles are written bottom first.
Every card a builder makes is a distinct copy, counted in the order layouts,
discard piles, draw pile, hand, removed, so that identities can be checked.
Card conservation does not hold for such a state: rules tests need only the
cards that matter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.cards import Card, Kind
from domain.games.gnoming_a_round.events import Event
from domain.games.gnoming_a_round.model import (
    Command,
    GnomingARoundConfig,
    Layout,
    Phase,
    Slot,
    State,
)


def gnoming_card(token: str, copy: int = 1) -> Card:
    """Returns the card a token names (``7``, ``-3``, ``H``, ``M``), copy ``copy``."""
    if token == "H":
        return Card(Kind.HAZARD, 0, copy)
    if token == "M":
        return Card(Kind.MULLIGAN, 0, copy)
    value = int(token)
    return Card(Kind.NEGATIVE if value < 0 else Kind.POSITIVE, value, copy)


class CardMaker:
    """Hands out a new copy of a card each time one is named."""

    def __init__(self) -> None:
        self._copies: Counter[str] = Counter()

    def card(self, token: str) -> Card:
        """Returns the next copy of the card a token names."""
        self._copies[token] += 1
        return gnoming_card(token, self._copies[token])

    def cards(self, text: str) -> tuple[Card, ...]:
        """Returns new copies of the whitespace-separated tokens of ``text``."""
        return tuple(self.card(token) for token in text.split())

    def layout(self, text: str) -> Layout:
        """Returns a layout from nine tokens; ``~`` marks a face-down card."""
        tokens = text.split()
        assert len(tokens) == 9, text
        return tuple(
            Slot(self.card(token.lstrip("~")), face_up=not token.startswith("~"))
            for token in tokens
        )


GNOMING_RNG = Rng(bytes(range(32)))

# Seven face-down cards and two face-up ones, as after the initial flip.
FRESH = "1 2 ~3 ~4 ~5 ~6 ~7 ~8 ~9"


def gnoming_state(
    layouts: Sequence[str] = (FRESH, FRESH, FRESH),
    *,
    phase: Phase = Phase.DRAW,
    active: int = 0,
    discards: tuple[str, str] = ("10", "11"),
    draw: str = "12 12 12",
    in_hand: str | None = None,
    drawn: bool = False,
    filled: Iterable[int] = (),
    flipped: Iterable[int] | None = None,
    asked: Iterable[int] = (),
    answered: Iterable[int] = (),
    trigger: int | None = None,
    round_number: int = 1,
    starting_seat: int = 0,
    removed: str = "",
    totals: Sequence[int] | None = None,
    round_scores: Sequence[Sequence[int]] = (),
    reshuffles: int = 0,
) -> State:
    """Returns a state with these layouts, piles and hand (see the module doc)."""
    maker = CardMaker()
    built = tuple(maker.layout(text) for text in layouts)
    piles = tuple(maker.cards(text) for text in discards)
    draw_pile = maker.cards(draw)
    hand = None if in_hand is None else maker.card(in_hand)
    players = len(built)
    return State(
        players=players,
        config=GnomingARoundConfig(),
        phase=phase,
        round=round_number,
        starting_seat=starting_seat,
        active=active,
        layouts=built,
        draw_pile=draw_pile,
        discards=piles,
        removed=maker.cards(removed),
        in_hand=hand,
        in_hand_drawn=drawn,
        filled=tuple(filled),
        flipped=tuple(range(players)) if flipped is None else tuple(flipped),
        asked=tuple(asked),
        answered=tuple(answered),
        trigger=trigger,
        reshuffles=reshuffles,
        round_scores=tuple(tuple(r) for r in round_scores),
        totals=tuple(totals) if totals is not None else (0,) * players,
        winners=(),
    )


def layout_cards(state: State, seat: int) -> tuple[Card, ...]:
    """Returns the cards of a seat's layout, face up or not."""
    return tuple(slot.card for slot in state.layouts[seat])


def shown(state: State, seat: int) -> str:
    """Returns a seat's layout as tokens, ``~`` before each face-down card."""
    return " ".join(
        ("" if slot.face_up else "~") + token(slot.card) for slot in state.layouts[seat]
    )


def token(card: Card) -> str:
    """Returns the token naming a card's kind and value."""
    if card.kind is Kind.HAZARD:
        return "H"
    if card.kind is Kind.MULLIGAN:
        return "M"
    return str(card.value)


def gnoming_play(
    state: State, *commands: Command, rng: Rng = GNOMING_RNG
) -> tuple[State, tuple[Event, ...]]:
    """Returns the state after commands that must all be accepted, and their events."""
    events: list[Event] = []
    for command in commands:
        decision = RULES.decide(state, command, rng)
        assert isinstance(decision, Accepted), (command, decision)
        events.extend(decision.events)
        state = RULES.fold(state, decision.events)
    return state, tuple(events)
