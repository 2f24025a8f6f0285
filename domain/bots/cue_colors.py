"""The colour a Hues and Cues bot reads into a cue word, as ``(red, green, blue)``.

The game's suggested cues (``SUGGESTED_CUES``) carry no colour, so the bots keep
their own small dictionary: every suggested word, plus a few colour names that
people often give. Values are common web and paint-chart colours.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeAlias

Rgb: TypeAlias = tuple[int, int, int]

CUE_COLORS: Mapping[str, Rgb] = MappingProxyType(
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
        # Colour names people often give that the suggestions leave out.
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
    }
)


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


def color_distance(a: Rgb, b: Rgb) -> int:
    """Returns the squared "redmean" distance, a cheap perceptual RGB metric."""
    red_mean = (a[0] + b[0]) // 2
    dr, dg, db = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return (
        ((512 + red_mean) * dr * dr >> 8)
        + 4 * dg * dg
        + ((767 - red_mean) * db * db >> 8)
    )
