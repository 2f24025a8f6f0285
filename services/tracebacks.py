"""Tracebacks fit for logs: the frames of an error, never its message.

A message holds whatever value the failing code had at hand: a ``KeyError``'s
key may be a hidden tile, a decoding error may quote a stored event with every
rack and the bag. Logs travel further than the event store, so they keep the
types and the frames (code, never values) and nothing else.
"""

from __future__ import annotations

import traceback


def withheld_traceback(error: BaseException) -> str:
    """Returns an error's traceback (its chain included) without the messages."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        kind = f"{type(current).__module__}.{type(current).__qualname__}"
        frames = "".join(traceback.format_tb(current.__traceback__))
        parts.append(f"Traceback (most recent call last):\n{frames}{kind}: (withheld)")
        current = current.__cause__ or current.__context__
    return "\n\nwhile handling the above, or caused by it:\n".join(reversed(parts))
