"""Every legal command of a seat, in a deterministic order (DESIGN §2).

Initial flips are listed as ascending pairs (``decide`` accepts either order);
then draws before takes, keeps by position before ``Reject``, bounces by
position before ``StopBounce``, discards by pile, hazard flips before declining.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from domain.games.gnoming_a_round.cards import Kind
from domain.games.gnoming_a_round.model import (
    INITIAL_FLIPS,
    PILES,
    POSITIONS,
    Bounce,
    Command,
    Discard,
    DrawFromPile,
    FlipInitial,
    HazardDecline,
    HazardFlip,
    Keep,
    Phase,
    Reject,
    State,
    StopBounce,
    TakeFromDiscard,
    reshuffle_source,
    shows_mulligan,
)
from domain.games.gnoming_a_round.rules import to_move


def legal_moves(state: State, seat: int) -> Iterator[Command]:
    """Yields every command ``decide`` accepts from ``seat`` now."""
    if seat not in to_move(state):
        return
    match state.phase:
        case Phase.INITIAL_FLIP:
            for pair in itertools.combinations(range(POSITIONS), INITIAL_FLIPS):
                yield FlipInitial(seat, pair)
        case Phase.DRAW:
            yield from _draws(state, seat)
        case Phase.DECIDE:
            yield from _decisions(state, seat)
        case Phase.BOUNCE:
            yield from _bounces(state, seat)
        case Phase.DISCARD:
            yield from _discards(state, seat)
        case Phase.HAZARD_RESPONSES:
            yield from _responses(state, seat)
        case _:
            return


def _draws(state: State, seat: int) -> Iterator[Command]:
    if state.draw_pile or reshuffle_source(state):
        yield DrawFromPile(seat)
    mulligan_shown = shows_mulligan(state.layouts[seat])
    for pile in PILES:
        top = state.top(pile)
        if top is not None and not (top.kind is Kind.MULLIGAN and mulligan_shown):
            yield TakeFromDiscard(seat, pile)


def _decisions(state: State, seat: int) -> Iterator[Command]:
    held = state.in_hand
    if held is None:
        return
    if not (held.kind is Kind.MULLIGAN and shows_mulligan(state.layouts[seat])):
        for position in range(POSITIONS):
            yield Keep(seat, position)
    if state.in_hand_drawn:
        yield Reject(seat)


def _discards(state: State, seat: int) -> Iterator[Command]:
    if state.in_hand is not None and state.in_hand.kind is Kind.HAZARD:
        yield Discard(seat, None)
        return
    empty = [pile for pile in PILES if state.top(pile) is None]
    for pile in empty if len(empty) == 1 else PILES:
        yield Discard(seat, pile)


def _bounces(state: State, seat: int) -> Iterator[Command]:
    for position in range(POSITIONS):
        if position not in state.filled:
            yield Bounce(seat, position)
    yield StopBounce(seat)


def _responses(state: State, seat: int) -> Iterator[Command]:
    for position, slot in enumerate(state.layouts[seat]):
        if not slot.face_up:
            yield HazardFlip(seat, position)
    yield HazardDecline(seat)
