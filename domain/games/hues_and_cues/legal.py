"""Every legal command of a seat, in a deterministic order (spec §3; DESIGN §2).

Guessers get one ``PlaceGuess`` per empty square in row-major order (A1, A2,
..., P30). A cue has no finite list, so the cue giver gets one ``GiveFirstCue``
per allowed target (the card's squares in card order, or all 480 with the
variant) with a suggested cue, then ``GiveSecondCue`` with the next suggestion
and ``SkipSecondCue`` (D20). Any other cue passing §4 is equally legal.
"""

from __future__ import annotations

from collections.abc import Iterator

from domain.games.hues_and_cues.board import ALL_SQUARES, Square
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.cues import suggested_cue
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    Phase,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from domain.games.hues_and_cues.rules import to_move


def targets(state: State) -> tuple[Square, ...]:
    """Returns the squares the cue giver may choose (D12)."""
    if state.config.free_choice_variant or state.card is None:
        return ALL_SQUARES
    return CARDS[state.card].squares


def legal_moves(state: State, seat: int) -> Iterator[Command]:
    """Yields every command ``decide`` accepts from ``seat`` now (cues suggested)."""
    if seat not in to_move(state):
        return
    cue = suggested_cue(state.cues)
    match state.phase:
        case Phase.FIRST_CUE:
            if cue is not None:  # never None: SUGGESTED_CUES outlasts any game
                for target in targets(state):
                    yield GiveFirstCue(seat, target, cue)
        case Phase.SECOND_CUE:
            if cue is not None:
                yield GiveSecondCue(seat, cue)
            yield SkipSecondCue(seat)
        case Phase.FIRST_GUESSES | Phase.SECOND_GUESSES:
            taken = {piece.square for piece in state.pieces}
            for square in ALL_SQUARES:
                if square not in taken:
                    yield PlaceGuess(seat, square)
        case _:
            pass
