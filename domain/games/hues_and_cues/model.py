"""Hues and Cues table options, commands, events and state (rules spec §2-§5)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from domain.games.hues_and_cues.board import Square

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


# --- Events (past tense). Hidden fields are emptied by ``visible``. ---


class EndReason(StrEnum):
    """How the game ended (§5.2, D14)."""

    SOLE_LEADER = "sole_leader"  # one player has the highest score
    ALL_TIED = "all_tied"  # every player is a leader: nobody may give a cue
    TIEBREAK_CAP = "tiebreak_cap"  # 10 tie-break rounds without a single leader


@dataclass(frozen=True, slots=True)
class DeckShuffled:
    """The cue cards shuffled into a face-down deck, top first (system only).

    ``round`` is the round the shuffle is made for: 1 at setup, later when the
    deck ran out (D15). ``size`` is public; ``cards`` is the operator's only.
    """

    round: int
    cards: tuple[str, ...]
    size: int


@dataclass(frozen=True, slots=True)
class FirstCueGiverChosen:
    """The seat that gives the first cue; ``drawn`` when the seed chose it (D5)."""

    seat: int
    drawn: bool


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round begins: its cue giver and whether it is a tie-break round (§3.1)."""

    round: int
    cue_giver: int
    tiebreak: bool


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """The cue giver drew the top card (§3.1).

    ``card_id`` and ``squares`` are the cue giver's only while the game is in
    progress (D13); everybody else learns only that a card was drawn.
    """

    round: int
    seat: int
    card_id: str | None
    squares: tuple[Square, ...]


@dataclass(frozen=True, slots=True)
class TargetChosen:
    """The cue giver's secret target (§3.2); ``target`` is theirs only."""

    round: int
    seat: int
    target: Square | None


@dataclass(frozen=True, slots=True)
class CueGiven:
    """A cue, public (§3.2, §3.4).

    ``text`` is the cue after §4.1 step 1 (NFKC, trimmed, single spaces);
    ``normalized`` its case-folded words joined by spaces (§4.4).
    """

    round: int
    seat: int
    cue_no: int
    text: str
    normalized: str


@dataclass(frozen=True, slots=True)
class GuessPlaced:
    """A guessing piece placed (§3.3, public)."""

    round: int
    seat: int
    guess_no: int
    square: Square


@dataclass(frozen=True, slots=True)
class SecondCueSkipped:
    """The cue giver gave no second cue (§3.4)."""

    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class TargetRevealed:
    """Scoring begins: the target is public from now on (§3.5)."""

    round: int
    target: Square


@dataclass(frozen=True, slots=True)
class PieceScored:
    """One guessing piece's distance to the target and its owner's points."""

    seat: int
    guess_no: int
    square: Square
    distance: int
    points: int


@dataclass(frozen=True, slots=True)
class RoundScored:
    """A round's points per seat, the cue giver's included, and each piece (§5.1)."""

    round: int
    target: Square
    points: tuple[int, ...]
    pieces: tuple[PieceScored, ...]
    cue_giver: int
    pieces_in_frame: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The final scores and winners (§5.2)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    reason: EndReason


Event: TypeAlias = (
    DeckShuffled
    | FirstCueGiverChosen
    | RoundStarted
    | CardDrawn
    | TargetChosen
    | CueGiven
    | GuessPlaced
    | SecondCueSkipped
    | TargetRevealed
    | RoundScored
    | GameEnded
)


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
