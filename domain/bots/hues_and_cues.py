"""Hues and Cues bot: read the cues as a colour and aim at the nearest free square.

Guessers turn every cue word the bots' dictionary knows into a colour
(``cue_colors.py``) and find the square of that colour. The target is one of
the four squares of a secret card, so a guesser assumes the cue giver took the
card square nearest that spot, whichever card of the public deck it holds, and
places its piece on the free square near the spot that earns the most points
over all those possible targets (with the free-choice variant: the spot itself).
The cue giver describes each square it may choose with the listed word nearest
its colour (legal moves list a target's nearest word not given yet, D29, so a
word is never repeated), predicts where that word's guesses land, and takes
the target they land nearest. Its second cue is the one of the three listed
words nearest the target's colour that, with the first, brings the guesses
nearest the target; it is given only when they should land in the frame.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence

from domain.bots.cue_colors import CUE_COLORS, Rgb, color_distance, mean_color
from domain.games.hues_and_cues.board import ALL_SQUARES, Square, color, distance
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.cues import clean
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    PlaceGuess,
    SkipSecondCue,
)
from domain.games.hues_and_cues.scoring import FRAME, guess_points
from domain.games.hues_and_cues.views import HuesAndCuesView

NAME = "hues_and_cues"
CENTRE = Square(7, 14)  # H15: where a guess with nothing to go on lands
SEARCH_RADIUS = 5  # a guess is sought this close to the square of the cue's colour
_SEPARATORS = re.compile(r"[ -]")
SECOND_CUE_CHOICES = 3  # the listed second cues nearest the target it weighs
_UNREAD = sys.maxsize  # how far a cue of unknown words is from any colour


def choose(view: HuesAndCuesView, moves: Sequence[Command]) -> Command:
    """Returns the cue or guess the bot plays, from its view and legal moves."""
    guesses = [m for m in moves if isinstance(m, PlaceGuess)]
    if guesses:
        return _guess(view, guesses)
    first_cues = [m for m in moves if isinstance(m, GiveFirstCue)]
    if first_cues:
        return _first_cue(view, first_cues)
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


def likely_targets(spot: Square) -> tuple[Square, ...]:
    """Returns, for each card of the deck, its square nearest ``spot``."""
    return tuple(
        min(card.squares, key=lambda square: distance(square, spot))
        for card in CARDS.values()
    )


def best_guess(wanted: Rgb, free: Sequence[Square], *, free_choice: bool) -> Square:
    """Returns the free square a guesser expects to score most on for a colour."""
    if free_choice:
        return landing(wanted, free)
    spot = landing(wanted, ALL_SQUARES)
    targets = likely_targets(spot)
    near = [s for s in free if distance(s, spot) <= SEARCH_RADIUS] or list(free)
    return max(near, key=lambda s: sum(guess_points(distance(s, t)) for t in targets))


def _guess(view: HuesAndCuesView, guesses: Sequence[PlaceGuess]) -> PlaceGuess:
    """Aims at the cues' colour; with no known word, joins the other pieces."""
    wanted = aim(view.public.cues)
    if wanted is not None:
        free = [g.square for g in guesses]
        spot = best_guess(wanted, free, free_choice=view.public.free_choice_variant)
        return next(g for g in guesses if g.square == spot)
    placed = [piece.square for piece in view.public.pieces] or [CENTRE]
    return min(guesses, key=lambda g: sum(distance(g.square, p) for p in placed))


def fit(cue: str, square: Square) -> int:
    """Returns how far a cue's colour is from a square's; unknown words: farthest."""
    wanted = cue_color(cue)
    return _UNREAD if wanted is None else color_distance(wanted, color(square))


def describing(moves: Sequence[GiveFirstCue]) -> list[GiveFirstCue]:
    """Returns, per target in listing order, its listed cue nearest its colour."""
    best: dict[Square, GiveFirstCue] = {}
    for move in moves:
        held = best.get(move.target)
        if held is None or fit(move.cue, move.target) < fit(held.cue, held.target):
            best[move.target] = move
    return list(best.values())


def _first_cue(view: HuesAndCuesView, moves: Sequence[GiveFirstCue]) -> GiveFirstCue:
    """Describes each target in its nearest word; takes the one guessed nearest."""
    free_choice = view.public.free_choice_variant
    spots: dict[str, Square] = {}  # where a word's guesses land, once per word

    def miss(move: GiveFirstCue) -> tuple[int, int]:
        wanted = cue_color(move.cue)
        if wanted is None:
            return (_UNREAD, _UNREAD)
        if move.cue not in spots:
            spots[move.cue] = best_guess(wanted, ALL_SQUARES, free_choice=free_choice)
        return (distance(spots[move.cue], move.target), fit(move.cue, move.target))

    return min(describing(moves), key=miss)


def _second_cue(view: HuesAndCuesView, moves: Sequence[Command]) -> Command:
    """Gives the listed cue that brings the guesses nearest, if into the frame."""
    skip = next((m for m in moves if isinstance(m, SkipSecondCue)), moves[0])
    target = None if view.secret is None else view.secret.target
    if target is None:
        return skip
    listed = [m for m in moves if isinstance(m, GiveSecondCue)]
    gives = sorted(listed, key=lambda m: fit(m.cue, target))[:SECOND_CUE_CHOICES]
    if not gives:
        return skip
    taken = {piece.square for piece in view.public.pieces}
    free = [s for s in ALL_SQUARES if s not in taken]
    free_choice = view.public.free_choice_variant

    def miss(give: GiveSecondCue) -> tuple[int, int]:
        wanted = aim((*view.public.cues, give.cue))
        if wanted is None:
            return (_UNREAD, _UNREAD)
        spot = best_guess(wanted, free, free_choice=free_choice)
        return (distance(spot, target), fit(give.cue, target))

    misses = [(miss(give), give) for give in gives]
    (off, _), give = min(misses, key=lambda pair: pair[0])
    return give if off <= FRAME else skip
