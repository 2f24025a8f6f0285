"""Bots for every game: pure strategies that see only what their seat may see.

A strategy is a function of a seat's view and its legal moves; ``choose_move``
builds both from a state, so no strategy ever reads another hand, the bag or a
hidden target. Same view and moves, same choice: ties go to the first legal move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeAlias

from domain.bots import fool, gnoming_a_round, hues_and_cues, qwirkle, split
from domain.common.seats import Seat
from domain.games.registry import rules_for

# (the seat's view, its legal moves, in ``legal_moves`` order) -> one of the moves
Strategy: TypeAlias = Callable[[Any, Sequence[Any]], Any]

STRATEGIES: Mapping[str, Strategy] = MappingProxyType(
    {
        qwirkle.NAME: qwirkle.choose,
        hues_and_cues.NAME: hues_and_cues.choose,
        fool.NAME: fool.choose,
        gnoming_a_round.NAME: gnoming_a_round.choose,
        split.NAME: split.choose,
    }
)


def strategy_for(game_type: str) -> Strategy | None:
    """Returns the bot strategy of a game type, None when there is none."""
    return STRATEGIES.get(game_type)


def choose_move(game_type: str, state: Any, seat: int) -> Any | None:
    """Returns the command the bot plays for ``seat`` now, None if it may not act.

    Raises ``KeyError`` for a game type without rules or bot.
    """
    rules = rules_for(game_type)
    strategy = strategy_for(game_type)
    if rules is None or strategy is None:
        raise KeyError(game_type)
    moves = tuple(rules.legal_moves(state, seat))
    if not moves:
        return None
    return strategy(rules.view(state, Seat(seat)), moves)


__all__ = ["STRATEGIES", "Strategy", "choose_move", "strategy_for"]
