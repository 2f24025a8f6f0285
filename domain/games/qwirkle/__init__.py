"""Qwirkle: lay tiles from a private rack of six into lines on an open grid.

Section (§) and decision (D) numbers in this package refer to
``docs/rules/qwirkle.md``. ``RULES`` is the game's entry in the registry; the
stored names below never change once games are stored.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules, Modules
from domain.games.qwirkle import evolve, legal, rules, setup, views
from domain.games.qwirkle.events import (
    EndBonusScored,
    Event,
    GameEnded,
    StartingPlayerChosen,
    TilesDealt,
    TilesDrawn,
    TilesExchanged,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)
from domain.games.qwirkle.model import (
    Color,
    Command,
    EndReason,
    ExchangeTiles,
    Pass,
    Phase,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    Shape,
    State,
    Tile,
)
from domain.games.qwirkle.views import QwirklePrivate, QwirklePublic, QwirkleView

EVENTS: dict[str, type[Any]] = {
    "qwirkle.TilesDealt": TilesDealt,
    "qwirkle.StartingPlayerChosen": StartingPlayerChosen,
    "qwirkle.TilesPlaced": TilesPlaced,
    "qwirkle.TurnScored": TurnScored,
    "qwirkle.TilesDrawn": TilesDrawn,
    "qwirkle.TilesExchanged": TilesExchanged,
    "qwirkle.TurnPassed": TurnPassed,
    "qwirkle.EndBonusScored": EndBonusScored,
    "qwirkle.GameEnded": GameEnded,
}
COMMANDS: dict[str, type[Any]] = {
    "qwirkle.PlaceTiles": PlaceTiles,
    "qwirkle.ExchangeTiles": ExchangeTiles,
    "qwirkle.Pass": Pass,
}
VALUES: dict[str, type[Any]] = {
    "qwirkle.Tile": Tile,
    "qwirkle.Placement": Placement,
    "qwirkle.Config": QwirkleConfig,
}

RULES: GameRules[State, Command, Event, QwirkleConfig] = GameRules.declare(
    Modules(setup, rules, evolve, legal, views),
    (EVENTS, COMMANDS, VALUES),
    name="qwirkle",
    players=(2, 6),
    config_type=QwirkleConfig,
    self_undo=(
        "A pass, or a placement that drew no tile (the bag was empty) and did "
        "not end the game; every other move needs the others' consent."
    ),
)

__all__ = [
    "COMMANDS",
    "EVENTS",
    "RULES",
    "VALUES",
    "Color",
    "Command",
    "EndBonusScored",
    "EndReason",
    "Event",
    "ExchangeTiles",
    "GameEnded",
    "Pass",
    "Phase",
    "PlaceTiles",
    "Placement",
    "QwirkleConfig",
    "QwirklePrivate",
    "QwirklePublic",
    "QwirkleView",
    "Shape",
    "StartingPlayerChosen",
    "State",
    "Tile",
    "TilesDealt",
    "TilesDrawn",
    "TilesExchanged",
    "TilesPlaced",
    "TurnPassed",
    "TurnScored",
]
