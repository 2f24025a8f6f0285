"""The one place that turns refusals and failures into rich ``grpc.Status``.

Every error carries ``google.rpc.ErrorInfo`` (domain ``tabletop.games``, a stable
reason a client can switch on, the message's dynamic values as metadata), plus
the detail that fits its code: ``PreconditionFailure`` naming the rule,
``BadRequest`` field violations, ``ResourceInfo`` or ``RetryInfo``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from domain.common.decision import Rejected, RejectionKind

DOMAIN = "tabletop.games"

_CODES: Mapping[RejectionKind, int] = {
    RejectionKind.MALFORMED: code_pb2.INVALID_ARGUMENT,
    RejectionKind.NOT_ALLOWED_NOW: code_pb2.FAILED_PRECONDITION,
    RejectionKind.NOT_A_PARTICIPANT: code_pb2.PERMISSION_DENIED,
    RejectionKind.STALE: code_pb2.ABORTED,
    RejectionKind.NOT_FOUND: code_pb2.NOT_FOUND,
    RejectionKind.UNAUTHENTICATED: code_pb2.UNAUTHENTICATED,
    RejectionKind.UNAVAILABLE: code_pb2.UNAVAILABLE,
}


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One bad field of a request, by its path (``move.qwirkle.place_tiles...``)."""

    field: str
    description: str


class ApiError(Exception):
    """A request the API refuses; carries the ``grpc.Status`` to answer with."""

    def __init__(self, status: grpc.Status) -> None:
        super().__init__(status.details)
        self.status = status


def rejection_status(rejected: Rejected, field: str = "") -> grpc.Status:
    """Returns the status for a refusal of the rules or the table."""
    code = _CODES[rejected.kind]
    details = [_error_info(rejected.reason, rejected.metadata)]
    if rejected.kind is RejectionKind.NOT_ALLOWED_NOW:
        violation = error_details_pb2.PreconditionFailure.Violation(
            type="RULE", subject=rejected.rule, description=rejected.message
        )
        details.append(
            _pack(error_details_pb2.PreconditionFailure(violations=[violation]))
        )
    elif rejected.kind is RejectionKind.MALFORMED:
        violation_field = field or rejected.metadata.get("field", rejected.rule)
        details.append(
            _pack(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=violation_field, description=rejected.message
                        )
                    ]
                )
            )
        )
    elif rejected.kind is RejectionKind.NOT_FOUND and "game" in rejected.metadata:
        details.append(
            _pack(
                error_details_pb2.ResourceInfo(
                    resource_type="tabletop.v1.Game",
                    resource_name=rejected.metadata["game"],
                    description=rejected.message,
                )
            )
        )
    return _status(code, rejected.message, details)


def bad_request(
    reason: str,
    message: str,
    violations: Sequence[FieldViolation],
    metadata: Mapping[str, str] | None = None,
) -> grpc.Status:
    """Returns an ``INVALID_ARGUMENT`` status listing the bad fields."""
    request = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(
                field=v.field, description=v.description
            )
            for v in violations
        ]
    )
    info = _error_info(reason, metadata or {})
    return _status(code_pb2.INVALID_ARGUMENT, message, [info, _pack(request)])


def unauthenticated(reason: str, message: str) -> grpc.Status:
    """Returns an ``UNAUTHENTICATED`` status."""
    return _status(code_pb2.UNAUTHENTICATED, message, [_error_info(reason, {})])


def unavailable(
    message: str, retry_after_seconds: int = 1, reason: str = "STORE_UNAVAILABLE"
) -> grpc.Status:
    """Returns an ``UNAVAILABLE`` status that advises when to retry."""
    retry = error_details_pb2.RetryInfo(
        retry_delay=duration_pb2.Duration(seconds=retry_after_seconds)
    )
    details = [_error_info(reason, {}), _pack(retry)]
    return _status(code_pb2.UNAVAILABLE, message, details)


def resource_exhausted(
    reason: str, message: str, metadata: Mapping[str, str] | None = None
) -> grpc.Status:
    """Returns a ``RESOURCE_EXHAUSTED`` status; ``metadata`` names the limit."""
    info = _error_info(reason, metadata or {})
    return _status(code_pb2.RESOURCE_EXHAUSTED, message, [info])


def rate_limited(
    message: str, retry_after_seconds: float, metadata: Mapping[str, str]
) -> grpc.Status:
    """Returns the ``RESOURCE_EXHAUSTED`` status of a call over its rate limit.

    ``RetryInfo`` says when a call will be accepted again, so a client backs
    off exactly as long as needed instead of guessing.
    """
    whole = int(retry_after_seconds)
    delay = duration_pb2.Duration(
        seconds=whole, nanos=round((retry_after_seconds - whole) * 1e9)
    )
    retry = error_details_pb2.RetryInfo(retry_delay=delay)
    details = [_error_info("RATE_LIMITED", metadata), _pack(retry)]
    return _status(code_pb2.RESOURCE_EXHAUSTED, message, details)


def undecodable(method: str, request_type: str) -> grpc.Status:
    """Returns the ``INVALID_ARGUMENT`` status of bytes that are no valid request.

    Nothing of the request can be read, so there is no field to name: the
    method and the type it expects say what the client got wrong.
    """
    message = (
        f"The request to {method} is not a valid {request_type} message, so it "
        "cannot be read: send a message serialized from this server's .proto "
        "files (package tabletop.v1)."
    )
    metadata = {"method": method, "requestType": request_type}
    info = _error_info("UNDECODABLE_REQUEST", metadata)
    return _status(code_pb2.INVALID_ARGUMENT, message, [info])


def internal() -> grpc.Status:
    """Returns the ``INTERNAL`` status for a bug; it reveals nothing internal."""
    message = "The server failed to handle the request; it has been logged."
    return _status(code_pb2.INTERNAL, message, [_error_info("INTERNAL", {})])


def _error_info(reason: str, metadata: Mapping[str, str]) -> any_pb2.Any:
    return _pack(
        error_details_pb2.ErrorInfo(
            reason=reason, domain=DOMAIN, metadata=dict(metadata)
        )
    )


def _pack(message: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def _status(code: int, message: str, details: list[any_pb2.Any]) -> grpc.Status:
    return rpc_status.to_status(
        status_pb2.Status(code=code, message=message, details=details)
    )
