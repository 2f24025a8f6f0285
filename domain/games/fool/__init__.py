"""Fool!: tricks are worth nothing, and the worst card of each sits out the next.

Section (§) and decision (D) numbers in this package refer to
``docs/rules/fool.md``. ``RULES`` is the game's entry in the registry; the
stored names below never change once games are stored.
"""

from __future__ import annotations

from typing import Any

import domain.games.fool as this  # its own hooks, by name
from domain.common.rules import GameRules, Option
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.evolve import evolve
from domain.games.fool.legal import legal_moves
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
from domain.games.fool.rules import (
    decide,
    leaders,
    outcome,
    reveals_to_others,
    self_undoable,
    to_move,
)
from domain.games.fool.setup import check_config, initial_state, setup
from domain.games.fool.views import FoolPrivate, FoolPublic, FoolView, view, visible

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
    this,
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
    "check_config",
    "decide",
    "evolve",
    "initial_state",
    "leaders",
    "legal_moves",
    "outcome",
    "reveals_to_others",
    "self_undoable",
    "setup",
    "to_move",
    "view",
    "visible",
]
