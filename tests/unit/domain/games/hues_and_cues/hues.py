"""Small builders for Hues and Cues tests: games started and played by commands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from domain.common.decision import Accepted, Decision, Rejected
from domain.common.rng import Rng
from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.board import ALL_SQUARES, Square, distance, parse_square
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.events import Event
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    HuesAndCuesConfig,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from domain.games.hues_and_cues.vocabulary import SUGGESTED_CUES

HUES_RNG = Rng(bytes(range(32)))


def sq(name: str) -> Square:
    """Returns the square a name such as ``"H15"`` names."""
    square = parse_square(name)
    assert square is not None, name
    return square


@dataclass
class Game:
    """A game played through ``decide``: its initial state, events and state."""

    initial: State
    state: State
    events: list[Event] = field(default_factory=list)
    rng: Rng = HUES_RNG

    def play(self, command: Command) -> tuple[Event, ...]:
        """Plays a command that must be accepted; returns its events."""
        decision: Decision[Event] = RULES.decide(self.state, command, self.rng)
        assert isinstance(decision, Accepted), (command, decision)
        self.events.extend(decision.events)
        self.state = RULES.fold(self.state, decision.events)
        return decision.events

    def refuse(self, command: Command) -> Rejected:
        """Returns the refusal of a command that must be refused."""
        decision = RULES.decide(self.state, command, self.rng)
        assert isinstance(decision, Rejected), decision
        return decision


def start(
    players: int,
    first: int | None = 0,
    *,
    variant: bool = False,
    rng: Rng = HUES_RNG,
) -> Game:
    """Returns a game after its opening events."""
    config = HuesAndCuesConfig(first_cue_giver=first, free_choice_variant=variant)
    initial = RULES.initial_state(players, config)
    opening = RULES.setup(initial, rng)
    return Game(initial, RULES.fold(initial, opening), list(opening), rng)


def play_round(
    game: Game,
    target: Square,
    first: Mapping[int, str],
    second: Mapping[int, str] | None = None,
    cues: Sequence[str] | None = None,
) -> tuple[Event, ...]:
    """Plays a whole round; guesses by seat, placed in the order the game asks.

    ``second`` None skips the second cue; ``cues`` None gives suggested cues.
    Returns the last move's events.
    """
    giver = game.state.cue_giver
    game.play(GiveFirstCue(giver, target, _cue(game, cues, 0)))
    _guesses(game, first)
    if second is None:
        return game.play(SkipSecondCue(giver))
    game.play(GiveSecondCue(giver, _cue(game, cues, 1)))
    return _guesses(game, second)


def _cue(game: Game, cues: Sequence[str] | None, index: int) -> str:
    if cues is not None:
        return cues[index]
    return next(word for word in SUGGESTED_CUES if word not in game.state.cues)


def _guesses(game: Game, squares: Mapping[int, str]) -> tuple[Event, ...]:
    last: tuple[Event, ...] = ()
    while game.state.guess_order:
        seat = game.state.guess_order[0]
        last = game.play(PlaceGuess(seat, sq(squares[seat])))
    return last


def far_round(game: Game) -> tuple[Event, ...]:
    """Plays a round in which nobody scores: every guess far from the target."""
    target = game_target(game)
    far = (str(s) for s in ALL_SQUARES if distance(s, target) > 2)
    guessers = sorted(set(range(game.state.players)) - {game.state.cue_giver})
    return play_round(game, target, dict(zip(guessers, far, strict=False)))


def game_target(game: Game) -> Square:
    """Returns a target the cue giver may choose: the card's first square, or H15."""
    if game.state.card is None:
        return sq("H15")
    return CARDS[game.state.card].squares[0]
