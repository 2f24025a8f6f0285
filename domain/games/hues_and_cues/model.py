"""Hues and Cues table options, commands and state (spec §2-§5); events: events.py."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from domain.games.hues_and_cues.board import Square
from domain.games.hues_and_cues.events import EndReason, RoundScored

# The spec's constants (§1.4, §2, §5). None of these is a table option.
MIN_PLAYERS = 3  # D4
MAX_PLAYERS = 10
TWICE_UP_TO = 6  # §2: up to 6 players everyone gives cues twice, else once
MAX_TIEBREAK_ROUNDS = 10  # D14
THREE_PLAYER_CUE_POINTS = 2  # §5.1, D16: per piece inside the frame with 3 players
CUE_POINTS = 1
GUESS_POINTS = (3, 2, 1)  # §5.1: by distance 0, 1, 2


@dataclass(frozen=True, slots=True)
class HuesAndCuesConfig:
    """Table options (§2).

    ``first_cue_giver`` is a seat, or None to draw it with the seed (D5).
    ``free_choice_variant`` lets the cue giver pick any square instead of one of
    the four on the drawn card, and then no card is drawn (D12).
    """

    first_cue_giver: int | None = None
    free_choice_variant: bool = False


@dataclass(frozen=True, slots=True)
class Piece:
    """A guessing piece on the board: its owner, which guess (1 or 2), where."""

    seat: int
    guess_no: int
    square: Square


# --- Commands (imperative; each names the acting seat) ---


@dataclass(frozen=True, slots=True)
class GiveFirstCue:
    """The cue giver picks the target and gives a one-word cue (§3.2)."""

    seat: int
    target: Square
    cue: str


@dataclass(frozen=True, slots=True)
class PlaceGuess:
    """The guesser whose turn it is places a piece on an empty square (§3.3)."""

    seat: int
    square: Square


@dataclass(frozen=True, slots=True)
class GiveSecondCue:
    """The cue giver gives a second cue of one or two words (§3.4, D11)."""

    seat: int
    cue: str


@dataclass(frozen=True, slots=True)
class SkipSecondCue:
    """The cue giver gives no second cue; the round is scored at once (§3.4)."""

    seat: int


Command: TypeAlias = GiveFirstCue | PlaceGuess | GiveSecondCue | SkipSecondCue


# --- State ---


class Phase(StrEnum):
    """The round state machine of §3; the automatic steps last only inside a move."""

    SETUP = "setup"
    FIRST_CUE = "first_cue"
    FIRST_GUESSES = "first_guesses"
    SECOND_CUE = "second_cue"
    SECOND_GUESSES = "second_guesses"
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need; a fold of the events from ``initial_state``."""

    players: int
    config: HuesAndCuesConfig
    phase: Phase
    round: int  # 1-based, counting tie-break rounds; 0 before the first
    regular_rounds: int  # 2N with up to 6 players, N with 7 or more (§2)
    tiebreak: bool  # whether the current round is a tie-break round
    tiebreak_rounds: int  # tie-break rounds started so far
    first_cue_giver: int | None
    cue_giver: int
    deck: tuple[str, ...]  # card ids, top first
    card: str | None  # the card drawn this round
    used: tuple[str, ...]  # cards of finished rounds
    shuffles: int  # DeckShuffled events so far
    target: Square | None  # the cue giver's secret until TargetRevealed
    pieces: tuple[Piece, ...]  # guessing pieces of this round, in placing order
    guess_order: tuple[int, ...]  # seats still to guess this phase, next first
    cues: tuple[str, ...]  # normalised forms of every cue accepted this game
    round_cues: tuple[str, ...]  # this round's cue texts, first cue first
    scores: tuple[int, ...]
    # The round scored last, kept for views after the next round starts.
    last_scored: RoundScored | None
    winners: tuple[int, ...]
    end_reason: EndReason | None

    @property
    def finished(self) -> bool:
        """Returns whether the game is over."""
        return self.phase is Phase.GAME_OVER
