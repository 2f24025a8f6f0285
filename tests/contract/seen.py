"""What a view, an event or a message holds, as countable pieces.

A piece is a leaf of a value: a dataclass whose fields are all numbers, flags
or enums, not all None (a card, a tile, a square), or a string (a card id).
In a message it is a sub-message of numbers and enums only, or a string.
Fields named in ``skip`` (lists of every piece of the game, public by design)
are left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, TypeAlias

from google.protobuf.message import Message

from domain.common.seats import Seat, Spectator, Viewer

_SCALARS = (type(None), bool, int, float, Enum, bytes)
_FIELDS: dict[type, tuple[str, ...]] = {}
# The pieces of tuples already walked, by value.
Memo: TypeAlias = dict[tuple[Any, ...], list[object]]


def pieces(
    value: object,
    skip: frozenset[str] = frozenset(),
    memo: Memo | None = None,
) -> list[object]:
    """Returns every piece inside a domain value (a view, an event, a state).

    ``memo`` remembers the pieces of tuples already walked, by value: the
    states of one game share most of their tuples.
    """
    found: list[object] = []
    _walk(value, skip, found, memo)
    return found


def _walk(
    value: object, skip: frozenset[str], found: list[object], memo: Memo | None
) -> None:
    if isinstance(value, _SCALARS):
        return
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, tuple) and memo is not None and value:
        found.extend(_tuple(value, skip, memo))
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            _walk(item, skip, found, memo)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _walk(key, skip, found, memo)
            _walk(item, skip, found, memo)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        _dataclass(value, skip, found, memo)


def _tuple(value: tuple[Any, ...], skip: frozenset[str], memo: Memo) -> list[object]:
    """Returns the pieces of a tuple, remembered by value when that is safe.

    A tuple of strings is walked each time (a string equals the enum member of
    its value, which is no piece), as is one holding a mapping (no hash).
    """
    known: list[object] | None = None
    remember = not isinstance(value[0], str)
    if remember:
        try:
            known = memo.get(value)
        except TypeError:
            remember = False
    if known is None:
        known = []
        for item in value:
            _walk(item, skip, known, memo)
        if remember:
            memo[value] = known
    return known


def _dataclass(
    value: Any, skip: frozenset[str], found: list[object], memo: Memo | None
) -> None:
    """Adds a dataclass of scalars as one piece, or the pieces of its fields."""
    names = _FIELDS.get(type(value))
    if names is None:
        names = _FIELDS[type(value)] = tuple(f.name for f in dataclasses.fields(value))
    named = [getattr(value, name) for name in names if name not in skip]
    if all(isinstance(item, _SCALARS) for item in named):
        if any(item is not None for item in named):  # else it shows nothing
            found.append(value)
        return
    for item in named:
        _walk(item, skip, found, memo)


def message_pieces(
    message: Message, skip: frozenset[str] = frozenset()
) -> list[object]:
    """Returns every piece inside a message, each as its type name and bytes."""
    found: list[object] = []
    _walk_message(message, skip, found.append)
    return found


def _walk_message(
    message: Message, skip: frozenset[str], add: Callable[[object], None]
) -> None:
    fields = [(d, v) for d, v in message.ListFields() if d.name not in skip]
    if not fields:  # an empty list's wrapper, a piece left out
        return
    if all(d.message_type is None and d.type != d.TYPE_STRING for d, _ in fields):
        add((type(message).__name__, message.SerializeToString(deterministic=True)))
        return
    for descriptor, value in fields:
        items: list[Any] = list(value) if descriptor.is_repeated else [value]
        for item in items:
            if isinstance(item, Message):
                _walk_message(item, skip, add)
            elif isinstance(item, str):
                add(item)


def viewers(players: int) -> list[Viewer]:
    """Returns the viewers whose views must hide something: the spectator, each seat."""
    return [Spectator(), *(Seat(seat) for seat in range(players))]
