"""Seeded random games of one game, for the per-game playout tests.

A game is set up from a seed of its own and played through its ``GameRules``
to the end; each playout file brings its own way of choosing moves and checks
its game's own invariants after every move. What every game must do (legal
moves accepted, replay, hidden information, undo verdicts) is the contract
suite's, in ``tests/contract/``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.rules import GameRules

Rules = GameRules[Any, Any, Any, Any]
# Picks the next command from the state (the command names its seat).
Chooser = Callable[[Any], Any]
# Checks a move: the state before it, the command, its events, the state after.
Check = Callable[[Any, Any, tuple[Any, ...], Any], None]


@dataclass
class RandomGame:
    """One seeded game: the state before setup, the live state, every event."""

    rules: Rules
    rng: Rng
    initial: Any
    state: Any
    events: list[Any] = field(default_factory=list)

    @property
    def over(self) -> bool:
        """Returns whether the game waits for nobody any more."""
        return not self.rules.to_move(self.state)

    def move(self, command: Any) -> tuple[Any, ...]:
        """Plays a command the rules must accept; returns its events."""
        decision = self.rules.decide(self.state, command, self.rng)
        assert isinstance(decision, Accepted), (command, decision)
        self.events.extend(decision.events)
        self.state = self.rules.fold(self.state, decision.events)
        return decision.events


def set_up(
    rules: Rules, players: int, config: Any, label: str, initial: Any = None
) -> RandomGame:
    """Returns a game after its opening events, seeded by ``label``.

    ``initial`` replaces the state before setup (a game given a head start).
    """
    rng = Rng(hashlib.sha256(label.encode()).digest())
    if initial is None:
        initial = rules.initial_state(players, config)
    game = RandomGame(rules, rng, initial, initial)
    game.events.extend(rules.setup(initial, rng))
    game.state = rules.fold(initial, tuple(game.events))
    return game


def play_out(
    game: RandomGame, choose: Chooser, check: Check, max_moves: int
) -> RandomGame:
    """Plays chosen moves until the game is over, checking each; returns it."""
    play(game, choose, check, max_moves)
    assert game.over, f"the game did not end within {max_moves} moves"
    return game


def play(game: RandomGame, choose: Chooser, check: Check, moves: int) -> None:
    """Plays up to ``moves`` chosen moves, checking each, or until the end."""
    for _ in range(moves):
        if game.over:
            return
        before = game.state
        command = choose(before)
        events = game.move(command)
        check(before, command, events, game.state)
