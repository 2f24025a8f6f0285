"""Gnoming A Round: a 3 x 3 layout of mostly face-down cards, lowest score wins.

``RULES`` is the game's
entry in the registry; the stored names below never change once games are
stored. Section (§) and decision (D) numbers in this package refer to
``docs/rules/gnoming-a-round.md``.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules, Modules, Option
from domain.games.gnoming_a_round import evolve, legal, rules, setup, views
from domain.games.gnoming_a_round.cards import Card, Kind, card_from_id
from domain.games.gnoming_a_round.events import (
    BounceStopped,
    CardBounced,
    CardDiscarded,
    CardDrawn,
    CardKept,
    CardRejected,
    DiscardPileRefilled,
    DiscardTaken,
    DrawPileReshuffled,
    Event,
    GameEnded,
    HazardDeclined,
    HazardFlipped,
    HazardRemoved,
    HazardTurnedUp,
    InitialCardsFlipped,
    RoundDealt,
    RoundEndTriggered,
    RoundScored,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Bounce,
    Command,
    Discard,
    DrawFromPile,
    FlipInitial,
    GnomingARoundConfig,
    HazardDecline,
    HazardFlip,
    Keep,
    Phase,
    Reject,
    State,
    StopBounce,
    TakeFromDiscard,
)
from domain.games.gnoming_a_round.views import (
    GnomingARoundPrivate,
    GnomingARoundPublic,
    GnomingARoundRevealed,
    GnomingARoundView,
)

_EVENT_TYPES: tuple[type[Any], ...] = (
    RoundDealt,
    InitialCardsFlipped,
    TurnStarted,
    DrawPileReshuffled,
    CardDrawn,
    DiscardTaken,
    CardKept,
    CardRejected,
    CardBounced,
    BounceStopped,
    CardDiscarded,
    HazardRemoved,
    HazardFlipped,
    HazardDeclined,
    HazardTurnedUp,
    DiscardPileRefilled,
    RoundEndTriggered,
    RoundScored,
    GameEnded,
)
_COMMAND_TYPES: tuple[type[Any], ...] = (
    FlipInitial,
    DrawFromPile,
    TakeFromDiscard,
    Keep,
    Reject,
    Bounce,
    StopBounce,
    Discard,
    HazardFlip,
    HazardDecline,
)
EVENTS: dict[str, type[Any]] = {
    f"gnoming_a_round.{t.__name__}": t for t in _EVENT_TYPES
}
COMMANDS: dict[str, type[Any]] = {
    f"gnoming_a_round.{t.__name__}": t for t in _COMMAND_TYPES
}
VALUES: dict[str, type[Any]] = {
    "gnoming_a_round.Card": Card,
    "gnoming_a_round.Config": GnomingARoundConfig,
}

RULES: GameRules[State, Command, Event, GnomingARoundConfig] = GameRules.declare(
    Modules(setup, rules, evolve, legal, views),
    (EVENTS, COMMANDS, VALUES),
    name="gnoming_a_round",
    players=(MIN_PLAYERS, MAX_PLAYERS),
    config_type=GnomingARoundConfig,
    display_name="Gnoming A Round",
    options=(
        Option(
            "first_player",
            "The seat that starts round 1; later rounds start one seat to the left.",
            "0",
        ),
    ),
    self_undo=(
        "A move that drew, revealed, refilled, scored and ended nothing: taking"
        " a discard, rejecting a drawn card, stopping a bounce, declining a "
        "hazard, placing or discarding a card everyone has seen. Every other "
        "move needs the others' consent."
    ),
)

__all__ = [
    "COMMANDS",
    "EVENTS",
    "RULES",
    "VALUES",
    "Bounce",
    "BounceStopped",
    "Card",
    "CardBounced",
    "CardDiscarded",
    "CardDrawn",
    "CardKept",
    "CardRejected",
    "Command",
    "Discard",
    "DiscardPileRefilled",
    "DiscardTaken",
    "DrawFromPile",
    "DrawPileReshuffled",
    "Event",
    "FlipInitial",
    "GameEnded",
    "GnomingARoundConfig",
    "GnomingARoundPrivate",
    "GnomingARoundPublic",
    "GnomingARoundRevealed",
    "GnomingARoundView",
    "HazardDecline",
    "HazardDeclined",
    "HazardFlip",
    "HazardFlipped",
    "HazardRemoved",
    "HazardTurnedUp",
    "InitialCardsFlipped",
    "Keep",
    "Kind",
    "Phase",
    "Reject",
    "RoundDealt",
    "RoundEndTriggered",
    "RoundScored",
    "State",
    "StopBounce",
    "TakeFromDiscard",
    "TurnStarted",
    "card_from_id",
]
