"""The example game: a small game with hidden hands, registered as a real one.

It is laid out as every game package in ``domain/games/`` is, declares its
``RULES`` the same way and passes the contract suite of ``tests/contract/``.
It is no game the server plays: only the tests register it.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules
from tests.example_game import events, model, rules, setup, views
from tests.example_game.evolve import evolve
from tests.example_game.legal import legal_moves
from tests.example_game.model import Card, ExampleConfig, State

# Stable stored names: they never change once games are stored.
EVENTS: dict[str, type[Any]] = {
    "example.HandsDealt": events.HandsDealt,
    "example.CardPlayed": events.CardPlayed,
    "example.CardDrawn": events.CardDrawn,
    "example.TurnPassed": events.TurnPassed,
    "example.GameEnded": events.GameEnded,
}
COMMANDS: dict[str, type[Any]] = {
    "example.PlayCard": model.PlayCard,
    "example.DrawCard": model.DrawCard,
    "example.Pass": model.Pass,
}
VALUES: dict[str, type[Any]] = {"example.Card": Card, "example.Config": ExampleConfig}

RULES: GameRules[State, model.Command, events.Event, ExampleConfig] = GameRules(
    name="example",
    min_players=model.MIN_PLAYERS,
    max_players=model.MAX_PLAYERS,
    config_type=ExampleConfig,
    check_config=setup.check_config,
    initial_state=setup.initial_state,
    setup=setup.setup,
    decide=rules.decide,
    evolve=evolve,
    legal_moves=legal_moves,
    view=views.view,
    visible=views.visible,
    outcome=rules.outcome,
    leaders=rules.leaders,
    to_move=rules.to_move,
    self_undoable=rules.self_undoable,
    reveals_to_others=rules.reveals_to_others,
    events=EVENTS,
    commands=COMMANDS,
    values=VALUES,
)

__all__ = ["RULES", "Card", "ExampleConfig", "State"]
