"""Hues and Cues bot: read the cues as a colour and aim at the nearest free square.

Guessers turn every cue word the bots' dictionary knows into a colour
(``cue_colors.py``) and place their piece on the free square whose colour is
closest. The cue giver predicts that landing square and picks the target on its
card nearest to it, and gives the second cue only when the guesses it draws are
predicted to land inside the scoring frame.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from domain.bots.cue_colors import CUE_COLORS, Rgb, color_distance, mean_color
from domain.games.hues_and_cues.board import ALL_SQUARES, Square, color, distance
from domain.games.hues_and_cues.cues import clean
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    PlaceGuess,
    SkipSecondCue,
)
from domain.games.hues_and_cues.views import HuesAndCuesView

NAME = "hues_and_cues"
CENTRE = Square(7, 14)  # H15: where a guess with nothing to go on lands
FRAME = 1  # §5.1: the cue giver scores for every piece this close to the target
_SEPARATORS = re.compile(r"[ -]")


def choose(view: HuesAndCuesView, moves: Sequence[Command]) -> Command:
    """Returns the cue or guess the bot plays, from its view and legal moves."""
    guesses = [m for m in moves if isinstance(m, PlaceGuess)]
    if guesses:
        return _guess(view, guesses)
    first_cues = [m for m in moves if isinstance(m, GiveFirstCue)]
    if first_cues:
        return _first_cue(first_cues)
    return _second_cue(view, moves)


def cue_color(text: str) -> Rgb | None:
    """Returns the mean colour of a cue's known words, None if it has none (§4.1)."""
    words = (w.replace("'", "").casefold() for w in _SEPARATORS.split(clean(text)))
    return mean_color(tuple(CUE_COLORS[w] for w in words if w in CUE_COLORS))


def aim(cues: Iterable[str]) -> Rgb | None:
    """Returns the colour a round's cues point at: the mean of the known ones."""
    known = (cue_color(text) for text in cues)
    return mean_color(tuple(c for c in known if c is not None))


def landing(target_color: Rgb, free: Sequence[Square]) -> Square:
    """Returns the free square nearest in colour, the first of equals."""
    return min(free, key=lambda square: color_distance(color(square), target_color))


def _guess(view: HuesAndCuesView, guesses: Sequence[PlaceGuess]) -> PlaceGuess:
    """Aims at the cues' colour; with no known word, joins the other pieces."""
    wanted = aim(view.public.cues)
    if wanted is not None:
        spot = landing(wanted, [g.square for g in guesses])
        return next(g for g in guesses if g.square == spot)
    placed = [piece.square for piece in view.public.pieces] or [CENTRE]
    return min(guesses, key=lambda g: sum(distance(g.square, p) for p in placed))


def _first_cue(moves: Sequence[GiveFirstCue]) -> GiveFirstCue:
    """Picks the allowed target nearest to where the cue's guesses will land."""
    wanted = cue_color(moves[0].cue)
    if wanted is None:
        return moves[0]
    spot = landing(wanted, ALL_SQUARES)
    return min(moves, key=lambda m: distance(m.target, spot))


def _second_cue(view: HuesAndCuesView, moves: Sequence[Command]) -> Command:
    """Gives the second cue when its guesses should land inside the frame."""
    give = next((m for m in moves if isinstance(m, GiveSecondCue)), None)
    skip = next((m for m in moves if isinstance(m, SkipSecondCue)), moves[0])
    target = None if view.secret is None else view.secret.target
    if give is None or target is None:
        return skip
    wanted = aim((*view.public.cues, give.cue))
    if wanted is None:
        return skip
    taken = {piece.square for piece in view.public.pieces}
    spot = landing(wanted, [s for s in ALL_SQUARES if s not in taken])
    return give if distance(spot, target) <= FRAME else skip
