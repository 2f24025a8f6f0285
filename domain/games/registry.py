"""Game type name -> rules, the one list of the games this server plays."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.common.rules import GameRules
from domain.games.fool import RULES as FOOL
from domain.games.gnoming_a_round import RULES as GNOMING_A_ROUND
from domain.games.hues_and_cues import RULES as HUES_AND_CUES
from domain.games.qwirkle import RULES as QWIRKLE
from domain.games.split import RULES as SPLIT

GAMES: Mapping[str, GameRules[Any, Any, Any, Any]] = {
    QWIRKLE.name: QWIRKLE,
    HUES_AND_CUES.name: HUES_AND_CUES,
    FOOL.name: FOOL,
    GNOMING_A_ROUND.name: GNOMING_A_ROUND,
    SPLIT.name: SPLIT,
}


def rules_for(game_type: str) -> GameRules[Any, Any, Any, Any] | None:
    """Returns the rules of a game type, or None when it is not played here."""
    return GAMES.get(game_type)
