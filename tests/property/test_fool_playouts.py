"""Random complete Fool! games checking every invariant of spec §6 after each move.

Moves are drawn by a seeded ``random.Random`` from ``legal_moves``. The oracles
below (cards in play, the follow rule, the trick ranking, round points) are
written again here rather than imported, so that they check the engine instead
of repeating it. Invariant numbers refer to spec §6. What every game must do
(legal moves accepted, replay, hidden hands, the stored form) is checked by the
contract suite, ``tests/contract/``.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import pytest

from domain.common.decision import Rejected
from domain.common.rng import Rng
from domain.games.fool import RULES
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.model import (
    Card,
    Color,
    EndReason,
    FoolConfig,
    Phase,
    PlayCard,
    State,
    TrickCard,
)
from tests.property.random_games import RandomGame, play_out, set_up

GAMES_PER_PLAYER_COUNT = 40
MAX_MOVES = 5_000
HEAD_START_TENS = 5
RARE_GAMES = 10  # per player count, enough to reach the rare tricks and endings
SUITS = (Color.GREEN, Color.RED, Color.YELLOW, Color.BLUE)
# Spec table 2.1 again: highest green, red, yellow, blue; wild 1s.
TABLE = {
    4: ((17, 13, 11, 8), 3),
    5: ((20, 16, 14, 10), 4),
    6: ((23, 19, 17, 12), 5),
    7: ((26, 22, 20, 14), 6),
    8: ((27, 23, 21, 15), 6),
}


@functools.cache
def deck(players: int) -> tuple[Card, ...]:
    """Returns the cards in play in canonical order (§2.1, DESIGN §4)."""
    tops, wilds = TABLE[players]
    cards = [
        Card(s, v)
        for s, top in zip(SUITS, tops, strict=True)
        for v in range(2, top + 1)
    ]
    return (*cards, *(Card(None, 1, copy) for copy in range(1, wilds + 1)))


@functools.cache
def deck_counts(players: int) -> Counter[Card]:
    return Counter(deck(players))


def discs(players: int) -> int:
    return 2 if players >= 7 else 1


def lead_of(trick: Sequence[TrickCard]) -> Color | None:
    for played in trick:
        if played.card.color is not None:
            return played.card.color
    return None


def follows(hand: Sequence[Card], trick: Sequence[TrickCard], card: Card) -> bool:
    """§3.2: follow the lead colour when holding it; a 1 is always allowed."""
    lead = lead_of(trick)
    if lead is None or card.color is None or card.color == lead:
        return True
    return all(c.color != lead for c in hand)


def worse_first(trick: Sequence[TrickCard]) -> list[int]:
    """§3.3 again, as a comparison: the seats from the worst card to the best."""
    lead = lead_of(trick)

    def of_lead(card: Card) -> bool:
        return lead is None or card.color is None or card.color == lead

    def compare(i: int, j: int) -> int:
        a, b = trick[i].card, trick[j].card
        if of_lead(a) != of_lead(b):
            return -1 if not of_lead(a) else 1
        if a.value != b.value:
            return -1 if a.value < b.value else 1
        return -1 if i > j else 1  # the later card is worse

    order = sorted(range(len(trick)), key=functools.cmp_to_key(compare))
    return [trick[i].seat for i in order]


def winner_of(trick: Sequence[TrickCard]) -> int:
    """The highest card of the lead colour; the first card if only 1s (D5)."""
    lead = lead_of(trick)
    if lead is None:
        return trick[0].seat
    return max(
        (t for t in trick if t.card.color == lead), key=lambda t: t.card.value
    ).seat


def points(hand: Sequence[Card], fool: bool) -> int:
    if not hand:
        return 0 if fool else 10
    return -sum(5 if c.color is None else c.value for c in hand)


@dataclass
class Tally:
    """What the checks keep from one game's events: hands, tricks, totals."""

    players: int
    first_dealer: int
    rng: Rng  # the deal's oracle shuffles again
    hands: list[list[Card]] = field(default_factory=list)
    completed: list[Card] = field(default_factory=list)  # this round's tricks
    totals: list[int] = field(default_factory=list)
    tens: list[int] = field(default_factory=list)
    fools: tuple[int, ...] = ()
    rounds: int = 0
    first_trick: bool = True

    def pick(self, choose: random.Random) -> Callable[[State], PlayCard]:
        """Returns a chooser of random legal cards that checks the list first."""

        def chosen(state: State) -> PlayCard:
            (seat,) = RULES.to_move(state)
            if not state.trick:  # invariant 3 at trick start, 6 for the leader
                d = 0 if self.first_trick else discs(self.players)
                assert len(state.participants) == self.players - d
                assert state.participants[0] not in state.fools
            legal = list(RULES.legal_moves(state, seat))
            check_legal(state, seat, legal, self.rng)
            return choose.choice(legal)

        return chosen

    def check(
        self, before: State, command: PlayCard, events: tuple[Event, ...], after: State
    ) -> None:
        """Checks every invariant after one card."""
        trick = (*before.trick, TrickCard(command.seat, command.card))
        emptied = False
        for event in events:
            check_event(self, event, trick)
            if isinstance(event, TrickResolved):
                emptied = any(not hand for hand in self.hands)
        check_sequence(self, events, emptied)
        check_cards(self, after)


def new_game(players: int, game: int) -> tuple[RandomGame, Tally]:
    """Returns a dealt game with a seed of its own, and its tally.

    Every fourth game starts with five tens for everybody, so that games also
    end on the sixth ten rather than only at -80.
    """
    first_dealer = game % players
    tens = HEAD_START_TENS if game % 4 == 3 else 0
    initial = RULES.initial_state(players, FoolConfig(first_dealer))
    initial = replace(initial, ten_counts=(tens,) * players)
    label = f"fool-playout/{players}/{game}"
    dealt = set_up(RULES, players, FoolConfig(first_dealer), label, initial)
    tally = Tally(players, first_dealer, dealt.rng)
    tally.totals, tally.tens = [0] * players, [tens] * players
    for event in dealt.events:
        check_event(tally, event, None)
    return dealt, tally


def check_deal(game: Tally, event: HandsDealt) -> None:
    """Invariant 2 and D6: blocks of the round's shuffle, dealer rotation."""
    n = game.players
    game.rounds += 1
    assert event.round == game.rounds
    assert event.dealer == (game.first_dealer + game.rounds - 1) % n
    assert event.leader == (event.dealer + 1) % n
    size = 11 if n == 8 else 12
    shuffled = game.rng.shuffle(f"fool/round-{event.round}/shuffle", deck(n))
    for seat, hand in enumerate(event.hands):
        assert Counter(hand) == Counter(shuffled[seat * size : (seat + 1) * size])
    assert event.hand_sizes == (size,) * n
    game.hands = [list(hand) for hand in event.hands]
    game.completed, game.fools, game.first_trick = [], (), True


def check_trick(game: Tally, event: TrickResolved, trick: Sequence[TrickCard]) -> None:
    """Invariants 3, 5 and 6 for a resolved trick."""
    d = 0 if game.first_trick else discs(game.players)
    assert len(trick) == game.players - d  # invariant 3
    assert event.cards == tuple(trick)
    assert trick[0].seat not in game.fools  # the leader holds no disc
    assert [t.seat for t in trick] == [
        s
        for s in ((trick[0].seat + k) % game.players for k in range(game.players))
        if s not in game.fools
    ]
    assert event.lead_color == lead_of(trick)
    assert event.winner == winner_of(trick)
    assert event.fools == tuple(worse_first(trick)[: discs(game.players)])
    assert event.winner not in event.fools  # invariant 6
    game.completed += [t.card for t in trick]
    game.fools, game.first_trick = event.fools, False


def check_scoring(game: Tally, event: RoundScored) -> None:
    """Invariant 8: points, totals and ten counts from the played cards alone."""
    expected = [points(h, s in game.fools) for s, h in enumerate(game.hands)]
    assert list(event.points) == expected
    for seat, value in enumerate(expected):
        game.totals[seat] += value
        game.tens[seat] += value == 10
    assert list(event.totals) == game.totals
    assert list(event.ten_counts) == game.tens
    assert [Counter(h) for h in event.hands_left] == [Counter(h) for h in game.hands]


def check_event(game: Tally, event: Event, trick: Sequence[TrickCard] | None) -> None:
    match event:
        case HandsDealt():
            check_deal(game, event)
        case CardPlayed():
            game.hands[event.seat].remove(event.card)
        case TrickResolved():
            assert trick is not None
            check_trick(game, event, trick)
        case RoundScored():
            check_scoring(game, event)
        case GameEnded():
            ended = [EndReason.SCORE_LIMIT] * (min(game.totals) <= -80)
            ended += [EndReason.TEN_LIMIT] * (max(game.tens) >= 6)
            assert list(event.reasons) == ended


def check_sequence(game: Tally, events: Sequence[Event], emptied: bool) -> None:
    """Invariants 7 and 9: which events a card brings, in order.

    ``emptied`` tells whether a hand was empty after the move's trick.
    """
    kinds = [type(e) for e in events]
    if len(events) <= 2:  # a card, or a trick that emptied no hand
        assert kinds == [CardPlayed, TrickResolved][: len(events)]
        assert not emptied
        return
    assert emptied
    over = min(game.totals) <= -80 or max(game.tens) >= 6
    assert kinds == [
        CardPlayed,
        TrickResolved,
        RoundScored,
        GameEnded if over else HandsDealt,
    ]


def check_cards(game: Tally, state: State) -> None:
    """Invariant 1: every card in play is in one hand or a trick, no other card."""
    everywhere = Counter(game.completed) + Counter(t.card for t in state.trick)
    for seat, hand in enumerate(state.hands):
        assert Counter(hand) == Counter(game.hands[seat])
        everywhere += Counter(hand)
    assert everywhere == deck_counts(game.players)
    assert Counter(state.played) == Counter(game.completed)


def check_legal(before: State, seat: int, legal: list[PlayCard], rng: Rng) -> None:
    """Invariant 4 both ways: the legal cards are exactly the followers."""
    hand = before.hands[seat]
    assert [m.card for m in legal] == [
        c for c in hand if follows(hand, before.trick, c)
    ]
    for card in hand:
        if not follows(hand, before.trick, card):
            refused = RULES.decide(before, PlayCard(seat, card), rng)
            assert isinstance(refused, Rejected)
            assert refused.reason == "MUST_FOLLOW_LEAD_COLOUR"


def check_end(state: State, game: Tally) -> None:
    """Invariant 9 and D8 at the end."""
    assert state.phase is Phase.GAME_OVER
    assert min(state.scores) <= -80 or max(state.ten_counts) >= 6
    best = max(zip(state.scores, state.ten_counts, strict=True))
    expected = tuple(
        s
        for s, rank in enumerate(zip(state.scores, state.ten_counts, strict=True))
        if rank == best
    )
    assert RULES.outcome(state).winners == expected
    assert RULES.outcome(state).scores == tuple(game.totals)


@functools.cache
def played(players: int, game: int) -> tuple[Event, ...]:
    """Returns the events of a random game played to its end, every card checked."""
    match_, tally = new_game(players, game)
    choose = random.Random(f"fool/{players}/{game}")
    play_out(match_, tally.pick(choose), tally.check, MAX_MOVES)
    check_end(match_.state, tally)
    return tuple(match_.events)


@pytest.mark.parametrize("game", range(GAMES_PER_PLAYER_COUNT))
@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_a_random_game_keeps_every_invariant_and_ends(players: int, game: int) -> None:
    played(players, game)


def test_random_games_reach_the_rare_tricks_and_both_endings() -> None:
    # The playouts above prove the invariants only where games go: make sure
    # they go through led 1s, off-colour ties, Fools who emptied their hand,
    # and both ways a game ends. (Tricks of only 1s are too rare for random
    # play; the unit tests play them.)
    seen: Counter[str] = Counter()
    for game in range(RARE_GAMES):
        for players in TABLE:
            seen.update(features(played(players, game)))
    assert {"1 led", "off-colour tie", "empty Fool", "two Fools"} <= set(seen)
    assert {EndReason.SCORE_LIMIT, EndReason.TEN_LIMIT} <= set(seen)


def features(events: Sequence[Event]) -> Iterator[str]:
    """Yields the rare situations a game's events went through."""
    for event in events:
        if isinstance(event, TrickResolved):
            if event.cards[0].card.color is None:
                yield "1 led"
            off = [
                t.card.value
                for t in event.cards
                if t.card.color not in (None, event.lead_color)
            ]
            if len(off) > len(set(off)):
                yield "off-colour tie"
            if len(event.fools) == 2:
                yield "two Fools"
        if isinstance(event, RoundScored) and 0 in event.points:
            yield "empty Fool"
        if isinstance(event, GameEnded):
            yield from event.reasons
