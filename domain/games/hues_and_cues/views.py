"""What each viewer may see of a state or an event (spec §3.6, DESIGN §5).

The deck order is nobody's but the operator's (``DeckShuffled.cards`` is
emptied, its size kept); the drawn card and the target are the cue giver's
until the target is revealed, and the card's other squares stay the cue
giver's for the whole game (D13). Spectators see what a guesser sees. The
table shows everything to everyone once the game has finished (T5).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import assert_never

from domain.common.seats import Operator, Seat, Spectator, Viewer, redacted_for
from domain.games.hues_and_cues.board import Square
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.events import (
    CardDrawn,
    CueGiven,
    DeckShuffled,
    EndReason,
    Event,
    FirstCueGiverChosen,
    GameEnded,
    GuessPlaced,
    RoundScored,
    RoundStarted,
    SecondCueSkipped,
    TargetChosen,
    TargetRevealed,
)
from domain.games.hues_and_cues.model import Phase, Piece, State
from domain.games.hues_and_cues.rules import to_move


@dataclass(frozen=True, slots=True)
class HuesAndCuesPublic:
    """What everybody sees."""

    phase: Phase
    round: int
    regular_rounds: int
    tiebreak: bool
    cue_giver: int
    to_move: tuple[int, ...]
    free_choice_variant: bool
    cues: tuple[str, ...]  # this round's cue texts, first cue first
    pieces: tuple[Piece, ...]  # this round's guessing pieces, placing order
    scores: tuple[int, ...]
    deck_size: int
    last_scored: RoundScored | None
    winners: tuple[int, ...]
    end_reason: EndReason | None


@dataclass(frozen=True, slots=True)
class HuesAndCuesSecret:
    """What only the cue giver sees (and everybody once the game has ended)."""

    card_id: str | None  # None with the free-choice variant
    card_squares: tuple[Square, ...]
    target: Square | None  # None until chosen


@dataclass(frozen=True, slots=True)
class HuesAndCuesView:
    """A viewer's view; ``secret`` is set for the cue giver and the operator."""

    public: HuesAndCuesPublic
    secret: HuesAndCuesSecret | None


def public_view(state: State) -> HuesAndCuesPublic:
    """Returns the public part of a state."""
    return HuesAndCuesPublic(
        phase=state.phase,
        round=state.round,
        regular_rounds=state.regular_rounds,
        tiebreak=state.tiebreak,
        cue_giver=state.cue_giver,
        to_move=to_move(state),
        free_choice_variant=state.config.free_choice_variant,
        cues=state.round_cues,
        pieces=state.pieces,
        scores=state.scores,
        deck_size=len(state.deck),
        last_scored=state.last_scored,
        winners=state.winners,
        end_reason=state.end_reason,
    )


def secret_view(state: State) -> HuesAndCuesSecret:
    """Returns the round's secrets: the drawn card and the target."""
    return HuesAndCuesSecret(
        card_id=state.card,
        card_squares=() if state.card is None else CARDS[state.card].squares,
        target=state.target,
    )


def view(state: State, viewer: Viewer) -> HuesAndCuesView:
    """Returns what ``viewer`` may see of ``state`` (§3.6)."""
    secret: HuesAndCuesSecret | None = None
    match viewer:
        case Operator():
            secret = secret_view(state)
        case Seat(index=seat):
            if seat == state.cue_giver and state.round > 0:
                secret = secret_view(state)
        case Spectator():
            pass
        case _:
            assert_never(viewer)
    return HuesAndCuesView(public=public_view(state), secret=secret)


def visible(event: Event, viewer: Viewer) -> Event | None:
    """Returns ``event`` as ``viewer`` may see it: hidden fields emptied (§3.6)."""
    return redacted_for(viewer, event, _redacted)


def _redacted(event: Event, seat: int | None) -> Event:
    """Returns ``event`` as seen by ``seat`` (None for a spectator)."""
    match event:
        case DeckShuffled():
            return replace(event, cards=())  # the order is nobody's (§3.6)
        case CardDrawn():
            # D13: the card and its squares stay the cue giver's for good.
            return (
                event
                if event.seat == seat
                else replace(event, card_id=None, squares=())
            )
        case TargetChosen():
            # Public from TargetRevealed on, as its own event.
            return event if event.seat == seat else replace(event, target=None)
        case (
            FirstCueGiverChosen()
            | RoundStarted()
            | CueGiven()
            | GuessPlaced()
            | SecondCueSkipped()
            | TargetRevealed()
            | RoundScored()
            | GameEnded()
        ):
            return event
        case _:
            assert_never(event)
