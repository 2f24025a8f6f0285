"""Fields added to a stored shape that are written only when they say something.

A field added to an event or command that games store every day (a seat's
account) would otherwise change the stored form, and so the record digests,
of every new game that never uses it. Declared with ``added_later(default)``,
it is left out of the stored form while it holds its default, and reads back
as the default from a form without it (``services/codec.py``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

# The dataclass field metadata key the codec reads.
OMITTED_WHEN_DEFAULT = "omitted_when_default"


def added_later(default: Any) -> Any:
    """Returns a dataclass field with ``default``, not stored while it has it."""
    return dataclasses.field(default=default, metadata={OMITTED_WHEN_DEFAULT: True})
