"""Hues and Cues events: the facts a decision records (past tense).

Hidden fields are emptied by ``visible``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from domain.games.hues_and_cues.board import Square


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
