"""Hues and Cues: describe a secret colour square in a word or two; others guess.

``RULES`` is the game's entry in the registry; the stored names below never
change once games are stored. Section (§) and decision (D) numbers in this
package refer to ``docs/rules/hues-and-cues.md``.
"""

from __future__ import annotations

from typing import Any

from domain.common.rules import GameRules, Modules, Option
from domain.games.hues_and_cues import evolve, legal, rules, setup, views
from domain.games.hues_and_cues.board import Square, parse_square, square_named
from domain.games.hues_and_cues.cards import CARDS, DECK, CueCard
from domain.games.hues_and_cues.cues import Cue, catalog, check_cue
from domain.games.hues_and_cues.events import (
    CardDrawn,
    CueGiven,
    DeckShuffled,
    EndReason,
    Event,
    FirstCueGiverChosen,
    GameEnded,
    GuessPlaced,
    PieceScored,
    RoundScored,
    RoundStarted,
    SecondCueSkipped,
    TargetChosen,
    TargetRevealed,
)
from domain.games.hues_and_cues.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Command,
    GiveFirstCue,
    GiveSecondCue,
    HuesAndCuesConfig,
    Phase,
    Piece,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from domain.games.hues_and_cues.views import (
    HuesAndCuesPublic,
    HuesAndCuesSecret,
    HuesAndCuesView,
)
from domain.games.hues_and_cues.vocabulary import CUE_WORDS, SUGGESTED_CUES

EVENTS: dict[str, type[Any]] = {
    "hues_and_cues.DeckShuffled": DeckShuffled,
    "hues_and_cues.FirstCueGiverChosen": FirstCueGiverChosen,
    "hues_and_cues.RoundStarted": RoundStarted,
    "hues_and_cues.CardDrawn": CardDrawn,
    "hues_and_cues.TargetChosen": TargetChosen,
    "hues_and_cues.CueGiven": CueGiven,
    "hues_and_cues.GuessPlaced": GuessPlaced,
    "hues_and_cues.SecondCueSkipped": SecondCueSkipped,
    "hues_and_cues.TargetRevealed": TargetRevealed,
    "hues_and_cues.RoundScored": RoundScored,
    "hues_and_cues.GameEnded": GameEnded,
}
COMMANDS: dict[str, type[Any]] = {
    "hues_and_cues.GiveFirstCue": GiveFirstCue,
    "hues_and_cues.PlaceGuess": PlaceGuess,
    "hues_and_cues.GiveSecondCue": GiveSecondCue,
    "hues_and_cues.SkipSecondCue": SkipSecondCue,
}
VALUES: dict[str, type[Any]] = {
    "hues_and_cues.Square": Square,
    "hues_and_cues.Piece": Piece,
    "hues_and_cues.PieceScored": PieceScored,
    "hues_and_cues.Config": HuesAndCuesConfig,
}

RULES: GameRules[State, Command, Event, HuesAndCuesConfig] = GameRules.declare(
    Modules(setup, rules, evolve, legal, views),
    (EVENTS, COMMANDS, VALUES),
    name="hues_and_cues",
    players=(MIN_PLAYERS, MAX_PLAYERS),
    config_type=HuesAndCuesConfig,
    display_name="Hues and Cues",
    options=(
        Option(
            "first_cue_giver",
            "The seat that gives the first cue; the role then passes clockwise.",
            "drawn with the game's seed",
        ),
        Option(
            "free_choice_variant",
            "The cue giver may choose any square as the target and draws no card.",
            "false",
        ),
    ),
    self_undo=(
        "A cue (first or second) and a guess that does not complete the round. "
        "Skipping the second cue and the guess that completes the round reveal "
        "the target, so taking them back needs the others' consent."
    ),
    details=catalog,
)

__all__ = [
    "CARDS",
    "COMMANDS",
    "CUE_WORDS",
    "DECK",
    "EVENTS",
    "RULES",
    "SUGGESTED_CUES",
    "VALUES",
    "CardDrawn",
    "Command",
    "Cue",
    "CueCard",
    "CueGiven",
    "DeckShuffled",
    "EndReason",
    "Event",
    "FirstCueGiverChosen",
    "GameEnded",
    "GiveFirstCue",
    "GiveSecondCue",
    "GuessPlaced",
    "HuesAndCuesConfig",
    "HuesAndCuesPublic",
    "HuesAndCuesSecret",
    "HuesAndCuesView",
    "Phase",
    "Piece",
    "PieceScored",
    "PlaceGuess",
    "RoundScored",
    "RoundStarted",
    "SecondCueSkipped",
    "SkipSecondCue",
    "Square",
    "State",
    "TargetChosen",
    "TargetRevealed",
    "check_cue",
    "parse_square",
    "square_named",
]
