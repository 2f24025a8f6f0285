"""Moves typed directly rather than picked by number: Hues and Cues squares and cues."""

from __future__ import annotations

import re

from tabletop.v1 import game_pb2, hues_and_cues_pb2, move_pb2

_SQUARE = re.compile(r"^([A-Pa-p]) ?([1-9]|[12][0-9]|30)$")
_SQUARE_AND_CUE = re.compile(r"^([A-Pa-p] ?\d{1,2})\s+(.+)$")
_NUMBER_AND_CUE = re.compile(r"^(\d+)\s+(.+)$")
SKIP_WORDS = {"skip", "-"}
pb = hues_and_cues_pb2


def square(text: str) -> hues_and_cues_pb2.HuesAndCuesSquare | None:
    """Returns the square a text names, ``H15`` or ``h 15``; None when it names none."""
    found = _SQUARE.match(text.strip())
    if found is None:
        return None
    return pb.HuesAndCuesSquare(id=f"{found.group(1).upper()}{found.group(2)}")


def _move(action: hues_and_cues_pb2.HuesAndCuesMove) -> move_pb2.Move:
    return move_pb2.Move(hues_and_cues=action)


def _first_cue(text: str, listed: list[move_pb2.Move]) -> move_pb2.Move | None:
    """``H15 word`` gives a cue for a target; ``3 word`` for the third listed one."""
    found = _SQUARE_AND_CUE.match(text)
    if found is not None and square(found.group(1)) is not None:
        target = square(found.group(1))
        return _move(
            pb.HuesAndCuesMove(
                give_first_cue=pb.HuesAndCuesGiveFirstCue(
                    target=target, cue=found.group(2).strip()
                )
            )
        )
    numbered = _NUMBER_AND_CUE.match(text)
    if numbered is not None and 1 <= int(numbered.group(1)) <= len(listed):
        move = listed[int(numbered.group(1)) - 1]
        target = move.hues_and_cues.give_first_cue.target
        return _move(
            pb.HuesAndCuesMove(
                give_first_cue=pb.HuesAndCuesGiveFirstCue(
                    target=target, cue=numbered.group(2).strip()
                )
            )
        )
    return None


def typed_move(
    game: game_pb2.Game, text: str, listed: list[move_pb2.Move]
) -> move_pb2.Move | None:
    """Returns the move a typed text means in this game now; None when it means none."""
    phase = game.hues_and_cues_view.phase
    if phase == pb.HUES_AND_CUES_PHASE_FIRST_CUE:
        return _first_cue(text, listed)
    if phase == pb.HUES_AND_CUES_PHASE_SECOND_CUE:
        if text.lower() in SKIP_WORDS:
            return _move(
                pb.HuesAndCuesMove(skip_second_cue=pb.HuesAndCuesSkipSecondCue())
            )
        if text.isdigit():
            return None
        return _move(
            pb.HuesAndCuesMove(
                give_second_cue=pb.HuesAndCuesGiveSecondCue(cue=text.strip())
            )
        )
    guess = square(text)
    if guess is None:
        return None
    return _move(pb.HuesAndCuesMove(place_guess=pb.HuesAndCuesPlaceGuess(square=guess)))


def hint(game: game_pb2.Game) -> str:
    """Returns what may be typed besides a number, for the prompt."""
    phase = game.hues_and_cues_view.phase
    if phase == pb.HUES_AND_CUES_PHASE_FIRST_CUE:
        # The example is a square of the cue giver's own card, so it works as typed.
        card = game.hues_and_cues_view.card.squares
        example = f"{card[0].id} ocean" if card else "a square and a word"
        return f"or type a target and a cue: {example} (N word: the Nth target)"
    if phase == pb.HUES_AND_CUES_PHASE_SECOND_CUE:
        return "or type a second cue of one or two words, or skip"
    return "or type a square, e.g. H15"
