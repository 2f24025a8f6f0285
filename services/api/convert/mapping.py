"""Dataclass values <-> ``tabletop.v1`` messages, by field name: the one converter.

A message field takes the dataclass field of its name; ``player`` takes ``seat``
(``*_player(s)`` takes ``*_seat(s)``) and ``*_state`` a view's part. Values go
by the kinds at both ends: a seat where the message has a string travels as the
player's resource name, an enum member as the proto value named ``<ENUM>_<NAME>``,
a tuple as a repeated field (of wrapper messages for a tuple of tuples, of
``(player, value)`` messages for numbers by seat), a
dataclass as a message by the same rules, a ``datetime`` as a ``Timestamp``;
None leaves a field unset. A game declares its departures per type: a ``Shape``
renames fields (a dotted path reaches into a sub-message, "" merges into the
message) or computes them, and a parser reads a value type with a form of its own
(a card by its id); a message field also takes a property of its name. Plans are
built once per pair of types, and a message field without a source is an error.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, TypeAlias

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from services.api.errors import FieldViolation

# Turns a seat index into its player resource name, games/{game}/players/{seat}.
Names: TypeAlias = Callable[[int], str]
Violations: TypeAlias = list[FieldViolation]
# One step of a plan: a message field's path and how to get its value.
Step: TypeAlias = tuple[str, Callable[[Any, Names], Any]]
_MESSAGE = FieldDescriptor.TYPE_MESSAGE
_ENUM = FieldDescriptor.TYPE_ENUM
_STRING = FieldDescriptor.TYPE_STRING


@dataclass(frozen=True, slots=True)
class Shape:
    """How one dataclass type departs from the rules.

    ``renames`` maps a dataclass field to its message field: a dotted path into
    a sub-message, or "" to merge the field's own fields into the message.
    ``computed`` gives message fields from the whole value and the names.
    """

    renames: Mapping[str, str] = field(default_factory=dict)
    computed: Mapping[str, Callable[[Any, Names], Any]] = field(default_factory=dict)


def enum_prefix(descriptor: Any) -> str:
    """Returns ``QWIRKLE_COLOR_`` for the proto enum ``QwirkleColor``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", descriptor.name).upper() + "_"


def target(name: str, descriptor: Any) -> str:
    """Returns the message field a dataclass field goes to when not renamed."""
    fields = descriptor.fields_by_name
    player = re.sub(r"seat(s?)$", r"player\1", name)
    return next((f for f in (name, player, f"{name}_state") if f in fields), name)


def hints(cls: type) -> dict[str, Any]:
    """Returns a dataclass's field types, resolved."""
    found = typing.get_type_hints(cls)
    return {f.name: found[f.name] for f in dataclasses.fields(cls)}


def unwrap(annotation: Any) -> tuple[Any, bool]:
    """Returns ``(T, True)`` for ``T | None``, else ``(annotation, False)``."""
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else annotation), True
    return annotation, False


class Mapper:
    """Converts between a game's dataclasses and its messages, plans cached."""

    def __init__(
        self,
        shapes: Mapping[type, Shape] | None = None,
        parsers: Mapping[type, Callable[[Any, str], Any]] | None = None,
        errors: Mapping[str, str] | None = None,
    ) -> None:
        self.shapes = dict(shapes or {})
        # Value type -> (message, path) -> the value, or what is wrong with it.
        self.parsers = dict(parsers or {})
        # "<Message>.<field>" -> what a refusal of that field says.
        self.errors = dict(errors or {})
        self._plans: dict[tuple[type, str], list[Step]] = {}
        # Fields a parent's dotted rename sets: "<message full name>.<field>".
        self._claimed: set[str] = set()

    # --- dataclass -> message ---

    def fill(
        self, value: Any, message: Message, names: Names, *, whole: bool = True
    ) -> Message:
        """Sets ``message``'s fields from ``value``; returns ``message``.

        ``whole`` says ``value`` is the message's only source (not merged into
        it beside others), so that every field must have a source.
        """
        key = (type(value), message.DESCRIPTOR.full_name)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(type(value), message.DESCRIPTOR)
            if whole:
                self._check(type(value), message.DESCRIPTOR)
        for path, get in plan:
            self.set(message, path, get(value, names), names)
        return message

    def _plan(self, cls: type, descriptor: Any) -> list[Step]:
        shape = self.shapes.get(cls, Shape())
        plan: list[Step] = []
        for name in [f.name for f in dataclasses.fields(cls)]:
            path = shape.renames.get(name, target(name, descriptor))
            if path in shape.computed:
                continue  # computed from the whole value instead
            if path in descriptor.fields_by_name or name in shape.renames:
                plan.append((path, _attribute(name)))
            if "." in path:  # the sub-message's own plan must not miss it
                *parents, leaf = path.split(".")
                inner = descriptor
                for parent in parents:
                    inner = inner.fields_by_name[parent].message_type
                self._claimed.add(f"{inner.full_name}.{leaf}")
        properties = [(f, _attribute(f)) for f in _properties(cls, descriptor)]
        return plan + properties + list(shape.computed.items())

    def _check(self, cls: type, descriptor: Any) -> None:
        """Refuses a plan that would leave a message field without a source."""
        sourced = self.sources(cls, descriptor)
        missing = [
            f.name
            for f in descriptor.fields
            if f.name not in sourced and f.full_name not in self._claimed
        ]
        if missing:
            msg = f"{descriptor.full_name}.{missing[0]} has no source in {cls.__name__}"
            raise TypeError(msg)

    def sources(self, cls: type, descriptor: Any) -> set[str]:
        """Returns the message fields a value of ``cls`` sets, merges included."""
        shape = self.shapes.get(cls, Shape())
        found = set(shape.computed) | set(_properties(cls, descriptor))
        for name, annotation in hints(cls).items():
            path = shape.renames.get(name, target(name, descriptor))
            if path == "":
                found |= self.sources(unwrap(annotation)[0], descriptor)
            else:
                found.add(path.split(".")[0])
        return found

    def assign(self, message: Any, fields: Mapping[str, Any], names: Names) -> None:
        """Sets each named field of ``message`` by the rules; None leaves it unset."""
        for name, value in fields.items():
            self.set(message, name, value, names)

    def set(self, message: Any, path: str, value: Any, names: Names) -> None:
        """Sets the field at ``path`` ("" for the message itself) to ``value``."""
        if value is None:
            return
        *parents, name = path.split(".") if path else [""]
        for parent in parents:
            message = getattr(message, parent)
        if not name and isinstance(value, Mapping):
            self.assign(message, value, names)
            return
        if not name:
            self.fill(value, message, names, whole=False)
            return
        descriptor = message.DESCRIPTOR.fields_by_name[name]
        if descriptor.is_repeated:
            target = getattr(message, name)
            for seat, item in enumerate(value):
                if descriptor.type != _MESSAGE:
                    target.append(_scalar(descriptor, item, names))
                elif isinstance(item, int):  # one (player, value) entry per seat
                    player, each = target.add().DESCRIPTOR.fields
                    self.assign(target[-1], {player.name: seat, each.name: item}, names)
                else:
                    self._item(item, target.add(), names)
        elif descriptor.type == _MESSAGE:
            inner = getattr(message, name)
            inner.SetInParent()  # set even when all its fields are defaults
            self._item(value, inner, names)
        else:
            setattr(message, name, _scalar(descriptor, value, names))

    def _item(self, value: Any, message: Any, names: Names) -> None:
        if isinstance(value, Message):
            message.CopyFrom(value)
        elif isinstance(value, datetime):
            message.FromDatetime(value)
        elif isinstance(value, Mapping):
            self.assign(message, value, names)
        elif isinstance(value, tuple | list) and not dataclasses.is_dataclass(value):
            (only,) = message.DESCRIPTOR.fields  # a wrapper of one repeated field
            self.set(message, only.name, value, names)
        else:
            self.fill(value, message, names)

    # --- message -> dataclass ---

    def read(self, message: Any, cls: type, path: str, seat: int | None = None) -> Any:
        """Returns the ``cls`` value ``message`` holds, or what is wrong with it.

        A field named ``seat`` is the acting seat, never read from the message.
        """
        parse = self.parsers.get(cls)
        if parse is not None:
            return parse(message, path)
        problems: Violations = []
        values: dict[str, Any] = {}
        shape = self.shapes.get(cls, Shape())
        for name, annotation in hints(cls).items():
            if name == "seat" and seat is not None:
                values[name] = seat
                continue
            *parents, leaf = shape.renames.get(name, name).split(".")
            inner, where = message, path
            for parent in parents:  # a dotted rename: the sub-message is required
                where = f"{where}.{parent}"
                if not inner.HasField(parent):
                    problems.append(FieldViolation(where, "is required"))
                    break
                inner = getattr(inner, parent)
            else:
                values[name] = self._field(inner, leaf, annotation, where, problems)
        oneof = unset_oneof(message, path)
        if oneof is not None:
            problems.insert(0, oneof)
        return _first_each(problems) or cls(**values)

    def _field(
        self, message: Any, name: str, annotation: Any, path: str, problems: Violations
    ) -> Any:
        kind, optional = unwrap(annotation)
        descriptor = message.DESCRIPTOR.fields_by_name[name]
        where, raw = f"{path}.{name}", getattr(message, name)
        if typing.get_origin(kind) is tuple:
            item = typing.get_args(kind)[0]
            read = [
                self._one(v, item, f"{where}[{i}]", descriptor)
                for i, v in enumerate(raw)
            ]
            problems.extend(p for r in read if isinstance(r, list) for p in r)
            return tuple(read)
        present = message.HasField(name) if descriptor.has_presence else bool(raw)
        if not present and optional:
            return None
        if not present and descriptor.type == _MESSAGE:
            problems.append(FieldViolation(where, "is required"))
            return None
        result = self._one(raw, kind, where, descriptor)
        if isinstance(result, list):
            problems.extend(result)
            return None
        return result

    def _one(self, raw: Any, kind: Any, where: str, descriptor: Any) -> Any:
        if isinstance(kind, type) and issubclass(kind, Enum):
            prefix = enum_prefix(descriptor.enum_type)
            number = descriptor.enum_type.values_by_number.get(raw)
            name = number.name.removeprefix(prefix) if number else ""
            member = kind.__members__.get(name)
            if member is None:
                text = self.errors.get(
                    descriptor.full_name.removeprefix("tabletop.v1.")
                )
                choices = ", ".join(kind.__members__)
                return [FieldViolation(where, text or f"must be one of {choices}")]
            return member
        if isinstance(kind, type) and (
            dataclasses.is_dataclass(kind) or kind in self.parsers
        ):
            return self.read(raw, kind, where)
        return raw

    def write(
        self, value: Any, message_type: Callable[[], Message], names: Names
    ) -> Any:
        """Returns a new ``message_type`` filled from ``value``."""
        return self.fill(value, message_type(), names)


def _properties(cls: type, descriptor: Any) -> list[str]:
    """Returns the message fields ``cls`` has a property for."""
    fields = descriptor.fields_by_name
    return [f for f in fields if isinstance(getattr(cls, f, None), property)]


def _attribute(name: str) -> Callable[[Any, Names], Any]:
    return lambda value, _: getattr(value, name)


def _scalar(descriptor: Any, value: Any, names: Names) -> Any:
    if descriptor.type == _ENUM:
        if isinstance(value, Enum):
            value = value.name
        if isinstance(value, str):
            return descriptor.enum_type.values_by_name[
                enum_prefix(descriptor.enum_type) + value.upper()
            ].number
        return value
    if descriptor.type == _STRING and not isinstance(value, str):
        is_seat = isinstance(value, int) and not isinstance(value, bool)
        return names(value) if is_seat else str(value)
    return value


def _first_each(problems: Violations) -> Violations:
    """Returns the first problem named for each field."""
    first: dict[str, FieldViolation] = {}
    for problem in problems:
        first.setdefault(problem.field, problem)
    return list(first.values())


def unset_oneof(message: Any, path: str) -> FieldViolation | None:
    """Says which fields to set when a message's choice is left empty."""
    for oneof in message.DESCRIPTOR.oneofs:
        if oneof.name.startswith("_") or message.WhichOneof(oneof.name):
            continue  # a proto3 ``optional``, or a choice made
        names = [f.name for f in oneof.fields]
        either = len(names) <= 2  # noqa: PLR2004 (two choices read "a or b")
        choices = " or ".join(names) if either else "one of " + ", ".join(names)
        return FieldViolation(f"{path}.{oneof.name}", f"set {choices}")
    return None


def members(
    choices: Sequence[type], renames: Mapping[type, str] | None = None
) -> dict[type, str]:
    """Returns each class's oneof member: its name in snake case unless renamed."""
    named = dict(renames or {})
    return {
        cls: named.get(cls) or re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
        for cls in choices
    }
