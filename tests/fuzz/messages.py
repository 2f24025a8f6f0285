"""Hypothesis strategies that build any protobuf message from its descriptor.

Hostile clients are not bound by our generated code's good manners, so the
values lean on the edges: int64 and uint64 extremes, NaN and infinities, enum
numbers the schema does not define, and text with the Unicode that breaks naive
handling (bidi marks, joiners, combining marks, emoji, NUL).
"""

from __future__ import annotations

import math
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

_AWKWARD = (
    "\u200f",  # right-to-left mark
    "\u202e",  # right-to-left override
    "\u200d",  # zero-width joiner
    "\u200b",  # zero-width space
    "\u0301",  # combining acute accent
    "\U0001f469\u200d\U0001f680",  # emoji joined by a ZWJ
    "\x00",
    "\ufeff",
    "\uffff",
    "\U0010ffff",
)
TEXT = st.lists(
    st.one_of(st.characters(exclude_categories=["Cs"]), st.sampled_from(_AWKWARD)),
    max_size=30,
).map("".join)


def _ints(bits: int, *, signed: bool) -> st.SearchStrategy[int]:
    low, high = (
        (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    )
    edges = sorted({low, high, 0, 1, -1 if signed else 2, low + 1, high - 1})
    return st.one_of(st.sampled_from(edges), st.integers(low, high))


_FLOATS = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e308, -1e-308]),
    st.floats(allow_nan=True, allow_infinity=True),
)
_T = FieldDescriptor
_SCALARS: dict[int, st.SearchStrategy[Any]] = {
    _T.TYPE_INT32: _ints(32, signed=True),
    _T.TYPE_SINT32: _ints(32, signed=True),
    _T.TYPE_SFIXED32: _ints(32, signed=True),
    _T.TYPE_INT64: _ints(64, signed=True),
    _T.TYPE_SINT64: _ints(64, signed=True),
    _T.TYPE_SFIXED64: _ints(64, signed=True),
    _T.TYPE_UINT32: _ints(32, signed=False),
    _T.TYPE_FIXED32: _ints(32, signed=False),
    _T.TYPE_UINT64: _ints(64, signed=False),
    _T.TYPE_FIXED64: _ints(64, signed=False),
    _T.TYPE_BOOL: st.booleans(),
    _T.TYPE_STRING: TEXT,
    _T.TYPE_BYTES: st.binary(max_size=64),
    _T.TYPE_DOUBLE: _FLOATS,
    _T.TYPE_FLOAT: _FLOATS.map(
        lambda x: x if abs(x) < 3e38 or not math.isfinite(x) else math.inf
    ),
}


def field_values(field: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    """Returns a strategy for one value of a (non-repeated view of a) field."""
    if field.message_type is not None:
        return messages(field.message_type, depth - 1)
    if field.enum_type is not None:
        known = [v.number for v in field.enum_type.values]
        return st.one_of(st.sampled_from(known), _ints(32, signed=True))
    return _SCALARS[field.type]


def messages(descriptor: Descriptor, depth: int = 4) -> st.SearchStrategy[Message]:
    """Returns a strategy for messages of ``descriptor``, nested ``depth`` deep."""
    cls = GetMessageClass(descriptor)
    if depth <= 0:
        return st.just(cls())

    @st.composite
    def build(draw: st.DrawFn) -> Message:
        message = cls()
        chosen = {
            oneof.name: draw(st.sampled_from([None, *oneof.fields]))
            for oneof in descriptor.oneofs
            if not _synthetic(oneof)
        }
        for field in descriptor.fields:
            group = field.containing_oneof
            if group is not None and not _synthetic(group):
                if chosen[group.name] is not field:
                    continue
            elif not draw(st.booleans()):
                continue
            _fill(draw, message, field, depth)
        return message

    return build()


def _synthetic(oneof: Any) -> bool:
    return bool(getattr(oneof, "is_synthetic", False))


def _fill(
    draw: st.DrawFn, message: Message, field: FieldDescriptor, depth: int
) -> None:
    target: Any = getattr(message, field.name)
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key_field = field.message_type.fields_by_name["key"]
        value_field = field.message_type.fields_by_name["value"]
        for _ in range(draw(st.integers(0, 3))):
            key = draw(field_values(key_field, depth))
            value = draw(field_values(value_field, depth))
            if value_field.type == _T.TYPE_MESSAGE:
                target[key].CopyFrom(value)
            else:
                target[key] = value
        return
    if field.is_repeated:
        values = draw(st.lists(field_values(field, depth), max_size=4))
        if field.type == _T.TYPE_MESSAGE:
            for value in values:
                target.add().CopyFrom(value)
        else:
            target.extend(values)
        return
    value = draw(field_values(field, depth))
    if field.type == _T.TYPE_MESSAGE:
        target.CopyFrom(value)
    else:
        setattr(message, field.name, value)
