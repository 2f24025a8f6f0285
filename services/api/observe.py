"""Hands every call of the game services to observers: metrics, log context, traces.

``Observation`` is the server's outermost interceptor, so it sees each call as
its client does: the gate's and the rate limiter's refusals, the handlers'
refusals and failures, cancellations. For each call it makes a ``Call`` and
enters every observer around the call; once the call has ended, ``Call.code``
and ``Call.reason`` (the ``ErrorInfo`` reason every refusal carries, see
services/api/errors.py) are set before the observers exit. The observers are
infra's (infra/metrics.py, infra/logs.py, infra/tracing.py): services know
neither Prometheus nor OpenTelemetry.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeAlias

import grpc
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from services.api.interception import Guard, GuardingInterceptor, Handler
from services.api.requests import MAX_REQUEST_ID
from services.request_ids import request_key

_GAME = re.compile(r"games/([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})(?:/|$)")
_CODES = {code.value[0]: code for code in grpc.StatusCode}
_DETAILS_KEY = "grpc-status-details-bin"


@dataclass(slots=True)
class Call:
    """One call being handled, and once it ended, how.

    ``request`` and ``metadata`` may hold secrets (a seed, a bearer token):
    observers read named fields of them and never log them whole.
    """

    service: str  # tabletop.v1.GameService
    method: str  # SubmitMove
    streaming: bool
    request: Any
    metadata: Sequence[tuple[str, str | bytes]]
    game_id: str = ""  # from the request's games/{game} name, when it has one
    # The key of the client's request_id (services/request_ids.py), when it sent
    # one: never the id itself, which is a secret of the client.
    request_key: str = ""
    code: grpc.StatusCode = grpc.StatusCode.OK
    reason: str = ""  # the ErrorInfo reason of a refusal

    @property
    def full_method(self) -> str:
        """Returns the method as gRPC names it, without the leading slash."""
        return f"{self.service}/{self.method}"


# Entered around a call; reads ``Call.code`` and ``Call.reason`` on its way out.
Observer: TypeAlias = Callable[[Call], AbstractContextManager[None]]


class Observation(GuardingInterceptor):
    """Enters the observers around every call of the game services."""

    def __init__(self, observers: Sequence[Observer]) -> None:
        self._observers = tuple(observers)

    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the observers of a call of ``method``."""
        service, _, name = method.removeprefix("/").partition("/")
        streaming = handler.unary_stream is not None
        return functools.partial(self._observed, service, name, streaming=streaming)

    @contextlib.asynccontextmanager
    async def _observed(
        self,
        service: str,
        method: str,
        context: Any,
        request: Any,
        *,
        streaming: bool,
    ) -> AsyncIterator[None]:
        call = Call(
            service,
            method,
            streaming,
            request,
            context.invocation_metadata() or (),
            game_id=game_id_of(request),
            request_key=request_key_of(request),
        )
        with contextlib.ExitStack() as observing:
            for observer in self._observers:
                observing.enter_context(observer(call))
            try:
                yield
            except BaseException as error:
                call.code, call.reason = ending(context, error)
                raise
            call.code, call.reason = ending(context, None)


def ending(context: Any, error: BaseException | None) -> tuple[grpc.StatusCode, str]:
    """Returns the status code a call ended with, and its ErrorInfo reason."""
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        return grpc.StatusCode.CANCELLED, ""
    code = status_code(context.code()) if hasattr(context, "code") else None
    if error is not None and code is None:
        return grpc.StatusCode.UNKNOWN, ""  # what gRPC answers for an exception
    if code is None or code is grpc.StatusCode.OK:
        return grpc.StatusCode.OK, ""
    return code, reason_of(context.trailing_metadata() or ())


def status_code(value: object) -> grpc.StatusCode | None:
    """Returns a context's code (an enum member, or its number) as the enum."""
    if isinstance(value, grpc.StatusCode):
        return value
    return _CODES.get(value) if isinstance(value, int) else None


def reason_of(trailing_metadata: Sequence[tuple[str, str | bytes]]) -> str:
    """Returns the ErrorInfo reason in a status's details, or ``""``."""
    for key, value in trailing_metadata:
        if key != _DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = status_pb2.Status.FromString(value)
        except DecodeError:
            return ""
        info = error_details_pb2.ErrorInfo()
        for detail in status.details:
            if detail.Unpack(info):
                return info.reason
    return ""


def game_id_of(request: Any) -> str:
    """Returns the game id a request names (``name`` or ``parent``), or ``""``."""
    for field in ("name", "parent"):
        value = getattr(request, field, None)
        if isinstance(value, str) and (found := _GAME.match(value)):
            return found.group(1)
    return ""


def request_key_of(request: Any) -> str:
    """Returns the key of the request's ``request_id`` if the server would accept
    the id, or ``""``."""
    value = getattr(request, "request_id", None)
    if isinstance(value, str) and len(value) <= MAX_REQUEST_ID and value.isprintable():
        return request_key(value)
    return ""
