"""``evolve``: the state after one event. Total over events, pure, never random."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from domain.common.seats import next_seat
from domain.games.split.cards import (
    Half,
    rank_index,
    sorted_cards,
)
from domain.games.split.events import (
    CardDiscarded,
    CardDrawn,
    DiscardTaken,
    Event,
    GameEnded,
    LateMeldFinished,
    MatchMade,
    MatchUpgraded,
    NegativeMarked,
    RoundDealt,
    RoundEnded,
    RoundScored,
    StrongBonusDeclined,
    WeakBonusResolved,
)
from domain.games.split.model import (
    Bonus,
    Match,
    Phase,
    State,
    replaced,
    without,
)


def evolve(state: State, event: Event) -> State:
    """Returns the state after ``event``."""
    new: State
    match event:
        case RoundEnded() | LateMeldFinished() | RoundScored() | GameEnded():
            new = _round_event(state, event)
        case RoundDealt():
            new = _dealt(state, event)
        case CardDrawn():
            new = _drawn(state, event)
        case DiscardTaken():
            new = _taken(state, event)
        case MatchMade():
            new = _made(state, event)
        case MatchUpgraded():
            new = _upgraded(state, event)
        case NegativeMarked():
            new = _bonus_done(_marked(state, event))
        case StrongBonusDeclined():
            new = _bonus_done(state)
        case WeakBonusResolved():
            new = _bonus_done(_swapped(state, event))
        case CardDiscarded():
            new = _discarded(state, event)
        case _:
            assert_never(event)
    return new


def _round_event(
    state: State, event: RoundEnded | LateMeldFinished | RoundScored | GameEnded
) -> State:
    new: State
    match event:
        case RoundEnded():
            phase = Phase.LATE_MELD if event.late_melders else Phase.ROUND_OVER
            new = replace(
                state,
                phase=phase,
                pending=None,
                late_melders=event.late_melders,
                next_dealer=event.next_dealer,
            )
        case LateMeldFinished():
            rest = state.late_melders[1:]
            phase = Phase.LATE_MELD if rest else Phase.ROUND_OVER
            new = replace(state, phase=phase, late_melders=rest)
        case RoundScored():
            new = _scored(state, event)
        case GameEnded():
            new = replace(state, phase=Phase.GAME_OVER, winners=event.winners)
        case _:
            assert_never(event)
    return new


def _taken(state: State, event: DiscardTaken) -> State:
    hand = sorted_cards((*state.hands[event.seat], *event.cards))
    return replace(
        state,
        hands=replaced(state.hands, event.seat, hand),
        discard_row=state.discard_row[: event.index],
    )


def _marked(state: State, event: NegativeMarked) -> State:
    # D10: a perfect-bonus mark counts at once.
    negatives = list(state.negatives)
    negatives[event.seat] += 1
    return replace(state, negatives=tuple(negatives))


def _dealt(state: State, event: RoundDealt) -> State:
    turns = [0] * state.players
    turns[event.first_player] = 1
    return replace(
        state,
        phase=Phase.DRAW,
        round=event.round,
        dealer=event.dealer,
        current=event.first_player,
        hands=event.hands,
        draw_pile=event.draw_pile,
        discard_row=(event.discard,),
        matches=(),
        next_match_id=1,
        pending=None,
        turns=tuple(turns),
        late_melders=(),
    )


def _drawn(state: State, event: CardDrawn) -> State:
    # A redacted feed has no card: the hand then keeps its known cards only.
    cards = () if event.card is None else (event.card,)
    hand = sorted_cards((*state.hands[event.seat], *cards))
    after = replace(
        state,
        hands=replaced(state.hands, event.seat, hand),
        draw_pile=state.draw_pile[1:],
    )
    return _bonus_done(after) if event.bonus else replace(after, phase=Phase.PLAY)


def _made(state: State, event: MatchMade) -> State:
    match = Match(
        id=event.match_id,
        owner=event.seat,
        rank=event.left.rank,
        left=(event.left,),
        right=(event.right,),
        type=event.type,
    )
    hand = without(state.hands[event.seat], event.left, event.right)
    after = replace(
        state,
        hands=replaced(state.hands, event.seat, hand),
        matches=(*state.matches, match),
        next_match_id=max(state.next_match_id, event.match_id + 1),
    )
    if event.late:
        return after
    return replace(after, phase=Phase.BONUS, pending=Bonus(event.type, event.match_id))


def _upgraded(state: State, event: MatchUpgraded) -> State:
    def upgrade(match: Match) -> Match:
        if match.id != event.match_id:
            return match
        left, right = match.left, match.right
        if event.card.half is Half.LEFT:
            left = (*left, event.card)
        else:
            right = (*right, event.card)
        return replace(
            match, owner=event.seat, left=left, right=right, type=event.to_type
        )

    hand = without(state.hands[event.seat], event.card)
    return replace(
        state,
        hands=replaced(state.hands, event.seat, hand),
        matches=tuple(upgrade(m) for m in state.matches),
        phase=Phase.BONUS,
        pending=Bonus(event.to_type, event.match_id),
    )


def _swapped(state: State, event: WeakBonusResolved) -> State:
    if event.own_match_id is None or event.other_owner is None:
        return state
    owners = {event.own_match_id: event.other_owner, event.other_match_id: event.seat}
    return replace(
        state,
        matches=tuple(
            replace(m, owner=owners[m.id]) if m.id in owners else m
            for m in state.matches
        ),
    )


def _bonus_done(state: State) -> State:
    return replace(state, phase=Phase.PLAY, pending=None)


def _discarded(state: State, event: CardDiscarded) -> State:
    hand = without(state.hands[event.seat], event.card)
    after = replace(
        state,
        hands=replaced(state.hands, event.seat, hand),
        discard_row=(*state.discard_row, event.card),
    )
    if not hand:
        return after  # RoundEnded follows in the same move
    seat = next_seat(event.seat, state.players)
    turns = list(state.turns)
    turns[seat] += 1
    return replace(after, phase=Phase.DRAW, current=seat, turns=tuple(turns))


def _scored(state: State, event: RoundScored) -> State:
    marks = [list(rows) for rows in state.marks]
    for credit in event.credits:
        marks[credit.seat][rank_index(credit.rank)] += 1
    negatives = tuple(
        n + len(hand) for n, hand in zip(state.negatives, event.hands_left, strict=True)
    )
    return replace(
        state,
        phase=Phase.ROUND_OVER,
        marks=tuple(tuple(rows) for rows in marks),
        negatives=negatives,
        hands=event.hands_left,
    )
