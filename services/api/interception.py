"""Wraps a method's handler so that a guard runs around every call of it.

The server's interceptors (the observers, the gate, the rate limiter) each
enter a guard around a call: it may refuse the call before the handler runs,
keep count of the calls under way, or watch how each call ends; this is the
one place that knows how unary and streaming handlers are rebuilt for that.

It is also where a request that is no valid message of its method's type is
caught. gRPC decodes the request before the handler runs and, when that
fails, answers ``UNKNOWN`` and logs a traceback for each: any client could fill
the log. Decoded here instead, such a request becomes ``Undecodable``: every
guard runs as for any call (the observers see it, the rate limiter charges
it) and is shown an empty request of the method's type in its place, so no
guard needs to know of it; then the call is refused ``INVALID_ARGUMENT``
(``UNDECODABLE_REQUEST``) and logged through a throttle, at most one line a
second in all.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import functools
import logging
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, TypeAlias

import grpc
from google.protobuf.message import DecodeError

from services.api.errors import undecodable

log = logging.getLogger(__name__)

# Given the call's context and its request; may abort the call before the
# handler runs, and sees whatever ends it (an abort raises out of the handler).
Guard: TypeAlias = Callable[[Any, Any], AbstractAsyncContextManager[None]]
Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
# The services whose calls are guarded: ours. Health checks and reflection are
# not, so a load balancer always learns how the server is.
GUARDED_SERVICES = ("/tabletop.v1.",)
# Undecodable requests are logged at most once per this many seconds in all.
UNDECODABLE_LOG_SECONDS = 1.0


class GuardingInterceptor(grpc.aio.ServerInterceptor):
    """Enters ``guard_for``'s guard around every call of our services.

    Alone it is an interceptor; several are best served together by one
    ``Guards``, which enters all their guards in one step.
    """

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        """Returns the method's handler, wrapped in the guard."""
        return await Guards((self,)).intercept_service(
            continuation, handler_call_details
        )

    @abc.abstractmethod
    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the guard of a call of ``method`` (``/package.Service/Name``)."""


class Guards(grpc.aio.ServerInterceptor):
    """One interceptor entering several guards, outermost first, around each call.

    Every interceptor costs each call a hop through gRPC's interceptor chain
    and a rebuilt handler; one that enters every guard, and rebuilds each
    method's handler once, keeps that cost to one.
    """

    def __init__(self, guarding: Sequence[GuardingInterceptor]) -> None:
        self._guarding = tuple(guarding)
        # method -> (the handler gRPC gave, the guarded one built from it)
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        """Returns the method's handler, wrapped in every guard."""
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or not method.startswith(GUARDED_SERVICES):
            return handler
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        guards = [guarding.guard_for(method, handler) for guarding in self._guarding]
        wrapped = guarded(handler, _all(guards), method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped


def _all(guards: Sequence[Guard]) -> Guard:
    """Returns one guard entering ``guards`` in order (the first outermost)."""
    if len(guards) == 1:
        return guards[0]

    @contextlib.asynccontextmanager
    async def every(context: Any, request: Any) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as entered:
            for guard in guards:
                await entered.enter_async_context(guard(context, request))
            yield

    return every


def guarded(
    handler: grpc.RpcMethodHandler[Any, Any], guard: Guard, method: str
) -> grpc.RpcMethodHandler[Any, Any]:
    """Returns ``handler`` with ``guard`` entered around each of its calls.

    A request that does not decode is refused once every guard is entered.
    """
    deserializer = handler.request_deserializer
    refuse = functools.partial(
        _refuse, method.removeprefix("/"), _type_of(deserializer)
    )
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            _unary(handler.unary_unary, guard, refuse),
            request_deserializer=_tolerant(deserializer),
            response_serializer=handler.response_serializer,
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            _stream(handler.unary_stream, guard, refuse),
            request_deserializer=_tolerant(deserializer),
            response_serializer=handler.response_serializer,
        )
    return handler  # no client-streaming methods are served


@dataclass(frozen=True, slots=True)
class Undecodable:
    """Stands for a request whose bytes are no valid message of its type."""

    problem: str  # the parser's complaint; it quotes none of the bytes
    stand_in: Any = None  # an empty request of the type, what the guards see


Refusal: TypeAlias = Callable[[Undecodable, Any], Awaitable[None]]


def _tolerant(deserializer: Any) -> Any:
    """Returns ``deserializer`` giving ``Undecodable`` where it would raise."""
    if deserializer is None:
        return None
    # A generated FromString is bound to its message class.
    message_type = getattr(deserializer, "__self__", None)

    def deserialize(data: bytes) -> Any:
        try:
            return deserializer(data)
        except DecodeError as error:  # what protobuf raises for any bad input
            stand_in = message_type() if callable(message_type) else None
            return Undecodable(str(error), stand_in)

    return deserialize


def _type_of(deserializer: Any) -> str:
    """Returns the message type a generated ``FromString`` decodes."""
    descriptor = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    return str(getattr(descriptor, "full_name", "protocol buffer"))


async def _refuse(
    method: str, request_type: str, request: Undecodable, context: Any
) -> None:
    UNDECODABLE.event(
        f"undecodable request to {method} from {context.peer()} refused "
        f"(INVALID_ARGUMENT): {request.problem}"
    )
    await context.abort_with_status(undecodable(method, request_type))


def _seen(request: Any) -> Any:
    """Returns what the guards are shown of a request."""
    if isinstance(request, Undecodable) and request.stand_in is not None:
        return request.stand_in
    return request


def _unary(behavior: Any, guard: Guard, refuse: Refusal) -> Any:
    async def call(request: Any, context: Any) -> Any:
        async with guard(context, _seen(request)):
            if isinstance(request, Undecodable):
                await refuse(request, context)
            return await behavior(request, context)

    return call


def _stream(behavior: Any, guard: Guard, refuse: Refusal) -> Any:
    async def call(request: Any, context: Any) -> AsyncIterator[Any]:
        async with guard(context, _seen(request)):
            if isinstance(request, Undecodable):
                await refuse(request, context)
            # aclosing: a cancelled stream closes the handler's generator now,
            # so its cleanup (leaving the game's feed) does not wait for GC.
            async with contextlib.aclosing(behavior(request, context)) as items:
                async for item in items:
                    yield item

    return call


class ThrottledLog:
    """Logs a kind of event at most once per ``interval`` seconds, however many.

    The first event is logged at once; those that follow within the interval
    are counted, and when it ends (a timer on the event loop) one line gives
    their number and the latest of them. So a flood costs one line a second
    and still shows how big it was.
    """

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = UNDECODABLE_LOG_SECONDS,
        *,
        clock: Callable[[], float] = time.monotonic,
        later: Callable[[float, Callable[[], None]], object] | None = None,
    ) -> None:
        self._logger = logger
        self._interval = interval
        self._clock = clock
        self._later = later or _call_later
        self._last_line = -math.inf
        self._pending = 0  # events since the last line, not logged yet
        self._latest = ""
        self._scheduled = False

    def event(self, line: str) -> None:
        """Logs ``line`` now, or counts it until the interval ends."""
        now = self._clock()
        if not self._pending and now - self._last_line >= self._interval:
            self._logger.warning("%s", line)
            self._last_line = now
            return
        self._pending += 1
        self._latest = line
        if not self._scheduled:
            self._scheduled = True
            wait = max(0.0, self._last_line + self._interval - now)
            self._later(wait, self.flush)

    def flush(self) -> None:
        """Logs how many events came since the last line, and the latest one."""
        self._scheduled = False
        if not self._pending:
            return
        now = self._clock()
        self._logger.warning(
            "%d more like this in the last %.1f s, the latest: %s",
            self._pending,
            now - self._last_line,
            self._latest,
        )
        self._pending = 0
        self._last_line = now


def _call_later(delay: float, callback: Callable[[], None]) -> object:
    return asyncio.get_running_loop().call_later(delay, callback)


# One throttle for the whole process: "a few lines a second" holds in total,
# not per server or per method.
UNDECODABLE = ThrottledLog(log)
