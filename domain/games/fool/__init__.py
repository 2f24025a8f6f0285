"""Fool!: tricks are worth nothing, and the worst card of each sits out the next.

Section (§) and decision (D) numbers in this package refer to
``docs/rules/fool.md``. ``RULES`` is the game's entry in the registry; the
stored names below never change once games are stored.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules, Modules, Option
from domain.games.fool import evolve, legal, rules, setup, views
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Card,
    Color,
    Command,
    EndReason,
    FoolConfig,
    Phase,
    PlayCard,
    State,
    TrickCard,
    card_from_id,
)
from domain.games.fool.views import FoolPrivate, FoolPublic, FoolView

EVENTS: dict[str, type[Any]] = {
    "fool.HandsDealt": HandsDealt,
    "fool.CardPlayed": CardPlayed,
    "fool.TrickResolved": TrickResolved,
    "fool.RoundScored": RoundScored,
    "fool.GameEnded": GameEnded,
}
COMMANDS: dict[str, type[Any]] = {
    "fool.PlayCard": PlayCard,
}
VALUES: dict[str, type[Any]] = {
    "fool.Card": Card,
    "fool.TrickCard": TrickCard,
    "fool.Config": FoolConfig,
}

RULES: GameRules[State, Command, Event, FoolConfig] = GameRules.declare(
    Modules(setup, rules, evolve, legal, views),
    (EVENTS, COMMANDS, VALUES),
    name="fool",
    players=(MIN_PLAYERS, MAX_PLAYERS),
    config_type=FoolConfig,
    display_name="Fool!",
    options=(
        Option(
            "first_dealer",
            "The seat that deals the first round; the deal moves one seat"
            " clockwise each round.",
            "0",
        ),
    ),
    self_undo=(
        "None: every card played was hidden in a hand, so every takeback needs "
        "the others' consent."
    ),
)

__all__ = [
    "COMMANDS",
    "EVENTS",
    "RULES",
    "VALUES",
    "Card",
    "CardPlayed",
    "Color",
    "Command",
    "EndReason",
    "Event",
    "FoolConfig",
    "FoolPrivate",
    "FoolPublic",
    "FoolView",
    "GameEnded",
    "HandsDealt",
    "Phase",
    "PlayCard",
    "RoundScored",
    "State",
    "TrickCard",
    "TrickResolved",
    "card_from_id",
]
