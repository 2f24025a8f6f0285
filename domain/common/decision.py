"""Outcomes of a rules policy: ``Accepted`` events or one ``Rejected`` reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeAlias, TypeVar

E_co = TypeVar("E_co", covariant=True)


class RejectionKind(StrEnum):
    """How a refusal maps onto the API's status codes."""

    MALFORMED = "MALFORMED"  # wrong in any state -> INVALID_ARGUMENT
    NOT_ALLOWED_NOW = "NOT_ALLOWED_NOW"  # the rules say no, now -> FAILED_PRECONDITION
    NOT_A_PARTICIPANT = "NOT_A_PARTICIPANT"  # -> PERMISSION_DENIED
    STALE = "STALE"  # expected_revision moved on -> ABORTED
    NOT_FOUND = "NOT_FOUND"  # no such game or revision -> NOT_FOUND
    UNAUTHENTICATED = "UNAUTHENTICATED"  # no or unknown credentials -> UNAUTHENTICATED
    UNAVAILABLE = "UNAVAILABLE"  # something the server needs is away -> UNAVAILABLE


@dataclass(frozen=True, slots=True)
class Rejected:
    """A command the rules refuse. Never raised: returned."""

    reason: str  # UPPER_SNAKE_CASE, stable -> ErrorInfo.reason
    message: str  # one English sentence for developers -> Status.message
    rule: str  # "<game>/<rule>" -> PreconditionFailure.Violation.subject
    kind: RejectionKind = RejectionKind.NOT_ALLOWED_NOW
    metadata: Mapping[str, str] = field(default_factory=dict)  # lowerCamel keys


@dataclass(frozen=True, slots=True)
class Accepted(Generic[E_co]):
    """A command the rules accept, with the events it produces, in order."""

    events: tuple[E_co, ...]


E = TypeVar("E")
Decision: TypeAlias = Accepted[E] | Rejected


def reject(
    reason: str,
    message: str,
    rule: str,
    kind: RejectionKind = RejectionKind.NOT_ALLOWED_NOW,
    **metadata: object,
) -> Rejected:
    """Returns a ``Rejected``; metadata values are turned into strings."""
    return Rejected(
        reason=reason,
        message=message,
        rule=rule,
        kind=kind,
        metadata={key: str(value) for key, value in metadata.items()},
    )


def malformed(reason: str, message: str, rule: str, **metadata: object) -> Rejected:
    """Returns a ``Rejected`` for a command that is wrong whatever the state."""
    return reject(reason, message, rule, RejectionKind.MALFORMED, **metadata)
