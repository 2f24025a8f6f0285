"""The colour a Hues and Cues bot reads into a cue word, as ``(red, green, blue)``.

The bots read cues with the game's own cue vocabulary (``vocabulary.py``): every
word legal moves suggest has its colour there, so a bot reads its fellow bots'
cues and most colour names people give. Words it does not know carry no colour.
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.games.hues_and_cues.vocabulary import CUE_WORDS, Rgb, color_distance

CUE_COLORS: Mapping[str, Rgb] = CUE_WORDS


def mean_color(colors: tuple[Rgb, ...]) -> Rgb | None:
    """Returns the channel-wise mean of colours (rounded down), None for none."""
    if not colors:
        return None
    count = len(colors)
    return (
        sum(c[0] for c in colors) // count,
        sum(c[1] for c in colors) // count,
        sum(c[2] for c in colors) // count,
    )


__all__ = ["CUE_COLORS", "Rgb", "color_distance", "mean_color"]
