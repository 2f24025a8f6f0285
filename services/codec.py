"""Domain values <-> JSON-ready data, under stable names chosen by the games.

Every dataclass is written as ``{"_type": <stable name>, <field>: ...}``; enums
as their values; datetimes in ISO 8601; tuples as lists; mappings as lists of
``[key, value]`` pairs.
Decoding follows the dataclass field types, so a stored event never depends on
a Python module path.

A class may change shape and stay readable (docs/events.md): it declares
``SCHEMA_VERSION: ClassVar[int] = n`` (absent: 1) and one static method
``upcast_vK_vK+1(data)`` per step from version 1, each changing a stored dict in
place from one version to the next. A version above 1 is written under ``_v``;
a dict without it is version 1. Decoding applies the missing steps to a copy of
the stored dict, never to the dict itself, so what was stored stays as stored.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from domain.common.fields import OMITTED_WHEN_DEFAULT

TYPE_KEY = "_type"
VERSION_KEY = "_v"
SCHEMA_VERSION_ATTRIBUTE = "SCHEMA_VERSION"


def schema_version(cls: type[Any]) -> int:
    """Returns the version of the stored shape of a class (1 unless declared)."""
    version = getattr(cls, SCHEMA_VERSION_ATTRIBUTE, 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        msg = f"{cls.__qualname__}.{SCHEMA_VERSION_ATTRIBUTE} must be an int >= 1"
        raise ValueError(msg)
    return version


def upcaster_name(version: int) -> str:
    """Returns the name of the method that upcasts a stored dict from ``version``."""
    return f"upcast_v{version}_v{version + 1}"


class Codec:
    """Encodes and decodes the registered dataclasses (and what they contain)."""

    def __init__(self, names: Mapping[str, type[Any]]) -> None:
        self._by_name = dict(names)
        self._by_type = {cls: name for name, cls in names.items()}
        if len(self._by_type) != len(self._by_name):
            msg = "a class is registered under two names"
            raise ValueError(msg)
        self._versions = {cls: schema_version(cls) for cls in self._by_type}
        for cls, version in self._versions.items():
            for step in range(1, version):
                if not callable(getattr(cls, upcaster_name(step), None)):
                    msg = (
                        f"{cls.__qualname__} is at schema version {version} "
                        f"but has no {upcaster_name(step)}"
                    )
                    raise ValueError(msg)  # noqa: TRY004 (a shape that cannot be read)

    def name_of(self, value: object) -> str:
        """Returns the stable name a dataclass instance is stored under."""
        try:
            return self._by_type[type(value)]
        except KeyError:
            msg = f"{type(value).__qualname__} has no stable name"
            raise TypeError(msg) from None

    def encode(self, value: object) -> Any:
        """Returns JSON-ready data for a registered value."""
        if value is None or isinstance(value, bool | int | str | float):
            return value.value if isinstance(value, enum.Enum) else value
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, datetime):
            return value.isoformat()
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            data: dict[str, Any] = {TYPE_KEY: self.name_of(value)}
            version = self._versions[type(value)]
            if version > 1:
                data[VERSION_KEY] = version
            for field in dataclasses.fields(value):
                item = getattr(value, field.name)
                if field.metadata.get(OMITTED_WHEN_DEFAULT) and item == field.default:
                    continue  # a field added later, saying nothing here
                data[field.name] = self.encode(item)
            return data
        if isinstance(value, tuple | list | frozenset):
            return [self.encode(item) for item in value]
        if isinstance(value, Mapping):
            return [[self.encode(k), self.encode(v)] for k, v in value.items()]
        msg = f"cannot encode {type(value).__qualname__}"
        raise TypeError(msg)

    def decode(self, data: Any, hint: Any = object) -> Any:
        """Returns the value that ``encode`` turned into ``data``."""
        if isinstance(data, dict) and TYPE_KEY in data:
            return self._decode_dataclass(data)
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin in (types.UnionType, typing.Union):
            return self._decode_union(data, args)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return hint(data)
        if hint is datetime:
            return datetime.fromisoformat(data)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:  # noqa: PLR2004
                return tuple(self.decode(item, args[0]) for item in data)
            return tuple(self.decode(i, h) for i, h in zip(data, args, strict=True))
        if origin in (Mapping, dict):
            key_hint, value_hint = args or (object, object)
            return {
                self.decode(k, key_hint): self.decode(v, value_hint) for k, v in data
            }
        if origin is frozenset:
            return frozenset(self.decode(item, args[0]) for item in data)
        return data

    def current_form(self, data: Any) -> Any:
        """Returns stored data as today's code would write what it decodes to.

        Every registered value in it is upcast to its class's current version
        and given the fields added since with their defaults, so that for what
        any release stored ``encode(decode(data)) == current_form(data)``. Keys
        a class does not define are kept, so a comparison shows them. ``data``
        itself is not changed.
        """
        if isinstance(data, list):
            return [self.current_form(item) for item in data]
        if not isinstance(data, dict):
            return data
        if TYPE_KEY not in data:
            return {key: self.current_form(value) for key, value in data.items()}
        cls = self._class_of(data)
        current = self._versions[cls]
        stored = data.get(VERSION_KEY, 1)
        if stored != current:
            data = _upcast(cls, data, stored, current)
        form = {key: self.current_form(value) for key, value in data.items()}
        for field in dataclasses.fields(cls):
            if field.name in form or field.metadata.get(OMITTED_WHEN_DEFAULT):
                continue
            if field.default is not dataclasses.MISSING:
                form[field.name] = self.encode(field.default)
            elif field.default_factory is not dataclasses.MISSING:
                form[field.name] = self.encode(field.default_factory())
        return form

    def _class_of(self, data: dict[str, Any]) -> type[Any]:
        cls = self._by_name.get(data[TYPE_KEY])
        if cls is None:
            msg = f"unknown stored type {data[TYPE_KEY]!r}"
            raise ValueError(msg)
        return cls

    def _decode_dataclass(self, data: dict[str, Any]) -> Any:
        cls = self._class_of(data)
        current = self._versions[cls]
        stored = data.get(VERSION_KEY, 1)
        if stored != current:
            data = _upcast(cls, data, stored, current)
        hints = _hints(cls)
        kwargs = {
            field.name: self.decode(data[field.name], hints[field.name])
            for field in dataclasses.fields(cls)
            if field.name in data
        }
        return cls(**kwargs)

    def _decode_union(self, data: Any, options: tuple[Any, ...]) -> Any:
        if data is None:
            return None
        for option in options:
            if isinstance(option, type) and issubclass(option, enum.Enum):
                try:
                    return option(data)
                except ValueError:
                    continue
            if option is type(None):
                continue
            if option is datetime and isinstance(data, str):
                return datetime.fromisoformat(data)
            if typing.get_origin(option) is tuple and isinstance(data, list):
                return self.decode(data, option)
        return data


def _upcast(
    cls: type[Any], data: dict[str, Any], stored: Any, current: int
) -> dict[str, Any]:
    """Returns a copy of ``data`` brought from version ``stored`` to ``current``."""
    name = data[TYPE_KEY]
    if not isinstance(stored, int) or isinstance(stored, bool) or stored < 1:
        msg = f"{name!r} has no valid schema version: {stored!r}"
        raise ValueError(msg)
    if stored > current:
        msg = (
            f"{name!r} was stored by newer code: schema version {stored}, "
            f"this code reads up to version {current}"
        )
        raise ValueError(msg)
    upcast = copy.deepcopy(data)
    for step in range(stored, current):
        getattr(cls, upcaster_name(step))(upcast)
    upcast[VERSION_KEY] = current
    return upcast


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints
