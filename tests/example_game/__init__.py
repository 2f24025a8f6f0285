"""The example game: a small game with hidden hands, registered as a real one.

It is laid out as every game package in ``domain/games/`` is, declares its
``RULES`` the same way and passes the contract suite of ``tests/contract/``.
It is no game the server plays: it is registered only with the tests.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules
from tests.example_game.events import (
    CardDrawn,
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    TurnPassed,
)
from tests.example_game.evolve import evolve
from tests.example_game.legal import legal_moves
from tests.example_game.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Card,
    Command,
    DrawCard,
    ExampleConfig,
    Pass,
    PlayCard,
    State,
)
from tests.example_game.rules import (
    decide,
    leaders,
    outcome,
    reveals_to_others,
    self_undoable,
    to_move,
)
from tests.example_game.setup import check_config, initial_state, setup
from tests.example_game.views import view, visible

EVENTS: dict[str, type[Any]] = {
    "example.HandsDealt": HandsDealt,
    "example.CardPlayed": CardPlayed,
    "example.CardDrawn": CardDrawn,
    "example.TurnPassed": TurnPassed,
    "example.GameEnded": GameEnded,
}
COMMANDS: dict[str, type[Any]] = {
    "example.PlayCard": PlayCard,
    "example.DrawCard": DrawCard,
    "example.Pass": Pass,
}
VALUES: dict[str, type[Any]] = {
    "example.Card": Card,
    "example.Config": ExampleConfig,
}

RULES: GameRules[State, Command, Event, ExampleConfig] = GameRules(
    name="example",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    config_type=ExampleConfig,
    check_config=check_config,
    initial_state=initial_state,
    setup=setup,
    decide=decide,
    evolve=evolve,
    legal_moves=legal_moves,
    view=view,
    visible=visible,
    outcome=outcome,
    leaders=leaders,
    to_move=to_move,
    self_undoable=self_undoable,
    reveals_to_others=reveals_to_others,
    events=EVENTS,
    commands=COMMANDS,
    values=VALUES,
)

__all__ = ["RULES", "Card", "ExampleConfig", "State"]
