"""Refuses a request by its shape before any costly work: too many values, too long.

A repeated field with more values, or a string (bytes) longer, than any valid
request holds (services/api/shape_limits.py) is refused with
``INVALID_ARGUMENT`` before the handler runs: before the request is converted,
the game loaded or anything stored. The check walks only the fields a request
sets and compares lengths: it costs a refused move microseconds, where
converting and deciding a 1 MiB one cost most of a second. gRPC parses the
message before any guard; that is why it reads at most 64 KiB (decision T22).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import descriptor_pool
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from tabletop.v1 import auth_service_pb2, game_audit_service_pb2, game_service_pb2

from services.api.errors import FieldViolation, bad_request
from services.api.interception import Guard, GuardingInterceptor, Handler
from services.api.shape_limits import LIMITS

TOO_MANY_VALUES = "TOO_MANY_VALUES"
FIELD_TOO_LONG = "FIELD_TOO_LONG"
PACKAGE = "tabletop.v1"
# The services whose requests are checked; the imports above put every message
# they reach in the default pool.
SERVICES = (
    auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"],
    game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
    game_audit_service_pb2.DESCRIPTOR.services_by_name["GameAuditService"],
)


@dataclass(frozen=True, slots=True)
class Limit:
    """A field's limits: values of a repeated field, characters (bytes) of each."""

    values: int | None
    length: int | None


def _resolve(limits: Mapping[str, int]) -> dict[FieldDescriptor, Limit]:
    """Returns each field's limits; a key that names no field fails at import."""
    pool = descriptor_pool.Default()
    values: dict[FieldDescriptor, int] = {}
    lengths: dict[FieldDescriptor, int] = {}
    for key, limit in limits.items():
        name = key.removesuffix("[]")
        # Keys of well-known types (a FieldMask) are named in full.
        full = name if name.startswith("google.") else f"{PACKAGE}.{name}"
        field = pool.FindFieldByName(full)
        if key.endswith("[]") or not field.is_repeated:
            lengths[field] = limit
        else:
            values[field] = limit
    return {
        field: Limit(values.get(field), lengths.get(field))
        for field in values.keys() | lengths.keys()
    }


FIELD_LIMITS: Mapping[FieldDescriptor, Limit] = _resolve(LIMITS)
_UNLIMITED = Limit(None, None)


@dataclass(frozen=True, slots=True)
class Oversized:
    """The first field of a request past its limit, by its path in the request."""

    field: str
    limit: int
    size: int
    reason: str
    unit: str

    def status(self) -> grpc.Status:
        """Returns the ``INVALID_ARGUMENT`` status that refuses the request."""
        if self.reason == TOO_MANY_VALUES:
            said = f"{self.field} holds {self.size} values; at most {self.limit}"
        else:
            said = f"{self.field} has {self.size} {self.unit}; at most {self.limit}"
        message = f"{said} are allowed."
        metadata = {
            "field": self.field,
            "limit": str(self.limit),
            "size": str(self.size),
        }
        violation = FieldViolation(self.field, f"at most {self.limit} {self.unit}")
        return bad_request(self.reason, message, [violation], metadata)


def oversized(message: Message, prefix: str = "") -> Oversized | None:
    """Returns the first field of ``message`` past its limit, None when all fit.

    Only set fields are visited, and a repeated field's length is compared
    before any of its values is.
    """
    for field, value in message.ListFields():
        path = prefix + field.name
        limit = FIELD_LIMITS.get(field, _UNLIMITED)
        if not field.is_repeated:
            found = _one(field, value, path, limit)
        elif limit.values is not None and len(value) > limit.values:
            found = Oversized(path, limit.values, len(value), TOO_MANY_VALUES, "values")
        else:
            found = _each(field, value, path, limit)
        if found is not None:
            return found
    return None


def _one(
    field: FieldDescriptor, value: Any, path: str, limit: Limit
) -> Oversized | None:
    if field.message_type is not None:
        return oversized(value, path + ".") if _limited(field.message_type) else None
    if limit.length is not None and len(value) > limit.length:
        unit = "bytes" if field.type == FieldDescriptor.TYPE_BYTES else "characters"
        return Oversized(path, limit.length, len(value), FIELD_TOO_LONG, unit)
    return None


def _each(
    field: FieldDescriptor, values: Any, path: str, limit: Limit
) -> Oversized | None:
    if field.message_type is None and limit.length is None:
        return None  # numbers and enums: their count was all there was to check
    if field.message_type is not None and not _limited(field.message_type):
        return None
    for index, value in enumerate(values):
        found = _one(field, value, f"{path}[{index}]", limit)
        if found is not None:
            return found
    return None


def _walked() -> frozenset[str]:
    """Returns the messages worth walking: a limited field in them or below them.

    Messages of numbers alone (a tile, a coordinate) are then never walked.
    """
    reached: dict[str, Descriptor] = {}
    stack = [method.input_type for service in SERVICES for method in service.methods]
    while stack:
        message = stack.pop()
        if message.full_name not in reached:
            reached[message.full_name] = message
            stack.extend(f.message_type for f in message.fields if f.message_type)
    walked: set[str] = set()
    grown = True
    while grown:  # to a fixed point, so a message that holds itself ends too
        before = len(walked)
        walked |= {
            name
            for name, message in reached.items()
            if any(
                field in FIELD_LIMITS
                or (field.message_type and field.message_type.full_name in walked)
                for field in message.fields
            )
        }
        grown = len(walked) > before
    return frozenset(walked)


_WALKED = _walked()


def _limited(message: Descriptor) -> bool:
    return message.full_name in _WALKED


class ShapeInterceptor(GuardingInterceptor):
    """Refuses a request past a limit of shape before its handler runs."""

    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the check, the same for every method: limits are per field."""
        del method, handler
        return _checked


@contextlib.asynccontextmanager
async def _checked(context: Any, request: Any) -> AsyncIterator[None]:
    found = oversized(request)
    if found is not None:
        await context.abort_with_status(found.status())
    yield
