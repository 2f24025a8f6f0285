"""Random complete Gnoming A Round games checking every invariant of spec §6.

Moves are drawn by a seeded ``random.Random`` from ``legal_moves``: uniformly in
even games, by command type first in odd ones (so that draws, rejects, stops
and declines are common and draw piles run out). The scoring oracle below is
written again here rather than imported, so that it checks the engine.
A second test replays some games event by event and asks, for every viewer and
every revision, that no view or visible event names a face-down card (the
owner's included), a card of the draw pile, or another seat's drawn card.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import itertools
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
from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.cards import CANONICAL, Card, Kind, card_from_id
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

GAMES_PER_PLAYER_COUNT = 40
PLAYER_COUNTS = (3, 4, 5, 6, 7)
REDACTION_GAMES = 4  # per player count, checked at every revision
MAX_MOVES = 20_000
EXTRA_LEGAL_CHECKS = 1
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
class Game:
    """One random game: the live state, every event and what the checks track."""

    players: int
    rng: Rng
    initial: State
    state: State
    events: list[Event] = field(default_factory=list)
    filled: list[int] = field(default_factory=list)  # positions filled this turn
    final_turns: list[int] | None = None  # seats that started a turn since trigger
    totals: list[int] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)


def new_game(players: int, game: int) -> Game:
    """Returns a dealt game with a seed of its own."""
    seed = hashlib.sha256(f"gnoming-playout/{players}/{game}".encode()).digest()
    config = GnomingARoundConfig(first_player=game % players)
    initial = RULES.initial_state(players, config)
    result = Game(players, Rng(seed), initial, initial, totals=[0] * players)
    opening = RULES.setup(initial, result.rng)
    result.events.extend(opening)
    result.state = RULES.fold(initial, opening)
    return result


def choose_move(legal: list[Command], choose: random.Random, by_type: bool) -> Command:
    """Returns a random legal move, uniform or by command type first."""
    if not by_type:
        return choose.choice(legal)
    groups: dict[type, list[Command]] = defaultdict(list)
    for move in legal:
        groups[type(move)].append(move)
    return choose.choice(groups[choose.choice(list(groups))])


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


def check_bounce(game: Game, before: State, command: Bounce) -> None:
    """Invariant 6: the card bounced was eligible; the target is new this turn."""
    assert before.phase is Phase.BOUNCE
    card = before.in_hand
    assert card is not None
    assert card.kind is Kind.POSITIVE
    placement = next(
        e for e in reversed(game.events) if isinstance(e, CardKept | CardBounced)
    )
    assert placement.displaced == card
    assert placement.displaced_face_down
    layout = before.layouts[command.seat]
    assert any(
        s.face_up and s.card.kind is Kind.POSITIVE and s.card.value == card.value
        for s in layout
    )
    assert command.position not in game.filled


def check_events(game: Game, before: State, events: Sequence[Event]) -> None:
    """Invariants 4, 5, 7, 9 and 11 over one move's events."""
    state = before
    flips = any(isinstance(e, InitialCardsFlipped) for e in events)
    for event in events:
        after = RULES.evolve(state, event)
        game.seen[type(event).__name__] += 1
        check_event(game, state, after, event)
        if isinstance(event, TurnStarted):
            check_turn_start(game, after, event, flips=flips)
        if not isinstance(event, RoundDealt):  # invariant 5
            down_before, down_after = face_down(state), face_down(after)
            assert all(a <= b for a, b in zip(down_after, down_before, strict=True))
        state = after


def check_turn_start(
    game: Game, after: State, event: TurnStarted, *, flips: bool
) -> None:
    """Invariants 4 and 9 when a turn starts."""
    game.filled = []
    if game.final_turns is not None:
        game.final_turns.append(event.seat)
    if flips:  # the last initial flip started the turns
        assert face_down(after) == [7] * game.players


def check_event(game: Game, state: State, after: State, event: Event) -> None:
    """Invariants 5, 7, 9, 10 and 11 for one event."""
    match event:
        case RoundDealt():
            game.filled = []
            game.seen["removed at deal"] += len(event.removed)
        case CardKept():
            if event.card.kind is Kind.MULLIGAN:  # invariant 7
                layout = state.layouts[event.seat]
                assert not any(
                    s.face_up and s.card.kind is Kind.MULLIGAN for s in layout
                )
            game.filled.append(event.position)
        case CardBounced():
            game.filled.append(event.position)
        case HazardFlipped():
            assert face_down(after)[event.seat] >= 1
        case RoundEndTriggered():
            assert face_down(after)[event.seat] == 0
            game.final_turns = []
        case RoundScored():
            check_round(game, state, event)
        case _:
            pass


def check_round(game: Game, before: State, event: RoundScored) -> None:
    """Invariants 9-11 at a round's end."""
    trigger = event.first_out
    n = game.players
    assert game.final_turns == [(trigger + k) % n for k in range(1, n)]
    game.final_turns = None
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
    game.totals = [t + s for t, s in zip(game.totals, event.scores, strict=True)]
    assert list(event.totals) == game.totals


def check_turn_end(state: State) -> None:
    """Invariant 8: after END_OF_TURN an empty pile means nothing could refill it."""
    if state.phase is not Phase.DRAW:
        return
    for pile in state.discards:
        if not pile:
            assert not state.draw_pile
            assert all(len(p) <= 1 for p in state.discards)


def check_views(state: State) -> None:
    """Every seat sees the spectator's public part; only the drawer sees more."""
    spectator = RULES.view(state, Spectator())
    assert spectator.private is None
    for seat in range(state.players):
        seen = RULES.view(state, Seat(seat))
        assert seen.public == spectator.public
        assert seen.private is not None
        drawer = seat == state.active and state.in_hand_drawn
        assert seen.private.drawn_card == (state.in_hand if drawer else None)


def play_move(game: Game, choose: random.Random, by_type: bool) -> None:
    """Plays one random legal move and checks every invariant after it."""
    before = game.state
    seats = RULES.to_move(before)
    assert seats, "somebody may always act until the game is over"
    seat = choose.choice(seats)
    legal = list(RULES.legal_moves(before, seat))
    assert legal, (seat, before.phase)
    command = choose_move(legal, choose, by_type)
    for extra in choose.sample(legal, min(EXTRA_LEGAL_CHECKS, len(legal))):
        assert isinstance(RULES.decide(before, extra, game.rng), Accepted), extra
    decision = RULES.decide(before, command, game.rng)
    assert isinstance(decision, Accepted), (command, decision)
    if isinstance(command, Bounce):
        check_bounce(game, before, command)
    check_events(game, before, decision.events)
    game.events.extend(decision.events)
    game.state = RULES.fold(before, decision.events)
    check_cards(game.state)
    check_turn_end(game.state)
    check_views(game.state)


def check_end(game: Game) -> None:
    """Invariant 10 and D16 at the end; replay equals the live state."""
    state = game.state
    ended = game.events[-1]
    assert isinstance(ended, GameEnded)
    assert len(state.round_scores) == 3
    assert list(state.totals) == game.totals
    assert state.totals == tuple(map(sum, zip(*state.round_scores, strict=True)))
    best = min(state.totals)
    tied = [s for s, t in enumerate(state.totals) if t == best]
    third = state.round_scores[-1]
    assert ended.winners == tuple(
        s for s in tied if third[s] == min(third[t] for t in tied)
    )
    assert RULES.outcome(state).winners == ended.winners
    assert RULES.fold(game.initial, tuple(game.events)) == state


@functools.cache
def played(players: int, game: int) -> Game:
    """Returns a finished random game, every invariant checked on the way."""
    match_ = new_game(players, game)
    check_cards(match_.state)
    choose = random.Random(f"{players}/{game}")
    for _ in range(MAX_MOVES):
        if match_.state.finished:
            break
        play_move(match_, choose, by_type=game % 2 == 1)
    assert match_.state.finished, "the game did not end"
    check_end(match_)
    return match_


@pytest.mark.parametrize("game", range(GAMES_PER_PLAYER_COUNT))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_random_game_keeps_every_invariant_and_ends(players: int, game: int) -> None:
    played(players, game)


def test_the_random_games_reach_every_rare_situation() -> None:
    seen: Counter[str] = Counter()
    for players, game in itertools.product(
        PLAYER_COUNTS, range(GAMES_PER_PLAYER_COUNT)
    ):
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


def secrets_for(state: State, seat: int | None) -> set[Card]:
    """Returns the cards ``seat`` (None: a spectator) must not see in ``state``."""
    hidden = {s.card for layout in state.layouts for s in layout if not s.face_up}
    hidden |= set(state.draw_pile)
    if state.in_hand is not None and state.in_hand_drawn and seat != state.active:
        hidden.add(state.in_hand)
    return hidden


@pytest.mark.parametrize("game", range(REDACTION_GAMES))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_no_viewer_ever_sees_a_face_down_card_or_the_draw_pile(
    players: int, game: int
) -> None:
    match_ = played(players, game)
    viewers: list[tuple[Viewer, int | None]] = [(Spectator(), None)]
    viewers += [(Seat(s), s) for s in range(players)]
    state = match_.initial
    for event in match_.events:
        state = RULES.evolve(state, event)
        if state.finished:
            break  # at the end every viewer sees everything (DESIGN §5)
        for viewer, seat in viewers:
            secret = secrets_for(state, seat)
            shown = RULES.visible(event, viewer)
            assert type(shown) is type(event)
            assert not set(cards_in(shown)) & secret, (event, viewer)
            assert not set(cards_in(RULES.view(state, viewer))) & secret, viewer


# --- The same through the API messages ---


def api_converter() -> Any:
    """Returns the game's proto conversion module."""
    return importlib.import_module("services.api.convert.gnoming_a_round")


def message_cards(message: Message) -> Iterator[Card]:
    """Yields every card a message holds, by its id."""
    if type(message).__name__ == "GnomingARoundCard":
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
    state = match_.initial
    viewers: list[tuple[Viewer, int | None]] = [(Spectator(), None)]
    viewers += [(Seat(s), s) for s in range(players)]
    for event in match_.events:
        state = RULES.evolve(state, event)
        if state.finished:
            break
        for viewer, seat in viewers:
            secret = secrets_for(state, seat)
            shown = convert.event_to_proto(RULES.visible(event, viewer), names)
            assert not set(message_cards(shown)) & secret
            if isinstance(event, TurnStarted | RoundDealt):
                domain_view = RULES.view(state, viewer)
                seen = convert.view_to_proto(domain_view, names)
                assert set(message_cards(seen)) == set(cards_in(domain_view))
                assert not set(message_cards(seen)) & secret


def test_every_legal_move_survives_the_round_trip_through_its_message() -> None:
    convert = api_converter()
    match_ = played(5, 1)
    state = match_.initial
    for event in match_.events[:400]:
        state = RULES.evolve(state, event)
        for seat in RULES.to_move(state):
            for move in RULES.legal_moves(state, seat):
                message = convert.move_to_proto(move)
                assert convert.move_from_proto(message, seat, "move") == move
    config = GnomingARoundConfig(first_player=3)
    assert convert.config_from_proto(convert.config_to_proto(config)) == config
