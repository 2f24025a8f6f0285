"""Refusals become statuses with the code and details a client switches on."""

from __future__ import annotations

from typing import TypeVar

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from domain.common.decision import RejectionKind, reject
from services.api.errors import ApiError, internal, rejection_status, unavailable
from tests.helpers import error_info, status_details

M = TypeVar("M", bound=Message)

CODES = {
    RejectionKind.MALFORMED: grpc.StatusCode.INVALID_ARGUMENT,
    RejectionKind.NOT_ALLOWED_NOW: grpc.StatusCode.FAILED_PRECONDITION,
    RejectionKind.NOT_A_PARTICIPANT: grpc.StatusCode.PERMISSION_DENIED,
    RejectionKind.STALE: grpc.StatusCode.ABORTED,
    RejectionKind.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    RejectionKind.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    RejectionKind.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}


def _detail(error: ApiError, kind: type[M]) -> M | None:
    for detail in status_details(error).details:
        message = kind()
        if detail.Unpack(message):
            return message
    return None


@pytest.mark.parametrize("kind", list(RejectionKind))
def test_every_kind_of_refusal_has_its_status_code_and_error_info(
    kind: RejectionKind,
) -> None:
    refused = reject("SOME_REASON", "Some sentence.", "game/rule", kind, count=3)
    error = ApiError(rejection_status(refused))
    assert error.status.code == CODES[kind]
    assert error.status.details == "Some sentence."
    info = error_info(error)
    assert (info.domain, info.reason) == ("tabletop.games", "SOME_REASON")
    assert dict(info.metadata) == {"count": "3"}


def test_a_rules_refusal_names_the_rule_that_refused() -> None:
    refused = reject("NOT_YOUR_TURN", "It is not your turn.", "common/turn_order")
    failure = _detail(
        ApiError(rejection_status(refused)), error_details_pb2.PreconditionFailure
    )
    assert isinstance(failure, error_details_pb2.PreconditionFailure)
    (violation,) = failure.violations
    assert (violation.type, violation.subject) == ("RULE", "common/turn_order")


def test_a_malformed_request_names_the_bad_field() -> None:
    refused = reject(
        "MALFORMED_MOVE",
        "Bad.",
        "table/move_format",
        RejectionKind.MALFORMED,
        field="move.qwirkle.place_tiles.placements[0].at",
    )
    request = _detail(ApiError(rejection_status(refused)), error_details_pb2.BadRequest)
    assert isinstance(request, error_details_pb2.BadRequest)
    assert (
        request.field_violations[0].field == "move.qwirkle.place_tiles.placements[0].at"
    )


def test_an_unknown_game_names_the_resource() -> None:
    refused = reject(
        "GAME_NOT_FOUND",
        "No game.",
        "table/exists",
        RejectionKind.NOT_FOUND,
        game="games/x",
    )
    info = _detail(ApiError(rejection_status(refused)), error_details_pb2.ResourceInfo)
    assert isinstance(info, error_details_pb2.ResourceInfo)
    assert info.resource_name == "games/x"


def test_an_unavailable_store_advises_when_to_retry() -> None:
    error = ApiError(unavailable("Down.", retry_after_seconds=2))
    assert error.status.code == grpc.StatusCode.UNAVAILABLE
    retry = _detail(error, error_details_pb2.RetryInfo)
    assert isinstance(retry, error_details_pb2.RetryInfo)
    assert retry.retry_delay.seconds == 2


def test_an_internal_error_reveals_nothing_internal() -> None:
    error = ApiError(internal())
    assert error.status.code == grpc.StatusCode.INTERNAL
    assert error_info(error).reason == "INTERNAL"
    assert "Traceback" not in error.status.details
