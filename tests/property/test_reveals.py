"""Every game's undo verdicts over random complete games (DESIGN §6, T19).

Moves are drawn by a seeded ``random.Random`` from ``legal_moves``. For every
move: what its mover may take back alone reveals nothing to others; a move that
ends a round or the game (which shows hands, layouts or the target) reveals to
others, so no takeback crosses it; and each game with private draws or hands
keeps moves that only consent may take back, so takebacks stay possible.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import pytest

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games import fool, gnoming_a_round, hues_and_cues, qwirkle, split
from domain.games.registry import GAMES

MAX_MOVES = 3_000
# The events that end a round or the game, named here rather than taken from the
# games' own lists, so the test checks the verdicts instead of repeating them.
ENDS: dict[str, tuple[type[Any], ...]] = {
    "qwirkle": (qwirkle.GameEnded,),
    "fool": (fool.RoundScored, fool.GameEnded),
    "split": (split.RoundScored, split.GameEnded),
    "gnoming_a_round": (gnoming_a_round.RoundScored, gnoming_a_round.GameEnded),
    "hues_and_cues": (hues_and_cues.TargetRevealed, hues_and_cues.GameEnded),
}
PLAYERS = {"qwirkle": 3, "fool": 4, "split": 3, "gnoming_a_round": 3}
PLAYERS["hues_and_cues"] = 4


def playout(game: str, number: int) -> Counter[str]:
    """Plays one seeded random game, checking each move; returns the verdicts."""
    rules = GAMES[game]
    seed = hashlib.sha256(f"reveals/{game}/{number}".encode()).digest()
    rng, chooser = Rng(seed), random.Random(seed)
    state = rules.initial_state(PLAYERS[game], rules.config_type())
    state = rules.fold(state, rules.setup(state, rng))
    verdicts: Counter[str] = Counter()
    for _ in range(MAX_MOVES):
        seats = rules.to_move(state)
        if not seats:
            break
        seat = chooser.choice(seats)
        command = chooser.choice(list(rules.legal_moves(state, seat)))
        decision = rules.decide(state, command, rng)
        assert isinstance(decision, Accepted), decision
        events = decision.events
        alone, shown = rules.self_undoable(events), rules.reveals_to_others(events)
        assert not (alone and shown), events
        if any(isinstance(event, ENDS[game]) for event in events):
            assert shown, events
        verdicts["alone" if alone else "shown" if shown else "consent"] += 1
        state = rules.fold(state, events)
    assert rules.outcome(state).finished
    return verdicts


@pytest.mark.parametrize("game", sorted(ENDS))
def test_moves_that_reveal_to_others_are_never_taken_back(game: str) -> None:
    verdicts: Counter[str] = Counter()
    for number in range(3):
        verdicts += playout(game, number)
    assert verdicts["shown"] > 0
    if game != "hues_and_cues":  # its only hidden things are the card and target
        assert verdicts["consent"] > 0
