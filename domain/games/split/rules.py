"""``decide``: the Split rules policy (spec §4, §5; DESIGN §2, §4).

Checks run phase first, then whose turn it is, then the turn state machine
(a pending bonus first, D19), then the command's own preconditions; the first
failure is returned. The move that ends a round also scores it and then deals
the next round (label ``split/round-<r+1>/shuffle``) or ends the game, unless a
late meld (§4.7) comes first: then the last ``FinishLateMeld`` does so.
"""

from __future__ import annotations

from typing import assert_never

from domain.common.decision import Accepted, Decision
from domain.common.rng import Rng
from domain.common.rules import Outcome
from domain.games.split.cards import Card
from domain.games.split.checks import (
    check_discard,
    check_pair,
    check_penalty,
    check_phase,
    check_step,
    check_swap,
    check_take,
    check_turn,
    check_upgrade,
)
from domain.games.split.events import (
    CardDiscarded,
    DiscardTaken,
    Event,
    GameEnded,
    LateMeldFinished,
    MatchMade,
    MatchUpgraded,
    NegativeMarked,
    RoundDealt,
    RoundScored,
    StrongBonusDeclined,
    WeakBonusResolved,
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
from domain.games.split.scoring import totals, winners
from domain.games.split.steps import (
    draw,
    make_match,
    round_end,
    scoring_and_next,
    upgrade,
)


def to_move(state: State) -> tuple[int, ...]:
    """Returns the seats the game waits for: the current player or late melder."""
    if state.phase is Phase.LATE_MELD:
        return state.late_melders[:1]
    if state.phase in (Phase.DRAW, Phase.PLAY, Phase.BONUS):
        return (state.current,)
    return ()


def self_undoable(events: tuple[Event, ...]) -> bool:
    """Tells whether a move drew and revealed nothing, so its mover may take it back.

    D21: resolving a perfect bonus (``NegativeMarked``), declining the strong
    bonus, resolving the weak bonus (swap or not), finishing a late meld, and a
    ``TakeFromDiscard`` whose play used only cards taken from the (public)
    discard row. Drawing, a match or upgrade with a hand card, a discard and any
    move that ends a round show or draw something and need consent.
    """
    public: set[Card] = set()
    for event in events:
        match event:
            case (
                NegativeMarked()
                | StrongBonusDeclined()
                | WeakBonusResolved()
                | LateMeldFinished()
            ):
                pass
            case DiscardTaken():
                public.update(event.cards)
            case MatchMade():
                if not {event.left, event.right} <= public:
                    return False
            case MatchUpgraded():
                if event.card not in public:
                    return False
            case _:
                return False
    return True


def reveals_to_others(events: tuple[Event, ...]) -> bool:
    """Tells whether a move showed others something hidden, so no takeback crosses it.

    T19: a round's scoring shows every hand left (§4.9) and the next deal
    follows; the end of the game shows everything. A drawn card is shown to its
    drawer alone (§4.1, §4.5), and cards matched or discarded were the mover's
    own to show, so consent is enough to take those back.
    """
    return any(
        isinstance(event, RoundScored | RoundDealt | GameEnded) for event in events
    )


def leaders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats of ``seats`` that lead on the sheets as they stand.

    The end-of-game ranking (D15): best total, then fewer negative marks, then
    shared.
    """
    return winners(totals(state.marks, state.negatives), state.negatives, seats)


def outcome(state: State) -> Outcome:
    """Returns totals and, once over, the winners (D15)."""
    everyone = tuple(range(len(state.negatives)))
    return Outcome(
        scores=totals(state.marks, state.negatives),
        winners=leaders(state, everyone) if state.finished else (),
        finished=state.finished,
    )


def decide(state: State, command: Command, rng: Rng) -> Decision[Event]:
    """Returns the events a command produces, or why it is refused."""
    refused = (
        check_phase(state)
        or check_turn(command.seat, to_move(state))
        or check_step(state, command)
    )
    if refused is not None:
        return refused
    match command:
        case DrawFromPile():
            return Accepted(draw(state, command.seat, bonus=False, rng=rng))
        case TakeFromDiscard():
            return _take(state, command)
        case MakeMatch():
            late = state.phase is Phase.LATE_MELD
            refused = check_pair(state, command, late=late)
            return refused or Accepted((make_match(state, command, late=late),))
        case Upgrade():
            refused = check_upgrade(state, command.seat, command.card, command.match_id)
            return refused or Accepted((upgrade(state, command),))
        case ChoosePenaltyTarget():
            refused = check_penalty(state, command)
            marked = NegativeMarked(command.target, command.seat)
            return refused or Accepted((marked,))
        case ResolveStrongBonus():
            if not command.draw:
                return Accepted((StrongBonusDeclined(command.seat),))
            return Accepted(draw(state, command.seat, bonus=True, rng=rng))
        case ResolveWeakBonus():
            refused = check_swap(state, command)
            return refused or Accepted((_swap(state, command),))
        case Discard():
            refused = check_discard(state, command)
            return refused or Accepted(_discard(state, command, rng))
        case FinishLateMeld():
            return Accepted(_finish_late_meld(state, command, rng))
        case _:
            assert_never(command)


def _take(state: State, command: TakeFromDiscard) -> Decision[Event]:
    refused = check_take(state, command)
    if refused is not None:
        return refused
    key = state.discard_row[command.index]
    taken = DiscardTaken(
        command.seat, command.index, state.discard_row[command.index :]
    )
    after = evolve(state, taken)
    if command.partner is not None:
        pair = MakeMatch(command.seat, key, command.partner)
        refused = check_pair(after, pair, late=False)
        if refused is not None:
            return refused
        return Accepted((taken, make_match(after, pair, late=False)))
    # check_take made sure that exactly one of partner and match_id is set.
    match_id = command.match_id if command.match_id is not None else 0
    refused = check_upgrade(after, command.seat, key, match_id)
    if refused is not None:
        return refused
    return Accepted((taken, upgrade(after, Upgrade(command.seat, key, match_id))))


def _swap(state: State, command: ResolveWeakBonus) -> WeakBonusResolved:
    other = (
        None if command.other_match_id is None else state.match(command.other_match_id)
    )
    return WeakBonusResolved(
        seat=command.seat,
        own_match_id=command.own_match_id,
        other_match_id=command.other_match_id,
        other_owner=None if other is None else other.owner,
    )


def _discard(state: State, command: Discard, rng: Rng) -> tuple[Event, ...]:
    discarded = CardDiscarded(command.seat, command.card)
    if len(state.hands[command.seat]) > 1:
        return (discarded,)
    return (discarded, *round_end(evolve(state, discarded), command.seat, rng))


def _finish_late_meld(
    state: State, command: FinishLateMeld, rng: Rng
) -> tuple[Event, ...]:
    finished = LateMeldFinished(command.seat)
    if len(state.late_melders) > 1:
        return (finished,)
    return (finished, *scoring_and_next(evolve(state, finished), rng))
