"""Random complete Split games checking every invariant of spec §7.

Moves are drawn by a seeded ``random.Random`` from ``legal_moves``, by command
type first so that matches, upgrades, bonuses and going out are common. The
scoring oracle below is written again here rather than imported, so that it
checks the engine. What every game must do (legal moves accepted, replay,
hidden hands and draw pile, messages) is checked by the contract suite,
``tests/contract/``.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from domain.games.split import RULES
from domain.games.split.cards import Half, MatchType, pair_type
from domain.games.split.events import (
    CardDiscarded,
    CardDrawn,
    DiscardTaken,
    EndReason,
    Event,
    GameEnded,
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
    Command,
    Phase,
    SplitConfig,
    State,
)
from tests.contract.playouts import pick
from tests.property.random_games import RandomGame, play_out, set_up

GAMES_PER_PLAYER_COUNT = 40
PLAYER_COUNTS = (2, 3, 4, 5, 6)
MAX_MOVES = 5_000
RARE_GAMES = 4  # per player count, enough to reach every rare situation
STRENGTH = {MatchType.WEAK: 1, MatchType.STRONG: 2, MatchType.PERFECT: 3}
PLAYING = (Phase.DRAW, Phase.PLAY, Phase.BONUS)


# --- An independent scoring oracle (§1.3) ---


def oracle_total(rows: Sequence[int], negatives: int) -> int:
    """Returns a sheet's total: triangular rows capped at 8, less 2 per negative."""
    values = [0, 1, 3, 6, 10, 15, 21, 28, 36]
    return sum(values[min(m, 8)] for m in rows) - 2 * negatives


@dataclass
class Tally:
    """What the checks count from one game's events: marks, negatives, rounds."""

    players: int
    rows: list[list[int]] = field(default_factory=list)
    negatives: list[int] = field(default_factory=list)
    rounds: list[RoundDealt] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)

    def check(
        self, before: State, command: Command, events: tuple[Event, ...], after: State
    ) -> None:
        """Checks every invariant around one move."""
        del command
        check_events(self, before, events)
        check_bonus_pending(after, events)
        if isinstance(events[-1], RoundDealt):
            check_deal(after)
        check_state(after)


def new_game(players: int, game: int) -> tuple[RandomGame, Tally]:
    """Returns a dealt game with a seed of its own, and its tally."""
    config = SplitConfig(first_dealer=game % players)
    dealt = set_up(RULES, players, config, f"split-playout/{players}/{game}")
    tally = Tally(players, [[0] * 13 for _ in range(players)], [0] * players)
    assert isinstance(dealt.events[0], RoundDealt)
    tally.rounds.append(dealt.events[0])
    check_deal(dealt.state)
    return dealt, tally


def check_deal(state: State) -> None:
    """Invariant 2: 9 cards a hand, 1 discard, the rest in the pile."""
    assert all(len(hand) == 9 for hand in state.hands)
    assert len(state.discard_row) == 1
    assert len(state.draw_pile) == 104 - 9 * state.players - 1


def check_state(state: State) -> None:
    """Invariants 1, 3, 4, 5 and 6 on a state between moves."""
    if state.phase not in (*PLAYING, Phase.LATE_MELD):
        return
    cards = [*state.draw_pile, *state.discard_row]
    cards += [c for hand in state.hands for c in hand]
    cards += [c for m in state.matches for c in (*m.left, *m.right)]
    assert len(cards) == len(set(cards)) == 104
    for match in state.matches:
        assert all(c.half is Half.LEFT and c.rank is match.rank for c in match.left)
        assert all(c.half is Half.RIGHT and c.rank is match.rank for c in match.right)
        assert match.type is pair_type(match.left[-1], match.right[-1])
    if state.phase in PLAYING:
        assert all(state.hands)
        assert state.draw_pile
    if state.phase is Phase.BONUS:
        assert state.pending is not None


def check_events(tally: Tally, before: State, events: Sequence[Event]) -> None:
    """Invariants 7-11 on one move's events."""
    current = before
    for index, event in enumerate(events):
        tally.seen[type(event).__name__] += 1
        match event:
            case DiscardTaken():
                played = events[index + 1]
                key = event.cards[0]
                assert isinstance(played, MatchMade | MatchUpgraded)
                if isinstance(played, MatchMade):
                    assert key in (played.left, played.right)
                else:
                    assert played.card == key
            case MatchUpgraded():
                assert STRENGTH[event.to_type] > STRENGTH[event.from_type]
            case NegativeMarked():
                tally.negatives[event.seat] += 1
            case RoundEnded():
                check_round_end(tally, before, event, events)
            case RoundScored():
                check_scoring(tally, current, event)
            case RoundDealt():
                tally.rounds.append(event)
            case GameEnded():
                assert len(tally.rounds) == 3
                totals = tuple(
                    oracle_total(rows, neg)
                    for rows, neg in zip(tally.rows, tally.negatives, strict=True)
                )
                assert event.totals == totals
        current = RULES.evolve(current, event)
    if before.pending is not None:
        first = events[0]
        expected = {
            MatchType.PERFECT: (NegativeMarked,),
            MatchType.STRONG: (StrongBonusDeclined, CardDrawn),
            MatchType.WEAK: (WeakBonusResolved,),
        }[before.pending.type]
        assert isinstance(first, expected)


def check_bonus_pending(state: State, events: Sequence[Event]) -> None:
    """Invariant 8: a match or upgrade (not a late meld) leaves its bonus pending."""
    last = events[-1]
    if isinstance(last, MatchUpgraded):
        assert state.pending is not None
        assert state.pending.type is last.to_type
    elif isinstance(last, MatchMade) and not last.late:
        assert state.pending is not None
        assert state.pending.type is last.type
    else:
        assert state.pending is None


def check_round_end(
    tally: Tally, before: State, event: RoundEnded, events: Sequence[Event]
) -> None:
    """Invariants 6 and 11: why a round ends, and who deals next (D13)."""
    dealer = tally.rounds[-1].dealer
    if event.reason is EndReason.WENT_OUT:
        assert any(isinstance(e, CardDiscarded) for e in events)
        assert event.next_dealer == event.seat
    else:
        drawn = [e for e in events if isinstance(e, CardDrawn)]
        assert len(drawn) == 1
        assert len(before.draw_pile) == 1
        assert event.next_dealer == (dealer + 1) % tally.players


def check_scoring(tally: Tally, state: State, event: RoundScored) -> None:
    """Invariants 9 and 10: one mark per match, one negative per card left."""
    assert len(event.credits) == len(state.matches)
    assert event.hands_left == state.hands
    for credit in event.credits:
        tally.rows[credit.seat][list(type(credit.rank)).index(credit.rank)] += 1
    for seat, hand in enumerate(event.hands_left):
        tally.negatives[seat] += len(hand)
    totals = tuple(
        oracle_total(rows, neg)
        for rows, neg in zip(tally.rows, tally.negatives, strict=True)
    )
    assert event.totals == totals


@functools.cache
def played(players: int, game: int) -> tuple[RandomGame, Tally]:
    """Returns a random game played to its end (cached for the other tests)."""
    match_, tally = new_game(players, game)
    choose = random.Random(f"{players}/{game}")

    def by_type(state: State) -> Command:
        (seat,) = RULES.to_move(state)
        command: Command = pick(tuple(RULES.legal_moves(state, seat)), choose)
        return command

    play_out(match_, by_type, tally.check, MAX_MOVES)
    return match_, tally


@pytest.mark.parametrize("game", range(GAMES_PER_PLAYER_COUNT))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_random_game_keeps_every_invariant_and_ends(players: int, game: int) -> None:
    match_, tally = played(players, game)
    assert len(tally.rounds) == 3
    outcome = RULES.outcome(match_.state)
    assert outcome.finished
    totals = [
        oracle_total(r, n) for r, n in zip(tally.rows, tally.negatives, strict=True)
    ]
    assert list(outcome.scores) == totals
    ranks = list(zip(totals, (-n for n in tally.negatives), strict=True))
    assert outcome.winners == tuple(s for s, k in enumerate(ranks) if k == max(ranks))


def test_the_random_games_reach_every_rare_situation() -> None:
    seen: Counter[str] = Counter()
    ends: Counter[EndReason] = Counter()
    for players in PLAYER_COUNTS:
        for game in range(RARE_GAMES):
            match_, tally = played(players, game)
            seen += tally.seen
            ends.update(e.reason for e in match_.events if isinstance(e, RoundEnded))
    for name in (
        "DiscardTaken",
        "MatchUpgraded",
        "NegativeMarked",
        "StrongBonusDeclined",
        "WeakBonusResolved",
    ):
        assert seen[name] > 0, name
    swaps = [
        e
        for p in PLAYER_COUNTS
        for e in played(p, 0)[0].events
        if isinstance(e, WeakBonusResolved) and e.own_match_id is not None
    ]
    assert swaps
    assert ends[EndReason.WENT_OUT] > 0
    assert ends[EndReason.DRAW_PILE_EMPTY] > 0
