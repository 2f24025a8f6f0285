"""The cue words legal moves suggest and the colour each names (D20, D29).

A cue has no finite list, so ``legal_moves`` offers the cue giver words of this
vocabulary: for a square, the words nearest its colour that the game has not
heard yet. Values are common web and paint-chart colours, compared with the
"redmean" distance. No rule reads them (D2): any other cue passing §4 is as
legal, and a word's place in the vocabulary only breaks ties.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import cache
from itertools import islice
from types import MappingProxyType
from typing import TypeAlias

from domain.games.hues_and_cues.board import Square, color

Rgb: TypeAlias = tuple[int, int, int]

# D29: how many words legal moves suggest for each target at the first cue; one
# keeps a move per target, which clients pick by clicking or numbering targets.
CUES_PER_TARGET = 1

# D29: every word passes §4 as a first or a second cue; 114 words outlast the
# 44 cues a game can hold at most (12 regular and 10 tie-break rounds, two cues
# each), whatever the players give besides.
CUE_WORDS: Mapping[str, Rgb] = MappingProxyType(
    {
        "tomato": (255, 99, 71),
        "lavender": (181, 126, 220),
        "turquoise": (64, 224, 208),
        "ocean": (0, 119, 190),
        "lime": (50, 205, 50),
        "salmon": (250, 128, 114),
        "mustard": (225, 173, 1),
        "coral": (255, 127, 80),
        "teal": (0, 128, 128),
        "plum": (142, 69, 133),
        "olive": (128, 128, 0),
        "indigo": (75, 0, 130),
        "violet": (143, 0, 255),
        "amber": (255, 191, 0),
        "ochre": (204, 119, 34),
        "beige": (245, 245, 220),
        "ivory": (255, 255, 240),
        "cream": (255, 253, 208),
        "peach": (255, 218, 185),
        "apricot": (251, 206, 177),
        "mint": (152, 255, 152),
        "jade": (0, 168, 107),
        "emerald": (80, 200, 120),
        "ruby": (224, 17, 95),
        "sapphire": (15, 82, 186),
        "cobalt": (0, 71, 171),
        "azure": (0, 127, 255),
        "cerulean": (0, 123, 167),
        "saffron": (244, 196, 48),
        "lemon": (255, 247, 0),
        "banana": (255, 225, 53),
        "cherry": (222, 49, 99),
        "strawberry": (252, 90, 141),
        "raspberry": (227, 11, 92),
        "grape": (111, 45, 168),
        "wine": (114, 47, 55),
        "burgundy": (128, 0, 32),
        "rust": (183, 65, 14),
        "copper": (184, 115, 51),
        "bronze": (205, 127, 50),
        "gold": (255, 215, 0),
        "silver": (192, 192, 192),
        "charcoal": (54, 69, 79),
        "slate": (112, 128, 144),
        "ash": (178, 190, 181),
        "sand": (194, 178, 128),
        "khaki": (195, 176, 145),
        "chocolate": (123, 63, 0),
        "coffee": (111, 78, 55),
        "caramel": (193, 154, 107),
        "honey": (235, 150, 5),
        "butter": (255, 253, 116),
        "sunflower": (255, 218, 3),
        "daffodil": (255, 255, 49),
        "lilac": (200, 162, 200),
        "orchid": (218, 112, 214),
        "rose": (255, 0, 127),
        "fuchsia": (255, 0, 255),
        "flamingo": (252, 142, 172),
        "sky": (135, 206, 235),
        "denim": (21, 96, 189),
        "forest": (34, 139, 34),
        "moss": (138, 154, 91),
        "pine": (1, 121, 111),
        "fern": (79, 121, 66),
        "avocado": (86, 130, 3),
        "pistachio": (147, 197, 114),
        "lagoon": (4, 150, 160),
        "glacier": (128, 177, 211),
        "snow": (255, 250, 250),
        "pearl": (234, 224, 200),
        "midnight": (25, 25, 112),
        "ink": (33, 30, 69),
        "brick": (203, 65, 84),
        "terracotta": (226, 114, 91),
        "cinnamon": (210, 105, 30),
        "pumpkin": (255, 117, 24),
        "tangerine": (242, 133, 0),
        "mango": (255, 130, 67),
        "carrot": (237, 145, 33),
        "flame": (226, 88, 34),
        "sunset": (253, 94, 83),
        "dusk": (78, 84, 129),
        "aubergine": (97, 64, 81),
        # Colour names people often give (§4.5 allows the specific ones).
        "scarlet": (255, 36, 0),
        "crimson": (220, 20, 60),
        "maroon": (128, 0, 0),
        "navy": (0, 0, 128),
        "magenta": (255, 0, 144),
        "cyan": (0, 255, 255),
        "aqua": (0, 255, 255),
        "tan": (210, 180, 140),
        "blood": (138, 3, 3),
        "grass": (86, 176, 0),
        # Pale, vivid and dark shades the words above leave far from any word.
        "chartreuse": (127, 255, 0),
        "aquamarine": (127, 255, 212),
        "periwinkle": (204, 204, 255),
        "cornflower": (100, 149, 237),
        "mauve": (224, 176, 255),
        "vanilla": (243, 229, 171),
        "canary": (255, 255, 153),
        "seafoam": (159, 226, 191),
        "sage": (188, 184, 138),
        "celadon": (172, 225, 175),
        "mulberry": (197, 75, 140),
        "hunter": (53, 94, 59),
        "jungle": (41, 171, 135),
        "blush": (222, 93, 131),
        "heliotrope": (223, 115, 255),
        "amethyst": (153, 102, 204),
        "mahogany": (192, 64, 0),
        "sienna": (136, 45, 23),
        "umber": (99, 81, 71),
        "steel": (70, 130, 180),
    }
)
SUGGESTED_CUES: tuple[str, ...] = tuple(CUE_WORDS)


def color_distance(a: Rgb, b: Rgb) -> int:
    """Returns the squared "redmean" distance, a cheap perceptual RGB metric."""
    red_mean = (a[0] + b[0]) // 2
    dr, dg, db = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return (
        ((512 + red_mean) * dr * dr >> 8)
        + 4 * dg * dg
        + ((767 - red_mean) * db * db >> 8)
    )


@cache
def ranked_cues(square: Square) -> tuple[str, ...]:
    """Returns every word, nearest the square's colour first (ties: word order)."""
    wanted = color(square)
    return tuple(sorted(CUE_WORDS, key=lambda w: color_distance(CUE_WORDS[w], wanted)))


def nearest_cues(
    square: Square, given: Collection[str], count: int = CUES_PER_TARGET
) -> tuple[str, ...]:
    """Returns the ``count`` words nearest a square's colour not given yet (D29).

    ``given`` holds the normalised forms of the game's cues (§4.4); a word is
    its own normalised form.
    """
    return tuple(islice((w for w in ranked_cues(square) if w not in given), count))
