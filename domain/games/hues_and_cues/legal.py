"""Every legal command of a seat, in a deterministic order (spec §3; DESIGN §2).

Guessers get one ``PlaceGuess`` per empty square in row-major order (A1, A2,
..., P30). A cue has no finite list, so the cue giver gets suggestions that
describe the target (D20, D29): for each allowed target (the card's squares in
card order, or all 480 with the variant) a ``GiveFirstCue`` with the word
nearest its colour not given yet (``CUES_PER_TARGET`` words, each rank after
the one before); at the second cue, ``GiveSecondCue`` with every word not
given yet, nearest the target's colour first, then ``SkipSecondCue``. So a
suggestion listed once and not now has been given since: it is refused as a
repeat (or its target left with its card). Any other cue passing §4 is
equally legal.
"""

from __future__ import annotations

from collections.abc import Iterator

from domain.games.hues_and_cues.board import ALL_SQUARES, Square
from domain.games.hues_and_cues.cards import CARDS
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
from domain.games.hues_and_cues.vocabulary import (
    CUE_WORDS,
    CUES_PER_TARGET,
    nearest_cues,
)


def targets(state: State) -> tuple[Square, ...]:
    """Returns the squares the cue giver may choose (D12)."""
    if state.config.free_choice_variant or state.card is None:
        return ALL_SQUARES
    return CARDS[state.card].squares


def legal_moves(state: State, seat: int) -> Iterator[Command]:
    """Yields every command ``decide`` accepts from ``seat`` now (cues suggested)."""
    if seat not in to_move(state):
        return
    match state.phase:
        case Phase.FIRST_CUE:
            yield from _first_cues(state, seat)
        case Phase.SECOND_CUE:
            if state.target is not None:
                for cue in nearest_cues(state.target, state.cues, len(CUE_WORDS)):
                    yield GiveSecondCue(seat, cue)
            yield SkipSecondCue(seat)
        case Phase.FIRST_GUESSES | Phase.SECOND_GUESSES:
            taken = {piece.square for piece in state.pieces}
            for square in ALL_SQUARES:
                if square not in taken:
                    yield PlaceGuess(seat, square)
        case _:
            pass


def _first_cues(state: State, seat: int) -> Iterator[GiveFirstCue]:
    """Yields each target with its nearest unused word, then its next, if more."""
    # Never short: the vocabulary outlasts any game (D29).
    cues = {target: nearest_cues(target, state.cues) for target in targets(state)}
    for rank in range(CUES_PER_TARGET):
        for target, nearest in cues.items():
            if rank < len(nearest):
                yield GiveFirstCue(seat, target, nearest[rank])
