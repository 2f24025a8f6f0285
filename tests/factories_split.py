"""Tiny state builders for Split tests; cards are named by their ids (``7H-L``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from domain.common.decision import Accepted, Decision
from domain.common.rng import Rng
from domain.games.split import RULES
from domain.games.split.cards import (
    Card,
    MatchType,
    card_from_id,
    pair_type,
    sorted_cards,
)
from domain.games.split.events import Event
from domain.games.split.model import (
    Bonus,
    Command,
    Match,
    Phase,
    SplitConfig,
    State,
)

SPLIT_RNG = Rng(bytes(range(32)))
# Enough filler for a draw pile that never runs out in a unit test.
FILLER = ("AH-L", "AH-R", "AD-L", "AD-R", "AC-L")


def split_card(name: str) -> Card:
    """Returns the card an id names, e.g. ``"10H-L"``."""
    card = card_from_id(name)
    assert card is not None, name
    return card


def split_cards(*names: str) -> tuple[Card, ...]:
    """Returns the cards named, in order."""
    return tuple(split_card(name) for name in names)


def split_match(
    match_id: int, owner: int, left: Sequence[str], right: Sequence[str]
) -> Match:
    """Returns a match of the stacks named (bottom to top), typed by its tops."""
    lefts, rights = split_cards(*left), split_cards(*right)
    return Match(
        id=match_id,
        owner=owner,
        rank=lefts[0].rank,
        left=lefts,
        right=rights,
        type=pair_type(lefts[-1], rights[-1]),
    )


def split_state(
    *,
    hands: Sequence[Iterable[str]],
    current: int = 0,
    phase: Phase = Phase.PLAY,
    draw_pile: Iterable[str] = FILLER,
    discard_row: Iterable[str] = ("2S-L",),
    matches: Iterable[Match] = (),
    pending: tuple[MatchType, int] | None = None,
    turns: Sequence[int] | None = None,
    round_number: int = 1,
    dealer: int | None = None,
    negatives: Sequence[int] | None = None,
) -> State:
    """Returns a mid-round state built from card ids."""
    players = len(hands)
    table = tuple(matches)
    state = RULES.initial_state(players, SplitConfig())
    return replace(
        state,
        phase=phase,
        round=round_number,
        dealer=(current - 1) % players if dealer is None else dealer,
        current=current,
        hands=tuple(sorted_cards(split_cards(*hand)) for hand in hands),
        draw_pile=split_cards(*draw_pile),
        discard_row=split_cards(*discard_row),
        matches=table,
        next_match_id=max((m.id for m in table), default=0) + 1,
        pending=None if pending is None else Bonus(*pending),
        turns=tuple(turns) if turns is not None else (1,) * players,
        negatives=tuple(negatives) if negatives is not None else (0,) * players,
    )


def accepted(state: State, command: Command) -> tuple[tuple[Event, ...], State]:
    """Returns the events of an accepted command and the state after them."""
    decision: Decision[Event] = RULES.decide(state, command, SPLIT_RNG)
    assert isinstance(decision, Accepted), decision
    return decision.events, RULES.fold(state, decision.events)
