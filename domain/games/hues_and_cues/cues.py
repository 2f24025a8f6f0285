"""The cue checks of spec §4.1-§4.4 (D8, D10, D11) and the board's catalogue.

``check_cue`` normalises a cue (§4.1), then applies the word checks of §4.2,
the second cue's extra list (§4.3) and the repeat rule (§4.4) in that order;
the first failure is returned. The word lists are English configuration
constants; what software cannot judge (§4.5) is left to the players (D9).
Every refusal message names only the player's own text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from domain.common.decision import Rejected, malformed, reject
from domain.games.hues_and_cues.board import (
    ALL_SQUARES,
    COLUMNS,
    ROWS,
    Square,
    color,
    hex_color,
)


def _words(text: str) -> tuple[str, ...]:
    """Returns the words of a list written as text."""
    return tuple(text.split())


MAX_CUE_LENGTH = 40  # characters after §4.1 step 1
FIRST_CUE = 1
SECOND_CUE = 2
# §4.1 step 5: (fewest, most) words by cue number.
WORD_COUNTS = {FIRST_CUE: (1, 1), SECOND_CUE: (1, 2)}

# §4.2: rejected when equal to one of these ...
BASIC_COLOR_FORMS = frozenset(
    _words(
        "red reds redder reddest reddish reddy redness redden reddens reddened "
        "reddening bluish whitish purplish orangish orangy"
    )
)
# ... or when containing one of these (``red`` is not a substring test).
BASIC_COLORS = _words(
    "black blue brown gray grey green orange pink purple white yellow"
)
NUMBER_WORDS = frozenset(
    _words(
        "zero one two three four five six seven eight nine ten eleven twelve "
        "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty "
        "thirty"
    )
)
POSITION_WORDS = frozenset(
    _words(
        "board grid square squares row rows column columns coordinate "
        "coordinates letter letters number numbers top bottom left right corner "
        "corners edge edges side middle center centre central border above "
        "below upper lower up down north south east west"
    )
)
# §4.3: words that steer players relative to their first guesses.
RELATIVE_WORDS = frozenset(
    _words(
        "lighter darker brighter dimmer paler deeper duller richer softer "
        "stronger weaker warmer cooler hotter colder bolder more less higher "
        "closer nearer further farther between opposite same similar again "
        "beside next near toward towards away than not"
    )
)

_SEPARATORS = re.compile(r"[ -]")


@dataclass(frozen=True, slots=True)
class Cue:
    """An accepted cue: ``text`` after §4.1 step 1, its words, normalised form."""

    text: str
    words: tuple[str, ...]  # case-folded, apostrophes removed (§4.1 step 4)

    @property
    def normalized(self) -> str:
        """Returns the words joined by single spaces (§4.4)."""
        return " ".join(self.words)


def clean(text: str) -> str:
    """Returns §4.1 step 1: NFKC, typographic apostrophes, trimmed, single spaces."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    return " ".join(text.split())


def _allowed(character: str) -> bool:
    return character in "' -" or unicodedata.category(character).startswith("L")


def _check_text(text: str) -> Rejected | None:
    """§4.1 steps 1-2: not empty, letters, apostrophes, hyphens, spaces, 40 at most."""
    if not text:
        return malformed(
            "CUE_EMPTY", "A cue needs at least one word.", "hues_and_cues/cue_empty"
        )
    for character in text:
        if not _allowed(character):
            return malformed(
                "CUE_INVALID_CHARACTERS",
                "A cue may hold only letters, apostrophes, hyphens and spaces, "
                f"not {character!r}.",
                "hues_and_cues/cue_characters",
                character=character,
            )
    if len(text) > MAX_CUE_LENGTH:
        return malformed(
            "CUE_TOO_LONG",
            f"A cue holds at most {MAX_CUE_LENGTH} characters, not {len(text)}.",
            "hues_and_cues/cue_length",
            limit=MAX_CUE_LENGTH,
            length=len(text),
        )
    return None


def _split(text: str) -> tuple[str, ...] | Rejected:
    """§4.1 step 3: the words, split on spaces and hyphens, apostrophes removed."""
    words = tuple(piece.replace("'", "") for piece in _SEPARATORS.split(text))
    if not all(words):
        # D19: a piece of apostrophes only is as empty as a doubled hyphen.
        return malformed(
            "CUE_EMPTY_WORD",
            f"The cue {text!r} has an empty word: a leading, trailing or "
            "doubled hyphen, or a word without letters.",
            "hues_and_cues/cue_words",
        )
    return words


def _check_words(words: tuple[str, ...], cue_no: int) -> Rejected | None:
    """§4.1 step 5: the word count of the cue number, and no word twice."""
    fewest, most = WORD_COUNTS[cue_no]
    if not fewest <= len(words) <= most:
        wanted = "exactly 1 word" if most == 1 else f"{fewest} to {most} words"
        return malformed(
            "CUE_WORD_COUNT",
            f"Cue {cue_no} must have {wanted}, not {len(words)}.",
            "hues_and_cues/cue_word_count",
            cueNo=cue_no,
            words=len(words),
            minWords=fewest,
            maxWords=most,
        )
    for index, word in enumerate(words):
        if word in words[:index]:
            return malformed(
                "CUE_REPEATED_WORD",
                f"The word {word!r} appears twice in the cue.",
                "hues_and_cues/cue_repeated_word",
                word=word,
            )
    return None


def _check_word(letters: str, cue_no: int) -> Rejected | None:
    """§4.2 (every cue) and §4.3 (the second cue) for one word.

    A single letter is judged before case folding, which may lengthen it
    (``ß`` folds to ``ss``).
    """
    word = letters.casefold()
    if word in BASIC_COLOR_FORMS or any(name in word for name in BASIC_COLORS):
        return malformed(
            "CUE_BASIC_COLOR",
            f"{letters!r} is or contains a basic colour name.",
            "hues_and_cues/basic_colors",
            word=letters,
        )
    if len(letters) == 1 or word in NUMBER_WORDS or word in POSITION_WORDS:
        return malformed(
            "CUE_BOARD_REFERENCE",
            f"{letters!r} may refer to a position on the board.",
            "hues_and_cues/board_references",
            word=letters,
        )
    if cue_no == SECOND_CUE and word in RELATIVE_WORDS:
        return malformed(
            "CUE_RELATIVE_WORD",
            f"{letters!r} steers players relative to their first guesses.",
            "hues_and_cues/relative_words",
            word=letters,
        )
    return None


def check_cue(text: str, cue_no: int, given: Collection[str] = ()) -> Cue | Rejected:
    """Returns the cue ``text`` gives as cue ``cue_no``, or why it is refused.

    ``given`` holds the normalised forms of every cue accepted before in the
    game (§4.4, D10).
    """
    cleaned = clean(text)
    refused = _check_text(cleaned)
    if refused is not None:
        return refused
    letters = _split(cleaned)
    if isinstance(letters, Rejected):
        return letters
    words = tuple(word.casefold() for word in letters)
    refused = _check_words(words, cue_no)
    for word in letters:
        refused = refused or _check_word(word, cue_no)
    if refused is not None:
        return refused
    cue = Cue(cleaned, words)
    if cue.normalized in given:
        return reject(
            "CUE_ALREADY_GIVEN",
            f"The cue {cleaned!r} was already given in this game.",
            "hues_and_cues/cue_repeats",
            cue=cue.normalized,
        )
    return cue


@dataclass(frozen=True, slots=True)
class SquareColor:
    """A square's colour on the printed board, as hex and as red, green, blue."""

    square: Square
    hex: str
    red: int
    green: int
    blue: int


@dataclass(frozen=True, slots=True)
class Catalog:
    """What a client needs to draw the board and check cues as it is typed."""

    rows: int
    columns: int
    squares: tuple[SquareColor, ...]
    max_cue_length: int
    basic_color_words: tuple[str, ...]
    basic_color_parts: tuple[str, ...]
    board_words: tuple[str, ...]
    relative_words: tuple[str, ...]


def catalog() -> Catalog:
    """Returns the board's 480 colours and the cue word lists (§1.2, §4)."""
    return Catalog(
        rows=ROWS,
        columns=COLUMNS,
        squares=tuple(
            SquareColor(square, hex_color(square), *color(square))
            for square in ALL_SQUARES
        ),
        max_cue_length=MAX_CUE_LENGTH,
        basic_color_words=tuple(sorted(BASIC_COLOR_FORMS)),
        basic_color_parts=tuple(BASIC_COLORS),
        board_words=tuple(sorted(NUMBER_WORDS | POSITION_WORDS)),
        relative_words=tuple(sorted(RELATIVE_WORDS)),
    )
