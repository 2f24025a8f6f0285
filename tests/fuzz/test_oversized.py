"""Valid requests blown past one limit of shape, against a real server.

Whichever list or text of whichever RPC's request is made too big, the server
refuses the request by its shape (``INVALID_ARGUMENT``, ``TOO_MANY_VALUES`` or
``FIELD_TOO_LONG``, the field's path in ``BadRequest``) whatever the caller's
credentials, and stores nothing.
"""

from __future__ import annotations

from typing import Any, cast

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from hypothesis import given
from hypothesis import strategies as st

from services.api.shapes import FIELD_LIMITS, oversized
from tests.e2e.client import auth
from tests.fuzz.conftest import CASES
from tests.fuzz.test_hostile_input import (
    FUZZ,
    METHODS,
    World,
    _valid,
    credentials,
    world,
)

pytestmark = pytest.mark.e2e
__all__ = ["world"]  # the module's server, shared by every case here

_TEXT = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


def _limited(field: FieldDescriptor) -> bool:
    return field.is_repeated or field.type in _TEXT


def _targets(message: Message) -> list[tuple[Message, FieldDescriptor]]:
    """Returns the lists and texts of ``message`` and of every message it sets."""
    fields = cast("list[FieldDescriptor]", list(message.DESCRIPTOR.fields))
    found = [(message, f) for f in fields if _limited(f)]
    for field, value in message.ListFields():
        if field.message_type is not None:
            for item in value if field.is_repeated else (value,):
                found.extend(_targets(item))
    return found


def _inflate(
    message: Message, field: FieldDescriptor, extra: int, *, item: bool
) -> None:
    """Puts ``extra`` more values (or characters) in ``field`` than its limit."""
    limit = FIELD_LIMITS[field]
    target: Any = getattr(message, field.name)
    text = b"x" if field.type == FieldDescriptor.TYPE_BYTES else "x"
    if field.is_repeated and item and limit.length is not None:
        target.append(text * (limit.length + extra))
    elif field.is_repeated:
        assert limit.values is not None
        del target[:]
        for _ in range(limit.values + extra):
            if field.message_type is not None:
                target.add()
            else:
                target.append(text if field.type in _TEXT else 0)
    else:
        assert limit.length is not None
        setattr(message, field.name, text * (limit.length + extra))


def _refusal(world: World, rpc: str, payload: bytes, metadata: Any) -> grpc.Call:
    """Returns the failed call; fails the test if it succeeds."""
    try:
        call = world.raw(rpc)(payload, metadata=metadata, timeout=10)
        if METHODS[rpc].server_streaming:
            next(call)
    except grpc.RpcError as error:
        return cast("grpc.Call", error)
    msg = f"{rpc} accepted a request past a limit"
    raise AssertionError(msg)


@pytest.mark.parametrize(
    "rpc",
    sorted(m for m in METHODS if any(map(_limited, METHODS[m].input_type.fields))),
)
@FUZZ
@given(data=st.data())
def test_a_request_past_any_limit_is_refused_by_shape_and_stores_nothing(
    world: World, rpc: str, data: st.DataObject
) -> None:
    CASES[rpc] += 1
    table = data.draw(st.sampled_from(world.tables))
    request = _valid(world, rpc, table)
    message, field = data.draw(st.sampled_from(_targets(request)))
    extra = data.draw(st.sampled_from([1, 2, 1000]))
    _inflate(message, field, extra, item=data.draw(st.booleans()))
    expected = oversized(request)
    assert expected is not None
    seat = data.draw(st.sampled_from(table.tokens))
    metadata = data.draw(st.one_of(st.just(auth(seat)), credentials(world)))
    before = world.stored()

    call = _refusal(world, rpc, request.SerializeToString(), metadata)

    assert call.code() is grpc.StatusCode.INVALID_ARGUMENT, call.details()
    status = rpc_status.from_call(call)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    bad = error_details_pb2.BadRequest()
    assert any(d.Unpack(info) for d in status.details)
    assert any(d.Unpack(bad) for d in status.details)
    assert info.reason == expected.reason
    assert info.metadata["limit"] == str(expected.limit)
    assert [v.field for v in bad.field_violations] == [expected.field]
    assert world.stored() == before
