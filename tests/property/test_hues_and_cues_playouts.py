"""Random complete Hues and Cues games checking every invariant of spec §7.

Moves are drawn by a seeded ``random.Random``: the cue giver takes a legal
first cue (any allowed target) or another valid cue from the vocabulary, gives
or skips the second cue; guessers land near the target with a per-game skill,
otherwise anywhere. Some games stall every tie-break round so that ties last to
the cap. The scoring oracle below is written again here rather than imported,
so that it checks the engine. What every game must do (legal moves accepted,
replay, hidden cards and targets) is checked by the contract suite,
``tests/contract/``.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.board import ALL_SQUARES, Square, parse_square
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.cues import Cue, check_cue
from domain.games.hues_and_cues.events import (
    CardDrawn,
    CueGiven,
    DeckShuffled,
    EndReason,
    Event,
    GameEnded,
    GuessPlaced,
    RoundScored,
    RoundStarted,
    SecondCueSkipped,
    TargetChosen,
    TargetRevealed,
)
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    HuesAndCuesConfig,
    Phase,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from domain.games.hues_and_cues.vocabulary import SUGGESTED_CUES
from tests.property.random_games import Check, RandomGame, play_out, set_up

PLAYER_COUNTS = tuple(range(3, 11))
GAMES_PER_PLAYER_COUNT = 26  # 208 games
RARE_GAMES = 8  # per player count, enough to reach every rare situation
MAX_MOVES = 2_000
SKILLS = (0.0, 0.25, 0.5, 0.9)
ALL_CARDS = sorted(CARDS)
# The squares within distance 2 of each square.
NEAR = {
    t: [
        s for s in ALL_SQUARES if max(abs(s.row - t.row), abs(s.column - t.column)) <= 2
    ]
    for t in ALL_SQUARES
}


def variant(game: int) -> bool:
    """Every fourth game plays the free-choice variant."""
    return game % 4 == 3


def stalls(game: int) -> bool:
    """Every fifth game guesses far away in tie-break rounds, so ties last."""
    return game % 5 == 1


# --- An independent oracle (§5.1, §5.2) ---


def chebyshev(a: Square, b: Square) -> int:
    """Returns the distance of §1.1."""
    return max(abs(a.row - b.row), abs(a.column - b.column))


def oracle_points(
    players: int, giver: int, target: Square, pieces: Sequence[tuple[int, Square]]
) -> tuple[int, ...]:
    """Returns §5.1's points per seat for a round's pieces."""
    points = [0] * players
    in_frame = 0
    for seat, square in pieces:
        d = chebyshev(square, target)
        points[seat] += {0: 3, 1: 2, 2: 1}.get(d, 0)
        in_frame += d <= 1
    points[giver] += in_frame * (2 if players == 3 else 1)
    return tuple(points)


def top(scores: Sequence[int]) -> tuple[int, ...]:
    """Returns the seats with the highest score."""
    return tuple(s for s, v in enumerate(scores) if v == max(scores))


# --- One game and what the checks remember of it ---


@dataclass
class Game:
    """One random game: its seedable parts and everything seen so far."""

    players: int
    variant: bool
    stall: bool
    skill: float
    match: RandomGame
    cues: list[str] = field(default_factory=list)  # normalised, in order
    totals: list[int] = field(default_factory=list)
    regular_givers: Counter[int] = field(default_factory=Counter)
    seen: Counter[str] = field(default_factory=Counter)
    # The current round.
    giver: int = -1
    card: tuple[Square, ...] = ()
    target: Square | None = None
    pieces: list[tuple[int, int, Square]] = field(default_factory=list)
    skipped: bool = False

    @property
    def state(self) -> State:
        """Returns the live state."""
        state: State = self.match.state
        return state


def new_game(players: int, game: int) -> Game:
    """Returns a game after its opening events, with a seed of its own."""
    first = None if game % 2 else game % players
    config = HuesAndCuesConfig(first_cue_giver=first, free_choice_variant=variant(game))
    match_ = set_up(RULES, players, config, f"hues-playout/{players}/{game}")
    result = Game(
        players=players,
        variant=variant(game),
        stall=stalls(game),
        skill=SKILLS[game % len(SKILLS)],
        match=match_,
    )
    result.totals = [0] * players
    check_events(result, match_.initial, match_.events)
    check_state(result.state)
    return result


# --- The bot ---


def choose_cue(game: Game, legal: list[Command], choose: random.Random) -> Command:
    """Returns a legal cue move, sometimes with another valid cue of the vocabulary.

    A second cue is skipped half the time, however many cues are listed.
    """
    gives = [m for m in legal if isinstance(m, GiveSecondCue)]
    skips = [m for m in legal if isinstance(m, SkipSecondCue)]
    move = choose.choice(choose.choice((gives, skips)) if gives and skips else legal)
    if isinstance(move, SkipSecondCue) or choose.random() < 0.6:
        return move
    words = choose.sample(SUGGESTED_CUES, 2)
    if isinstance(move, GiveFirstCue):
        text = words[0].capitalize()
        other: Command = GiveFirstCue(move.seat, move.target, text)
    else:
        text = choose.choice((" ", "-", "  ")).join(words)
        other = GiveSecondCue(move.seat, text)
    cue = check_cue(text, 1 if isinstance(move, GiveFirstCue) else 2, game.cues)
    return other if isinstance(cue, Cue) else move  # a repeat keeps the suggestion


def nth_legal(state: State, seat: int, index: int) -> Command:
    """Returns legal move number ``index`` without listing the ones after it."""
    return next(itertools.islice(RULES.legal_moves(state, seat), index, None))


def choose_guess(game: Game, seat: int, choose: random.Random) -> Command:
    """Returns a guess: near the target with the game's skill, else anywhere.

    In a stalling game's tie-break rounds every guess lands far from the target.
    Listing all ~480 guesses for every move is slow, so the full list is compared
    with the empty squares at each phase's first guess only; other moves take one
    legal move by its index.
    """
    state = game.state
    target = state.target
    assert target is not None
    taken = {piece.square for piece in state.pieces}
    empty = len(ALL_SQUARES) - len(taken)
    if len(state.guess_order) == game.players - 1:
        legal = list(RULES.legal_moves(state, seat))
        assert legal == [PlaceGuess(seat, s) for s in ALL_SQUARES if s not in taken]
    if game.stall and state.tiebreak:
        while True:
            move = nth_legal(state, seat, choose.randrange(empty))
            assert isinstance(move, PlaceGuess)
            if chebyshev(move.square, target) > 2:
                return move
    if choose.random() < game.skill:
        near = [s for s in NEAR[target] if s not in taken]
        if near:
            return PlaceGuess(seat, choose.choice(near))
    return nth_legal(state, seat, choose.randrange(empty))


def choose_move(game: Game, seat: int, choose: random.Random) -> Command:
    """Returns a move for ``seat`` built from its legal moves."""
    if game.state.phase in (Phase.FIRST_GUESSES, Phase.SECOND_GUESSES):
        return choose_guess(game, seat, choose)
    return choose_cue(game, list(RULES.legal_moves(game.state, seat)), choose)


# --- Invariants ---


def check_state(state: State) -> None:
    """Invariants 4 and 5 on a state between moves; one seat to move at a time."""
    if not state.config.free_choice_variant and state.phase is not Phase.SETUP:
        cards = [*state.deck, *state.used, *([state.card] if state.card else [])]
        assert sorted(cards) == ALL_CARDS  # 4: each card in exactly one place
    squares = [piece.square for piece in state.pieces]
    assert len(squares) == len(set(squares))  # 5: one piece per square
    owners = Counter(piece.seat for piece in state.pieces)
    assert state.cue_giver not in owners
    assert all(count <= 2 for count in owners.values())
    assert len(RULES.to_move(state)) == (0 if state.finished else 1)


def check_events(game: Game, before: State, events: Sequence[Event]) -> None:
    """Invariants 6-14 on one move's events, in order."""
    current = before
    for event in events:
        game.seen[type(event).__name__] += 1
        check_opening(game, current, event)
        check_play(game, current, event)
        current = RULES.evolve(current, event)


def check_opening(game: Game, current: State, event: Event) -> None:
    """Invariants 4, 11 and 12: shuffles, round starts, draws and targets."""
    match event:
        case DeckShuffled():
            assert sorted(event.cards) == ALL_CARDS
            assert event.size == len(event.cards)
        case RoundStarted():
            check_round_start(game, current, event)
        case CardDrawn():
            assert event.seat == game.giver
            assert event.card_id == current.deck[0]
            assert event.squares == CARDS[event.card_id].squares
            game.card = event.squares
        case TargetChosen():
            assert event.seat == game.giver
            assert event.target is not None
            if not game.variant:
                assert event.target in game.card  # 12
            game.target = event.target
        case _:
            pass


def check_play(game: Game, current: State, event: Event) -> None:
    """Invariants 5-10 and 14: cues, guesses, scoring and the end."""
    match event:
        case CueGiven():
            check_cue_given(game, event)
        case GuessPlaced():
            assert all(event.square != s for _, _, s in game.pieces)  # 5
            game.pieces.append((event.seat, event.guess_no, event.square))
        case SecondCueSkipped():
            game.skipped = True
        case TargetRevealed():
            assert event.target == game.target
        case RoundScored():
            check_scoring(game, event)
        case GameEnded():
            check_end(game, current, event)
        case _:
            pass


def check_round_start(game: Game, current: State, event: RoundStarted) -> None:
    """Invariant 11: who gives the cue; resets what is remembered of a round."""
    assert event.round == current.round + 1
    if event.tiebreak:
        tied = top(game.totals)
        assert 1 < len(tied) < game.players
        assert event.cue_giver not in tied
        assert event.round > current.regular_rounds
    else:
        assert event.round <= current.regular_rounds
        game.regular_givers[event.cue_giver] += 1
    game.giver = event.cue_giver
    game.card, game.target, game.pieces, game.skipped = (), None, [], False


def check_cue_given(game: Game, event: CueGiven) -> None:
    """Invariants 7 and 8: re-validated against the cues before it; no repeat."""
    assert event.seat == game.giver
    cue = check_cue(event.text, event.cue_no, tuple(game.cues))
    assert isinstance(cue, Cue), (event, cue)
    assert (cue.text, cue.normalized) == (event.text, event.normalized)
    assert event.normalized not in game.cues
    game.cues.append(event.normalized)
    game.seen[f"cue-{len(cue.words)}-words"] += 1


def check_scoring(game: Game, event: RoundScored) -> None:
    """Invariants 6, 9 and 10 from the round's guesses and its target."""
    n, g = game.players, game.giver
    firsts = [seat for seat, no, _ in game.pieces if no == 1]
    seconds = [seat for seat, no, _ in game.pieces if no == 2]
    assert firsts == [(g + k) % n for k in range(1, n)]  # 6: clockwise
    expected = [] if game.skipped else [(g - k) % n for k in range(1, n)]
    assert seconds == expected  # 6: counter-clockwise, or skipped (D11)
    assert game.target is not None
    assert event.target == game.target
    points = oracle_points(n, g, game.target, [(s, q) for s, _, q in game.pieces])
    assert event.points == points  # 10
    in_frame = sum(chebyshev(q, game.target) <= 1 for _, _, q in game.pieces)
    assert event.pieces_in_frame == in_frame
    assert points[g] == in_frame * (2 if n == 3 else 1) <= 9
    assert all(0 <= p <= 5 for s, p in enumerate(points) if s != g)
    assert len(event.pieces) == len(game.pieces)
    game.totals = [t + p for t, p in zip(game.totals, points, strict=True)]
    game.seen["exact-hit"] += any(p.distance == 0 for p in event.pieces)


def check_end(game: Game, state: State, event: GameEnded) -> None:
    """Invariants 10, 11 and 14 once the game ends."""
    assert list(event.scores) == game.totals == list(state.scores)
    assert event.winners == top(game.totals)
    expected = 2 if game.players <= 6 else 1
    assert game.regular_givers == dict.fromkeys(range(game.players), expected)
    if len(event.winners) == 1:
        assert event.reason is EndReason.SOLE_LEADER
    elif len(event.winners) == game.players:
        assert event.reason is EndReason.ALL_TIED
    else:
        assert event.reason is EndReason.TIEBREAK_CAP
        assert state.tiebreak_rounds == 10


# --- Playing ---


def check_move(game: Game) -> Check:
    """Returns the check of one move's events and the state after it."""

    def check(
        before: State, command: Command, events: tuple[Event, ...], after: State
    ) -> None:
        check_events(game, before, events)
        check_state(after)
        assert RULES.self_undoable(events) == all(
            isinstance(e, TargetChosen | CueGiven | GuessPlaced) for e in events
        )
        if isinstance(command, SkipSecondCue) or isinstance(events[-1], RoundStarted):
            assert not RULES.self_undoable(events)

    return check


@functools.cache
def played(players: int, game: int) -> Game:
    """Returns a random game played to its end (cached for the other tests)."""
    match_ = new_game(players, game)
    choose = random.Random(f"{players}/{game}")

    def pick(state: State) -> Command:
        (seat,) = RULES.to_move(state)
        return choose_move(match_, seat, choose)

    play_out(match_.match, pick, check_move(match_), MAX_MOVES)
    return match_


@pytest.mark.parametrize("game", range(GAMES_PER_PLAYER_COUNT))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_random_game_keeps_every_invariant_and_ends(players: int, game: int) -> None:
    match_ = played(players, game)
    outcome = RULES.outcome(match_.state)
    assert outcome.finished
    assert list(outcome.scores) == match_.totals
    assert outcome.winners == top(match_.totals)


def test_the_static_tables_hold() -> None:
    # Invariants 1-3 in brief (the unit tests check the vectors and checksums).
    assert len(ALL_SQUARES) == 480
    assert all(parse_square(str(s)) == s for s in ALL_SQUARES)
    assert len({s for card in CARDS.values() for s in card.squares}) == 400


def test_the_random_games_reach_every_rare_situation() -> None:
    seen: Counter[str] = Counter()
    ends: Counter[EndReason] = Counter()
    tiebreaks = 0
    for players in PLAYER_COUNTS:
        for game in range(RARE_GAMES):
            match_ = played(players, game)
            seen += match_.seen
            assert match_.state.end_reason is not None
            ends[match_.state.end_reason] += 1
            tiebreaks += match_.state.tiebreak_rounds
    assert set(ends) == set(EndReason), ends
    assert tiebreaks > 0
    for name in ("SecondCueSkipped", "cue-2-words", "exact-hit", "CardDrawn"):
        assert seen[name] > 0, name
    assert seen["DeckShuffled"] == sum(not variant(g) for g in range(RARE_GAMES)) * len(
        PLAYER_COUNTS
    )
