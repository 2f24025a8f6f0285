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
import functools
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from operator import attrgetter
from typing import Any, TypeAlias

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from services.api.errors import FieldViolation

# Turns a seat index into its player resource name, games/{game}/players/{seat}.
Names: TypeAlias = Callable[[int], str]
Violations: TypeAlias = list[FieldViolation]
# Sets one field of a message: (message, value, names) -> None.
Writer: TypeAlias = Callable[[Any, Any, Names], None]
# One step of a plan: how to get a value, and the writer of its field.
Step: TypeAlias = tuple[Callable[[Any, Names], Any], Writer]
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
    return _snake(descriptor.name).upper() + "_"


@functools.cache
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name)


def target(name: str, descriptor: Any) -> str:
    """Returns the message field a dataclass field goes to when not renamed."""
    fields = descriptor.fields_by_name
    player = re.sub(r"seat(s?)$", r"player\1", name)
    return next((f for f in (name, player, f"{name}_state") if f in fields), name)


@functools.cache
def hints(cls: type) -> dict[str, Any]:
    """Returns a dataclass's field types, resolved (once per class)."""
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
        self._plans: dict[tuple[type, type], list[Step]] = {}
        self._writers: dict[tuple[str, str], Writer] = {}
        # The same writers by message class, then field: what ``assign`` reads.
        self._by_class: dict[type, dict[str, Writer]] = {}
        # Plans of messages of scalars only: (field, getter, converter) each.
        self._flat: dict[tuple[type, str], list[tuple[str, Any, Any]]] = {}
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
        plan = self._plans.get((type(value), type(message)))
        if plan is None:
            plan = self._plan_for(type(value), type(message), whole=whole)
        for get, write in plan:
            item = get(value, names)
            if item is not None:
                write(message, item, names)
        return message

    def _plan_for(self, cls: type, message_type: type, *, whole: bool) -> list[Step]:
        """Returns the plan of ``cls`` into ``message_type``, made and checked once."""
        descriptor: Any = getattr(message_type, "DESCRIPTOR", None)
        plan = self._plans[cls, message_type] = self._plan(cls, descriptor)
        if whole:
            self._check(cls, descriptor)
        return plan

    def _plan(self, cls: type, descriptor: Any) -> list[Step]:
        shape = self.shapes.get(cls, Shape())
        paths: list[tuple[str, Callable[[Any, Names], Any]]] = []
        for name in [f.name for f in dataclasses.fields(cls)]:
            path = shape.renames.get(name, target(name, descriptor))
            if path in shape.computed:
                continue  # computed from the whole value instead
            if path in descriptor.fields_by_name or name in shape.renames:
                paths.append((path, _attribute(name)))
            if "." in path:  # the sub-message's own plan must not miss it
                *parents, leaf = path.split(".")
                inner = descriptor
                for parent in parents:
                    inner = inner.fields_by_name[parent].message_type
                self._claimed.add(f"{inner.full_name}.{leaf}")
        paths += [(f, _attribute(f)) for f in _properties(cls, descriptor)]
        paths += list(shape.computed.items())
        fields = [descriptor.fields_by_name.get(path) for path, _ in paths]
        if all(f is not None and f.type != _MESSAGE for f in fields):
            self._flat[cls, descriptor.full_name] = [
                (path, get, _converter(f) or _same)
                for (path, get), f in zip(paths, fields, strict=True)
            ]
        return [(get, self._writer(descriptor, path)) for path, get in paths]

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
        writers = self._by_class.get(type(message))
        if writers is None:
            writers = self._by_class[type(message)] = {}
        for name, value in fields.items():
            if value is None:
                continue
            write = writers.get(name)
            if write is None:
                write = writers[name] = self._writer(message.DESCRIPTOR, name)
            write(message, value, names)

    def set(self, message: Any, path: str, value: Any, names: Names) -> None:
        """Sets the field at ``path`` ("" for the message itself) to ``value``."""
        if value is not None:
            self._writer(message.DESCRIPTOR, path)(message, value, names)

    def _writer(self, descriptor: Any, path: str) -> Writer:
        """Returns how to set the field at ``path`` of a message, made once."""
        key = (descriptor.full_name, path)
        writer = self._writers.get(key)
        if writer is None:
            writer = self._writers[key] = self._make_writer(descriptor, path)
        return writer

    def _make_writer(self, descriptor: Any, path: str) -> Writer:
        first, dot, rest = path.partition(".")
        if dot:  # a field of a sub-message
            write = self._writer(descriptor.fields_by_name[first].message_type, rest)
            return lambda m, v, n: write(getattr(m, first), v, n)
        if not path:
            return self._merge
        field = descriptor.fields_by_name[path]
        convert = _converter(field) or _same
        if field.is_repeated and field.type == _MESSAGE:
            return self._repeated_writer(path, field.message_type)
        if field.is_repeated and convert is _same:
            return lambda m, v, _: getattr(m, path).extend(v)
        if field.is_repeated:
            return lambda m, v, n: getattr(m, path).extend([convert(i, n) for i in v])
        if field.type == _MESSAGE:
            return lambda m, v, n: self._item(v, _present(getattr(m, path)), n)
        if convert is _same:
            return lambda m, v, _: setattr(m, path, v)
        return lambda m, v, n: setattr(m, path, convert(v, n))

    def _merge(self, message: Any, value: Any, names: Names) -> None:
        if isinstance(value, Mapping):
            self.assign(message, value, names)
        else:
            self.fill(value, message, names, whole=False)

    def _repeated_writer(self, path: str, descriptor: Any) -> Writer:
        """Returns the writer of a repeated message field: one adder per item type."""
        adders: dict[type, Callable[[Any, int, Any, Names], None]] = {}

        def write(message: Any, values: Any, names: Names) -> None:
            target = getattr(message, path)
            for seat, item in enumerate(values):
                add = adders.get(type(item))
                if add is None:
                    add = adders[type(item)] = self._adder(descriptor, type(item))
                add(target, seat, item, names)

        return write

    def _adder(
        self, descriptor: Any, cls: type
    ) -> Callable[[Any, int, Any, Names], None]:
        """Returns how one ``cls`` item is added to a repeated ``descriptor`` field."""
        if cls is int:  # one (player, value) entry per seat
            player, each = (f.name for f in descriptor.fields)
            return lambda t, seat, v, n: t.add(**{player: n(seat), each: v})
        message_type = GetMessageClass(descriptor)
        if dataclasses.is_dataclass(cls) and (cls, message_type) not in self._plans:
            self._plan_for(cls, message_type, whole=True)
        flat = self._flat.get((cls, descriptor.full_name))
        if flat is None:  # sub-messages: filled one by one
            return lambda t, _, v, n: self._item(v, t.add(), n)
        fields = [(name, get, convert) for name, get, convert in flat]

        def add(target: Any, _: int, value: Any, names: Names) -> None:
            made = {}
            for name, get, convert in fields:
                item = get(value, names)
                if item is not None:
                    made[name] = convert(item, names)
            target.add(**made)

        return add

    def _item(self, value: Any, message: Any, names: Names) -> None:
        if (type(value), type(message)) in self._plans:
            self.fill(value, message, names)
        elif isinstance(value, Message):
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
        oneof = unset_oneof(message, path, self.errors)
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
    get = attrgetter(name)
    return lambda value, _: get(value)


def _present(message: Any) -> Any:
    message.SetInParent()  # set even when all its fields are defaults
    return message


def _converter(field: Any) -> Callable[[Any, Names], Any] | None:
    """Returns how one value becomes what the scalar ``field`` holds (None: as is)."""
    if field.type == _ENUM:
        prefix = enum_prefix(field.enum_type)
        numbers = {
            v.name.removeprefix(prefix): v.number for v in field.enum_type.values
        }
        known: dict[Any, int] = {}  # member (or name) -> number, filled as met

        def number(value: Any, _: Names) -> Any:
            found = known.get(value)
            if found is None:
                name = value.name if isinstance(value, Enum) else str(value).upper()
                found = known[value] = (
                    numbers[name] if isinstance(value, Enum | str) else value
                )
            return found

        return number
    if field.type == _STRING:
        return lambda v, n: v if type(v) is str else _text(v, n)
    return None


def _same(value: Any, _: Names) -> Any:
    return value


def _text(value: Any, names: Names) -> str:
    is_seat = isinstance(value, int) and not isinstance(value, bool)
    return names(value) if is_seat else str(value)


def _first_each(problems: Violations) -> Violations:
    """Returns the first problem named for each field."""
    first: dict[str, FieldViolation] = {}
    for problem in problems:
        first.setdefault(problem.field, problem)
    return list(first.values())


def unset_oneof(
    message: Any, path: str, errors: Mapping[str, str]
) -> FieldViolation | None:
    """Says which fields to set when a message's choice is left empty."""
    for oneof in message.DESCRIPTOR.oneofs:
        if oneof.name.startswith("_") or message.WhichOneof(oneof.name):
            continue  # a proto3 ``optional``, or a choice made
        names = [f.name for f in oneof.fields]
        either = len(names) <= 2  # noqa: PLR2004 (two choices read "a or b")
        choices = " or ".join(names) if either else "one of " + ", ".join(names)
        text = errors.get(f"{message.DESCRIPTOR.name}.{oneof.name}")
        return FieldViolation(f"{path}.{oneof.name}", text or f"set {choices}")
    return None


def members(
    choices: Sequence[type], renames: Mapping[type, str] | None = None
) -> dict[type, str]:
    """Returns each class's oneof member: its name in snake case unless renamed."""
    named = dict(renames or {})
    return {cls: named.get(cls) or _snake(cls.__name__).lower() for cls in choices}
