"""A real server refuses oversized requests by their shape, and stores nothing."""

from __future__ import annotations

import grpc
import pytest
from tabletop.v1 import (
    game_audit_service_pb2,
    game_audit_service_pb2_grpc,
    game_service_pb2,
)

from infra.server import MAX_REQUEST_BYTES
from tests.e2e.client import auth, error_of, expect_error, get, seat_of, start_two_seats
from tests.e2e.conftest import Server
from tests.helpers import qwirkle_placements_message

# The attack of issue 16: about 1 MiB, which gRPC now refuses by its size.
ATTACK_PLACEMENTS = 74_000
# As many as fit under the server's receive limit: refused by their shape.
LARGEST_PLACEMENTS = 4_000


def test_a_qwirkle_move_of_4000_placements_is_refused_by_its_shape(
    server: Server,
) -> None:
    name, tokens = start_two_seats(server.stub)
    before = get(server.stub, name, None)
    mover = tokens[seat_of(before.current_player)]
    request = game_service_pb2.SubmitMoveRequest(
        name=name, move=qwirkle_placements_message(LARGEST_PLACEMENTS)
    )
    assert MAX_REQUEST_BYTES / 2 < request.ByteSize() < MAX_REQUEST_BYTES

    code, reason, metadata = expect_error(
        server.stub.SubmitMove, request, metadata=auth(mover), timeout=30
    )

    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert reason == "TOO_MANY_VALUES"
    assert metadata == {
        "field": "move.qwirkle.place_tiles.placements",
        "limit": "6",
        "size": str(LARGEST_PLACEMENTS),
    }
    assert get(server.stub, name, None).revision == before.revision


def test_a_qwirkle_move_of_74000_placements_is_refused_before_it_is_read(
    server: Server,
) -> None:
    name, tokens = start_two_seats(server.stub)
    before = get(server.stub, name, None)
    mover = tokens[seat_of(before.current_player)]
    request = game_service_pb2.SubmitMoveRequest(
        name=name, move=qwirkle_placements_message(ATTACK_PLACEMENTS)
    )
    assert request.ByteSize() > 1_000_000

    with pytest.raises(grpc.RpcError) as refused:
        server.stub.SubmitMove(request, metadata=auth(mover), timeout=30)

    # gRPC itself refuses a request over the receive limit, before our code.
    assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert get(server.stub, name, None).revision == before.revision


def test_a_request_of_either_service_past_a_limit_is_refused_streams_included(
    server: Server,
) -> None:
    name, _ = start_two_seats(server.stub)
    long_name = name + "x" * 1000
    stream = server.stub.StreamGame(
        game_service_pb2.StreamGameRequest(name=long_name), timeout=10
    )
    try:
        next(stream)
    except grpc.RpcError as error:
        streamed = error_of(error)
    else:
        raise AssertionError("the stream was not refused")
    audit = game_audit_service_pb2_grpc.GameAuditServiceStub(server.channel)
    assert server.operator_token is not None
    exported = expect_error(
        audit.ExportGame,
        game_audit_service_pb2.ExportGameRequest(name=long_name),
        metadata=auth(server.operator_token),
        timeout=10,
    )
    for code, reason, metadata in (streamed, exported):
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "FIELD_TOO_LONG")
        assert metadata == {"field": "name", "limit": "42", "size": "1042"}
