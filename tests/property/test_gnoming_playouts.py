"""Random complete Gnoming A Round games checking every invariant of spec §6.

Moves are drawn by a seeded ``random.Random`` from ``legal_moves``: uniformly in
even games, by command type first in odd ones (so that draws, rejects, stops
and declines are common and draw piles run out). The scoring oracle below is
written again here rather than imported, so that it checks the engine. What
every game must do (legal moves accepted, replay, face-down cards, the draw
pile and another seat's draw hidden, messages) is checked by the contract
suite, ``tests/contract/``.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.cards import CANONICAL, Card, Kind
from domain.games.gnoming_a_round.events import (
    CardBounced,
    CardKept,
    Event,
    GameEnded,
    HazardFlipped,
    InitialCardsFlipped,
    RoundDealt,
    RoundEndTriggered,
    RoundScored,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    Bounce,
    Command,
    GnomingARoundConfig,
    Phase,
    State,
)
from tests.contract.playouts import pick
from tests.property.random_games import RandomGame, play_out, set_up

GAMES_PER_PLAYER_COUNT = 40
PLAYER_COUNTS = (3, 4, 5, 6, 7)
RARE_GAMES = 4  # per player count, enough to reach every rare situation
MAX_MOVES = 20_000
ROWS_AND_COLUMNS = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8)]
LOOSE_PHASES = (Phase.DECIDE, Phase.BOUNCE, Phase.DISCARD)


# --- An independent scoring oracle (§4.1) ---


def oracle_points(cards: Sequence[Card], wild: int | None) -> int:
    """Returns §4.1 steps 2-4 for one choice of wild mulligan."""
    in_set: set[int] = set()
    total = 0
    for line in ROWS_AND_COLUMNS:
        line_cards = [(p, cards[p]) for p in line]
        if any(c.kind in (Kind.NEGATIVE, Kind.HAZARD) for _, c in line_cards):
            continue
        if any(c.kind is Kind.MULLIGAN and p != wild for p, c in line_cards):
            continue
        values = {c.value for _, c in line_cards if c.kind is Kind.POSITIVE}
        if len(values) == 1:  # three equal positives or two and the wild
            total -= values.pop()
            in_set.update(line)
    for p, c in enumerate(cards):
        if p not in in_set:
            total += {Kind.HAZARD: 10, Kind.MULLIGAN: 0}.get(c.kind, c.value)
    return total


def oracle_score(cards: Sequence[Card]) -> tuple[int, int | None]:
    """Returns the lowest score over every wild choice, and that choice (D12)."""
    choices: list[int | None] = [
        p for p, c in enumerate(cards) if c.kind is Kind.MULLIGAN
    ] or [None]
    best = min(choices, key=lambda w: (oracle_points(cards, w), w or 0))
    return oracle_points(cards, best), best


# --- One game ---


@dataclass
class Tally:
    """What the checks track from one game's events."""

    players: int
    filled: list[int] = field(default_factory=list)  # positions filled this turn
    final_turns: list[int] | None = None  # seats that started a turn since trigger
    totals: list[int] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)
    placement: CardKept | CardBounced | None = None  # the last card placed

    def check(
        self, before: State, command: Command, events: tuple[Event, ...], after: State
    ) -> None:
        """Checks every invariant around one move."""
        if isinstance(command, Bounce):
            check_bounce(self, before, command)
        check_events(self, before, events)
        check_cards(after)
        check_turn_end(after)


def new_game(players: int, game: int) -> tuple[RandomGame, Tally]:
    """Returns a dealt game with a seed of its own, and its tally."""
    config = GnomingARoundConfig(first_player=game % players)
    dealt = set_up(RULES, players, config, f"gnoming-playout/{players}/{game}")
    return dealt, Tally(players, totals=[0] * players)


def all_cards(state: State) -> list[Card]:
    """Returns every card of the state, wherever it lies."""
    cards = [s.card for layout in state.layouts for s in layout]
    cards += [*state.draw_pile, *state.removed]
    cards += [c for pile in state.discards for c in pile]
    return cards + ([state.in_hand] if state.in_hand is not None else [])


def check_cards(state: State) -> None:
    """Invariants 1-3: conservation, composition, nine cards per layout."""
    cards = all_cards(state)
    assert len(cards) == 110
    assert set(cards) == set(CANONICAL)
    kinds = Counter(c.kind for c in cards)
    assert kinds == {
        Kind.POSITIVE: 82,
        Kind.NEGATIVE: 22,
        Kind.HAZARD: 3,
        Kind.MULLIGAN: 3,
    }
    assert all(len(layout) == 9 for layout in state.layouts)
    assert (state.in_hand is not None) == (state.phase in LOOSE_PHASES)
    assert all(c.kind is Kind.HAZARD for c in state.removed)
    assert all(c.kind is not Kind.HAZARD for pile in state.discards for c in pile)


def face_down(state: State) -> list[int]:
    """Returns each seat's number of face-down cards."""
    return [sum(not s.face_up for s in layout) for layout in state.layouts]


def check_bounce(tally: Tally, before: State, command: Bounce) -> None:
    """Invariant 6: the card bounced was eligible; the target is new this turn."""
    assert before.phase is Phase.BOUNCE
    card = before.in_hand
    assert card is not None
    assert card.kind is Kind.POSITIVE
    placement = tally.placement
    assert placement is not None
    assert placement.displaced == card
    assert placement.displaced_face_down
    layout = before.layouts[command.seat]
    assert any(
        s.face_up and s.card.kind is Kind.POSITIVE and s.card.value == card.value
        for s in layout
    )
    assert command.position not in tally.filled


def check_events(tally: Tally, before: State, events: Sequence[Event]) -> None:
    """Invariants 4, 5, 7, 9 and 11 over one move's events."""
    state = before
    flips = any(isinstance(e, InitialCardsFlipped) for e in events)
    for event in events:
        after = RULES.evolve(state, event)
        tally.seen[type(event).__name__] += 1
        check_event(tally, state, after, event)
        if isinstance(event, TurnStarted):
            check_turn_start(tally, after, event, flips=flips)
        if not isinstance(event, RoundDealt):  # invariant 5
            down_before, down_after = face_down(state), face_down(after)
            assert all(a <= b for a, b in zip(down_after, down_before, strict=True))
        state = after


def check_turn_start(
    tally: Tally, after: State, event: TurnStarted, *, flips: bool
) -> None:
    """Invariants 4 and 9 when a turn starts."""
    tally.filled = []
    if tally.final_turns is not None:
        tally.final_turns.append(event.seat)
    if flips:  # the last initial flip started the turns
        assert face_down(after) == [7] * tally.players


def check_event(tally: Tally, state: State, after: State, event: Event) -> None:
    """Invariants 5, 7, 9, 10 and 11 for one event."""
    match event:
        case RoundDealt():
            tally.filled = []
            tally.seen["removed at deal"] += len(event.removed)
        case CardKept():
            if event.card.kind is Kind.MULLIGAN:  # invariant 7
                layout = state.layouts[event.seat]
                assert not any(
                    s.face_up and s.card.kind is Kind.MULLIGAN for s in layout
                )
            tally.filled.append(event.position)
            tally.placement = event
        case CardBounced():
            tally.filled.append(event.position)
            tally.placement = event
        case HazardFlipped():
            assert face_down(after)[event.seat] >= 1
        case RoundEndTriggered():
            assert face_down(after)[event.seat] == 0
            tally.final_turns = []
        case RoundScored():
            check_round(tally, state, event)
        case _:
            pass


def check_round(tally: Tally, before: State, event: RoundScored) -> None:
    """Invariants 9-11 at a round's end."""
    trigger = event.first_out
    n = tally.players
    assert tally.final_turns == [(trigger + k) % n for k in range(1, n)]
    tally.final_turns = None
    assert event.layouts == tuple(
        tuple(s.card for s in layout) for layout in before.layouts
    )
    for seat, cards in enumerate(event.layouts):
        assert (event.base_scores[seat], event.wild[seat]) == oracle_score(cards)
    others = [s for seat, s in enumerate(event.base_scores) if seat != trigger]
    expected = 5 if min(others) < event.base_scores[trigger] else -5
    assert event.adjustment == expected
    differences = [s - b for s, b in zip(event.scores, event.base_scores, strict=True)]
    assert differences == [expected if seat == trigger else 0 for seat in range(n)]
    tally.totals = [t + s for t, s in zip(tally.totals, event.scores, strict=True)]
    assert list(event.totals) == tally.totals


def check_turn_end(state: State) -> None:
    """Invariant 8: after END_OF_TURN an empty pile means nothing could refill it."""
    if state.phase is not Phase.DRAW:
        return
    for pile in state.discards:
        if not pile:
            assert not state.draw_pile
            assert all(len(p) <= 1 for p in state.discards)


def check_end(match_: RandomGame, tally: Tally) -> None:
    """Invariant 10 and D16 at the end."""
    state: State = match_.state
    ended = match_.events[-1]
    assert isinstance(ended, GameEnded)
    assert len(state.round_scores) == 3
    assert list(state.totals) == tally.totals
    assert state.totals == tuple(map(sum, zip(*state.round_scores, strict=True)))
    best = min(state.totals)
    tied = [s for s, t in enumerate(state.totals) if t == best]
    third = state.round_scores[-1]
    assert ended.winners == tuple(
        s for s in tied if third[s] == min(third[t] for t in tied)
    )
    assert RULES.outcome(state).winners == ended.winners


@functools.cache
def played(players: int, game: int) -> Tally:
    """Returns the tally of a finished random game, every invariant checked."""
    match_, tally = new_game(players, game)
    check_cards(match_.state)
    choose = random.Random(f"{players}/{game}")

    def pick_move(state: State) -> Command:
        seat = choose.choice(RULES.to_move(state))
        legal = tuple(RULES.legal_moves(state, seat))
        command: Command = pick(legal, choose) if game % 2 else choose.choice(legal)
        return command

    play_out(match_, pick_move, tally.check, MAX_MOVES)
    check_end(match_, tally)
    return tally


@pytest.mark.parametrize("game", range(GAMES_PER_PLAYER_COUNT))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_random_game_keeps_every_invariant_and_ends(players: int, game: int) -> None:
    played(players, game)


def test_the_random_games_reach_every_rare_situation() -> None:
    seen: Counter[str] = Counter()
    for players, game in itertools.product(PLAYER_COUNTS, range(RARE_GAMES)):
        seen += played(players, game).seen
    for name in (
        "DrawPileReshuffled",
        "CardBounced",
        "HazardFlipped",
        "HazardDeclined",
        "HazardRemoved",
        "DiscardPileRefilled",
        "CardRejected",
        "removed at deal",
    ):
        assert seen[name] >= 1, name
