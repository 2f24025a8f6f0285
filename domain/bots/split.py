"""Split bot: value every match, upgrade and take in score-sheet points, play the best.

A play is worth the rank-row points it adds (taking over another's match also
costs its owner theirs), its bonus (a perfect match's negative box for someone
else), and 2 points for each card it moves out of the hand (2 per card left at
the round's end). The bot takes from the discard row when that beats a blind
draw, makes every match and upgrade it can (the best first), then discards the
card least likely to pair: the one with the fewest unseen partner halves. A
perfect bonus hits the leader; a weak swap is made when it gains points; a
strong bonus draws only to end the round while the bot holds the fewest cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from domain.games.split.cards import (
    Card,
    Half,
    MatchType,
    Rank,
    Suit,
    pair_type,
    rank_index,
)
from domain.games.split.checks import upgraded_type
from domain.games.split.model import (
    NEGATIVE_POINTS,
    ChoosePenaltyTarget,
    Command,
    Discard,
    DrawFromPile,
    FinishLateMeld,
    MakeMatch,
    Match,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    TakeFromDiscard,
    Upgrade,
)
from domain.games.split.scoring import row_value
from domain.games.split.views import SplitView

NAME = "split"
DRAW_VALUE = -1  # a drawn card costs 2 unless it pairs, which it often helps to do
BONUS_VALUE = {
    MatchType.PERFECT: NEGATIVE_POINTS,
    MatchType.STRONG: 0,
    MatchType.WEAK: 0,
}
ALL_CARDS = tuple(
    Card(rank, suit, half) for rank in Rank for suit in Suit for half in Half
)


def choose(view: SplitView, moves: Sequence[Command]) -> Command:
    """Returns the bot's command for the phase its view shows."""
    match view.public.phase:
        case Phase.DRAW:
            return _draw(view, moves)
        case Phase.PLAY | Phase.LATE_MELD:
            return _play(view, moves)
        case Phase.BONUS:
            return _bonus(view, moves)
        case _:
            return moves[0]


def marks_after_round(view: SplitView, seat: int, rank: Rank) -> int:
    """Returns a seat's marks in a rank row once its matches on the table count."""
    owned = sum(1 for m in view.public.matches if m.owner == seat and m.rank is rank)
    return view.public.marks[seat][rank_index(rank)] + owned


def gain_of(view: SplitView, seat: int, rank: Rank) -> int:
    """Returns what one more match of ``rank`` adds to a seat's sheet (§1.3)."""
    marks = marks_after_round(view, seat, rank)
    return row_value(marks + 1) - row_value(marks)


def loss_of(view: SplitView, seat: int, rank: Rank) -> int:
    """Returns what losing one match of ``rank`` takes from a seat's sheet."""
    marks = marks_after_round(view, seat, rank)
    return row_value(marks) - row_value(marks - 1) if marks else 0


def pairs(cards: Iterable[Card]) -> int:
    """Returns how many matches a set of cards holds (left and right of one rank)."""
    halves = Counter((card.rank, card.half) for card in cards)
    return sum(min(halves[rank, Half.LEFT], halves[rank, Half.RIGHT]) for rank in Rank)


def match_value(view: SplitView, seat: int, a: Card, b: Card, taken: int = 0) -> int:
    """Returns a new match's worth; ``taken`` cards came into the hand for it."""
    left, right = (a, b) if a.half is Half.LEFT else (b, a)
    bonus = BONUS_VALUE[pair_type(left, right)]
    return gain_of(view, seat, a.rank) + bonus + NEGATIVE_POINTS * (2 - taken)


def upgrade_value(
    view: SplitView, seat: int, card: Card, match: Match, taken: int = 0
) -> int:
    """Returns an upgrade's worth: a match taken over, its bonus, the card played."""
    steal = 0
    if match.owner != seat:
        steal = gain_of(view, seat, match.rank) + loss_of(view, match.owner, match.rank)
    bonus = BONUS_VALUE[upgraded_type(match, card)]
    return steal + bonus + NEGATIVE_POINTS * (1 - taken)


def take_value(view: SplitView, move: TakeFromDiscard) -> int:
    """Returns a take's worth, with the matches the other taken cards make possible."""
    hand = () if view.private is None else view.private.hand
    taken = view.public.discard_row[move.index :]
    key = taken[0]
    match = next((m for m in view.public.matches if m.id == move.match_id), None)
    if move.partner is not None:
        value = match_value(view, move.seat, key, move.partner, len(taken))
        rest = [c for c in (*hand, *taken) if c not in (key, move.partner)]
    elif match is not None:
        value = upgrade_value(view, move.seat, key, match, len(taken))
        rest = [c for c in (*hand, *taken) if c != key]
    else:
        return DRAW_VALUE - 1
    return value + 2 * NEGATIVE_POINTS * (pairs(rest) - pairs(hand))


def play_value(view: SplitView, move: Command) -> int:
    """Returns the worth of a match or an upgrade from the hand."""
    if isinstance(move, MakeMatch):
        return match_value(view, move.seat, move.card_a, move.card_b)
    if isinstance(move, Upgrade):
        match = next(m for m in view.public.matches if m.id == move.match_id)
        return upgrade_value(view, move.seat, move.card, match)
    return 0


def unseen_partners(view: SplitView, card: Card) -> int:
    """Returns how many halves that would pair with ``card`` the bot has not seen."""
    seen = set(view.public.discard_row)
    seen.update(c for m in view.public.matches for c in (*m.left, *m.right))
    if view.private is not None:
        seen.update(view.private.hand)
    return sum(
        1
        for other in ALL_CARDS
        if other.rank is card.rank and other.half is not card.half and other not in seen
    )


def _draw(view: SplitView, moves: Sequence[Command]) -> Command:
    """Takes from the discard row when that beats a blind draw."""
    takes = [m for m in moves if isinstance(m, TakeFromDiscard)]
    draw = next((m for m in moves if isinstance(m, DrawFromPile)), moves[0])
    best = max(takes, key=lambda m: take_value(view, m), default=None)
    if best is not None and take_value(view, best) > DRAW_VALUE:
        return best
    return draw


def _play(view: SplitView, moves: Sequence[Command]) -> Command:
    """Makes the best match or upgrade; then discards the least promising card."""
    plays = [m for m in moves if isinstance(m, MakeMatch | Upgrade)]
    if plays:
        return max(plays, key=lambda m: play_value(view, m))
    discards = [m for m in moves if isinstance(m, Discard)]
    if discards:
        return min(discards, key=lambda m: _keep_worth(view, m))
    return next((m for m in moves if isinstance(m, FinishLateMeld)), moves[0])


def _keep_worth(view: SplitView, move: Discard) -> int:
    """Returns how much a card is worth keeping: partners left times row gain."""
    rank = move.card.rank
    return unseen_partners(view, move.card) * gain_of(view, move.seat, rank)


def _bonus(view: SplitView, moves: Sequence[Command]) -> Command:
    """Resolves the pending bonus: hit the leader, swap for gain, rarely draw."""
    targets = [m for m in moves if isinstance(m, ChoosePenaltyTarget)]
    if targets:
        return max(targets, key=lambda m: view.public.totals[m.target])
    swaps = [m for m in moves if isinstance(m, ResolveWeakBonus)]
    if swaps:
        return max(swaps, key=lambda m: _swap_value(view, m))
    draws = [m for m in moves if isinstance(m, ResolveStrongBonus)]
    wanted = _ends_round_ahead(view, moves[0].seat)
    return next((m for m in draws if m.draw is wanted), moves[0])


def _swap_value(view: SplitView, move: ResolveWeakBonus) -> int:
    """Returns what a weak swap gains the bot and costs the other owner (0: none)."""
    own = next((m for m in view.public.matches if m.id == move.own_match_id), None)
    other = next((m for m in view.public.matches if m.id == move.other_match_id), None)
    if own is None or other is None:
        return 0
    mine = gain_of(view, move.seat, other.rank) - loss_of(view, move.seat, own.rank)
    theirs = gain_of(view, other.owner, own.rank) - loss_of(
        view, other.owner, other.rank
    )
    return mine - theirs


def _ends_round_ahead(view: SplitView, seat: int) -> bool:
    """Returns whether a bonus draw would end the round with the fewest cards held."""
    sizes = view.public.hand_sizes
    others = [n for s, n in enumerate(sizes) if s != seat]
    return view.public.draw_pile_size == 1 and sizes[seat] + 1 < min(others)
