"""The example game: a small game with hidden hands, registered as a real one.

It is laid out as every game package in ``domain/games/`` is, declares its
``RULES`` the same way and passes the contract suite of ``tests/contract/``.
It is no game the server plays: only the tests register it. The stored names
below never change once games are stored.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules, Modules
from tests.example_game import evolve, legal, rules, setup, views
from tests.example_game.events import (
    CardDrawn,
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    TurnPassed,
)
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
VALUES: dict[str, type[Any]] = {"example.Card": Card, "example.Config": ExampleConfig}

RULES: GameRules[State, Command, Event, ExampleConfig] = GameRules.declare(
    Modules(setup, rules, evolve, legal, views),
    (EVENTS, COMMANDS, VALUES),
    name="example",
    players=(MIN_PLAYERS, MAX_PLAYERS),
    config_type=ExampleConfig,
    self_undo="A pass that does not end the game.",
)

__all__ = ["RULES", "Card", "ExampleConfig", "State"]
