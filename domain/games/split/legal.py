"""Every legal command of a seat (spec §4), in a stable order.

Cards come in the canonical order of the hand, matches in the order they were
made; ``decide`` accepts every command yielded here.
"""

from __future__ import annotations

from collections.abc import Iterator

from domain.games.split.cards import (
    Half,
    MatchType,
)
from domain.games.split.checks import check_upgrade
from domain.games.split.events import (
    DiscardTaken,
)
from domain.games.split.evolve import evolve
from domain.games.split.model import (
    ChoosePenaltyTarget,
    Command,
    Discard,
    DrawFromPile,
    FinishLateMeld,
    MakeMatch,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    State,
    TakeFromDiscard,
    Upgrade,
)

# D6: the key card, its partner and one card to discard.
_CARDS_FOR_A_TAKEN_MATCH = 3


def legal_moves(state: State, seat: int) -> Iterator[Command]:
    """Yields every command ``decide`` accepts from ``seat`` now."""
    if state.phase is Phase.LATE_MELD:
        if state.late_melders[:1] == (seat,):
            yield from _pairs(state, seat, keep=0)
            yield FinishLateMeld(seat)
        return
    if seat != state.current:
        return
    if state.phase is Phase.DRAW:
        yield DrawFromPile(seat)
        yield from _takes(state, seat)
    elif state.phase is Phase.PLAY:
        yield from _pairs(state, seat, keep=1)
        yield from _upgrades(state, seat)
        for card in state.hands[seat]:
            yield Discard(seat, card)
    elif state.pending is not None:
        yield from _bonuses(state, seat, state.pending.type)


def _pairs(state: State, seat: int, keep: int) -> Iterator[MakeMatch]:
    hand = state.hands[seat]
    if len(hand) - 2 < keep:
        return
    for left in hand:
        if left.half is not Half.LEFT:
            continue
        for right in hand:
            if right.half is Half.RIGHT and right.rank is left.rank:
                yield MakeMatch(seat, left, right)


def _upgrades(state: State, seat: int) -> Iterator[Upgrade]:
    for card in state.hands[seat]:
        for match in state.matches:
            if check_upgrade(state, seat, card, match.id) is None:
                yield Upgrade(seat, card, match.id)


def _takes(state: State, seat: int) -> Iterator[TakeFromDiscard]:
    for index, key in enumerate(state.discard_row):
        taken = DiscardTaken(seat, index, state.discard_row[index:])
        after = evolve(state, taken)
        hand = after.hands[seat]
        if len(hand) >= _CARDS_FOR_A_TAKEN_MATCH:
            for partner in hand:
                if partner.rank is key.rank and partner.half is not key.half:
                    yield TakeFromDiscard(seat, index, partner=partner)
        for match in state.matches:
            if check_upgrade(after, seat, key, match.id) is None:
                yield TakeFromDiscard(seat, index, match_id=match.id)


def _bonuses(state: State, seat: int, bonus: MatchType) -> Iterator[Command]:
    match bonus:
        case MatchType.PERFECT:
            for target in range(state.players):
                if target != seat:
                    yield ChoosePenaltyTarget(seat, target)
        case MatchType.STRONG:
            yield ResolveStrongBonus(seat, draw=True)
            yield ResolveStrongBonus(seat, draw=False)
        case MatchType.WEAK:
            yield ResolveWeakBonus(seat)
            for own in state.matches:
                if own.owner != seat:
                    continue
                for other in state.matches:
                    if other.owner != seat and other.type is own.type:
                        yield ResolveWeakBonus(seat, own.id, other.id)
