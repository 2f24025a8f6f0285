"""Random complete Split games checking every invariant of spec §7.

Moves are drawn by a seeded ``random.Random`` from ``legal_moves``, by command
type first so that matches, upgrades, bonuses and going out are common. The
scoring oracle below is written again here rather than imported, so that it
checks the engine. A second test replays some games event by event and asks,
for every viewer and every revision, that no view or visible event names a card
of another seat's hand (unless it passed through the public discard row) or of
the draw pile; a third asks the same of the API messages.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import random
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from google.protobuf.message import Message

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.seats import Seat, Spectator, Viewer
from domain.games.split import RULES
from domain.games.split.cards import Card, Half, MatchType, card_from_id, pair_type
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

GAMES_PER_PLAYER_COUNT = 40
PLAYER_COUNTS = (2, 3, 4, 5, 6)
REDACTION_GAMES = 2  # per player count, checked at every revision
MAX_MOVES = 5_000
STRENGTH = {MatchType.WEAK: 1, MatchType.STRONG: 2, MatchType.PERFECT: 3}
PLAYING = (Phase.DRAW, Phase.PLAY, Phase.BONUS)


# --- An independent scoring oracle (§1.3) ---


def oracle_total(rows: Sequence[int], negatives: int) -> int:
    """Returns a sheet's total: triangular rows capped at 8, less 2 per negative."""
    values = [0, 1, 3, 6, 10, 15, 21, 28, 36]
    return sum(values[min(m, 8)] for m in rows) - 2 * negatives


@dataclass
class Game:
    """One random game: its seedable parts and everything seen so far."""

    players: int
    rng: Rng
    initial: State
    state: State
    events: list[Event] = field(default_factory=list)
    rows: list[list[int]] = field(default_factory=list)
    negatives: list[int] = field(default_factory=list)
    rounds: list[RoundDealt] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)


def new_game(players: int, game: int) -> Game:
    """Returns a dealt game with a seed of its own."""
    seed = hashlib.sha256(f"split-playout/{players}/{game}".encode()).digest()
    initial = RULES.initial_state(players, SplitConfig(first_dealer=game % players))
    result = Game(players, Rng(seed), initial, initial)
    result.rows = [[0] * 13 for _ in range(players)]
    result.negatives = [0] * players
    opening = RULES.setup(initial, result.rng)
    result.events.extend(opening)
    result.state = RULES.fold(initial, opening)
    assert isinstance(opening[0], RoundDealt)
    result.rounds.append(opening[0])
    check_deal(result.state)
    return result


def choose_move(legal: list[Command], choose: random.Random) -> Command:
    """Returns a random legal move, by command type first."""
    groups: dict[type, list[Command]] = defaultdict(list)
    for move in legal:
        groups[type(move)].append(move)
    return choose.choice(groups[choose.choice(list(groups))])


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


def check_events(game: Game, before: State, events: Sequence[Event]) -> None:
    """Invariants 7-11 on one move's events."""
    current = before
    for index, event in enumerate(events):
        game.seen[type(event).__name__] += 1
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
                game.negatives[event.seat] += 1
            case RoundEnded():
                check_round_end(game, before, event, events)
            case RoundScored():
                check_scoring(game, current, event)
            case RoundDealt():
                game.rounds.append(event)
            case GameEnded():
                assert len(game.rounds) == 3
                totals = tuple(
                    oracle_total(rows, neg)
                    for rows, neg in zip(game.rows, game.negatives, strict=True)
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
    game: Game, before: State, event: RoundEnded, events: Sequence[Event]
) -> None:
    """Invariants 6 and 11: why a round ends, and who deals next (D13)."""
    dealer = game.rounds[-1].dealer
    if event.reason is EndReason.WENT_OUT:
        assert any(isinstance(e, CardDiscarded) for e in events)
        assert event.next_dealer == event.seat
    else:
        drawn = [e for e in events if isinstance(e, CardDrawn)]
        assert len(drawn) == 1
        assert len(before.draw_pile) == 1
        assert event.next_dealer == (dealer + 1) % game.players


def check_scoring(game: Game, state: State, event: RoundScored) -> None:
    """Invariants 9 and 10: one mark per match, one negative per card left."""
    assert len(event.credits) == len(state.matches)
    assert event.hands_left == state.hands
    for credit in event.credits:
        game.rows[credit.seat][list(type(credit.rank)).index(credit.rank)] += 1
    for seat, hand in enumerate(event.hands_left):
        game.negatives[seat] += len(hand)
    totals = tuple(
        oracle_total(rows, neg)
        for rows, neg in zip(game.rows, game.negatives, strict=True)
    )
    assert event.totals == totals


def play_move(game: Game, choose: random.Random) -> None:
    """Plays one random legal move and checks every invariant around it."""
    state = game.state
    (seat,) = RULES.to_move(state)
    legal = list(RULES.legal_moves(state, seat))
    assert legal
    for other in range(game.players):
        if other != seat:
            assert not list(RULES.legal_moves(state, other))
    command = choose_move(legal, choose)
    decision = RULES.decide(state, command, game.rng)
    assert isinstance(decision, Accepted), (command, decision)
    extra = choose.choice(legal)  # legal_moves yields only accepted commands
    assert isinstance(RULES.decide(state, extra, game.rng), Accepted), extra
    events = decision.events
    check_events(game, state, events)
    game.state = RULES.fold(state, events)
    check_bonus_pending(game.state, events)
    if isinstance(events[-1], RoundDealt):
        check_deal(game.state)
    game.events.extend(events)
    check_state(game.state)


@functools.cache
def played(players: int, game: int) -> Game:
    """Returns a random game played to its end (cached for the other tests)."""
    match_ = new_game(players, game)
    choose = random.Random(f"{players}/{game}")
    for _ in range(MAX_MOVES):
        if match_.state.finished:
            break
        play_move(match_, choose)
    assert match_.state.finished
    return match_


@pytest.mark.parametrize("game", range(GAMES_PER_PLAYER_COUNT))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_random_game_keeps_every_invariant_and_ends(players: int, game: int) -> None:
    match_ = played(players, game)
    assert RULES.fold(match_.initial, tuple(match_.events)) == match_.state
    assert len(match_.rounds) == 3
    outcome = RULES.outcome(match_.state)
    assert outcome.finished
    totals = [
        oracle_total(r, n) for r, n in zip(match_.rows, match_.negatives, strict=True)
    ]
    assert list(outcome.scores) == totals
    best = max(zip(totals, (-n for n in match_.negatives), strict=True))
    assert outcome.winners == tuple(
        s
        for s, key in enumerate(
            zip(totals, (-n for n in match_.negatives), strict=True)
        )
        if key == best
    )


def test_the_random_games_reach_every_rare_situation() -> None:
    seen: Counter[str] = Counter()
    ends: Counter[EndReason] = Counter()
    for players in PLAYER_COUNTS:
        for game in range(GAMES_PER_PLAYER_COUNT):
            match_ = played(players, game)
            seen += match_.seen
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
        for e in played(p, 0).events
        if isinstance(e, WeakBonusResolved) and e.own_match_id is not None
    ]
    assert swaps
    assert ends[EndReason.WENT_OUT] > 0
    assert ends[EndReason.DRAW_PILE_EMPTY] > 0


# --- Hidden information at every revision ---


def cards_in(value: object) -> Iterator[Card]:
    """Yields every card named anywhere inside a view or an event."""
    if isinstance(value, Card):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from cards_in(getattr(value, item.name))
    elif isinstance(value, tuple):
        for item in value:
            yield from cards_in(item)


def secrets_for(state: State, seat: int | None, public: set[Card]) -> set[Card]:
    """Returns the cards ``seat`` (None: a spectator) must not see in ``state``."""
    hidden = set(state.draw_pile)
    if state.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
        for owner, hand in enumerate(state.hands):
            if owner != seat:
                hidden |= set(hand) - public
    return hidden


def revisions(match_: Game) -> Iterator[tuple[Event, State, set[Card]]]:
    """Yields every event with the state after it and the cards made public."""
    state = match_.initial
    public: set[Card] = set()
    for event in match_.events:
        state = RULES.evolve(state, event)
        if isinstance(event, RoundDealt):
            public = {event.discard}
        elif isinstance(event, CardDiscarded):
            public.add(event.card)
        if state.finished:
            return  # at the end every viewer sees everything (DESIGN §5)
        yield event, state, public


def viewers(players: int) -> list[tuple[Viewer, int | None]]:
    """Returns the spectator and every seat."""
    return [(Spectator(), None), *((Seat(s), s) for s in range(players))]


@pytest.mark.parametrize("game", range(REDACTION_GAMES))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_no_viewer_ever_sees_another_hand_or_the_draw_pile(
    players: int, game: int
) -> None:
    match_ = played(players, game)
    for event, state, public in revisions(match_):
        for viewer, seat in viewers(players):
            secret = secrets_for(state, seat, public)
            shown = RULES.visible(event, viewer)
            assert type(shown) is type(event)
            assert not set(cards_in(shown)) & secret, (event, viewer)
            assert not set(cards_in(RULES.view(state, viewer))) & secret, viewer


# --- The same through the API messages ---


def api_converter() -> Any:
    """Returns the game's proto conversion module."""
    return importlib.import_module("services.api.convert.split")


def message_cards(message: Message) -> Iterator[Card]:
    """Yields every card a message holds, by its id."""
    if type(message).__name__ == "SplitCard":
        card = card_from_id(message.id)  # type: ignore[attr-defined]
        assert card is not None, message
        yield card
        return
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        items = value if descriptor.is_repeated else [value]
        for item in items:
            yield from message_cards(item)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_api_messages_hide_what_the_views_hide(players: int) -> None:
    convert = api_converter()
    match_ = played(players, 0)
    names = "games/g/players/{}".format
    for event, state, public in revisions(match_):
        for viewer, seat in viewers(players):
            secret = secrets_for(state, seat, public)
            shown = convert.event_to_proto(RULES.visible(event, viewer), names)
            assert not set(message_cards(shown)) & secret
            if isinstance(event, RoundDealt | CardDrawn | RoundScored):
                domain_view = RULES.view(state, viewer)
                seen = convert.view_to_proto(domain_view, names)
                assert set(message_cards(seen)) == set(cards_in(domain_view))
                assert not set(message_cards(seen)) & secret


def test_every_legal_move_survives_the_round_trip_through_its_message() -> None:
    convert = api_converter()
    match_ = played(4, 1)
    state = match_.initial
    for event in match_.events:
        state = RULES.evolve(state, event)
        for seat in RULES.to_move(state):
            for move in RULES.legal_moves(state, seat):
                message = convert.move_to_proto(move)
                assert convert.move_from_proto(message, seat, "move") == move
    config = SplitConfig(first_dealer=3)
    assert convert.config_from_proto(convert.config_to_proto(config)) == config
