"""Wraps a method's handler so that a guard runs around every call of it.

The server's interceptors (the observers, the gate, the rate limiter) each
enter a guard around a call: it may refuse the call before the handler runs,
keep count of the calls under way, or watch how each call ends; this is the
one place that knows how unary and streaming handlers are rebuilt for that.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeAlias

import grpc

# Given the call's context and its request; may abort the call before the
# handler runs, and sees whatever ends it (an abort raises out of the handler).
Guard: TypeAlias = Callable[[Any, Any], AbstractAsyncContextManager[None]]
Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
# The services whose calls are guarded: ours. Health checks and reflection are
# not, so a load balancer always learns how the server is.
GUARDED_SERVICES = ("/tabletop.v1.",)


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
        wrapped = guarded(handler, _all(guards))
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
    handler: grpc.RpcMethodHandler[Any, Any], guard: Guard
) -> grpc.RpcMethodHandler[Any, Any]:
    """Returns ``handler`` with ``guard`` entered around each of its calls."""
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            _unary(handler.unary_unary, guard),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            _stream(handler.unary_stream, guard),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    return handler  # no client-streaming methods are served


def _unary(behavior: Any, guard: Guard) -> Any:
    async def call(request: Any, context: Any) -> Any:
        async with guard(context, request):
            return await behavior(request, context)

    return call


def _stream(behavior: Any, guard: Guard) -> Any:
    async def call(request: Any, context: Any) -> AsyncIterator[Any]:
        # aclosing: a cancelled stream closes the handler's generator now, so
        # its cleanup (leaving the game's feed) does not wait for GC.
        async with (
            guard(context, request),
            contextlib.aclosing(behavior(request, context)) as items,
        ):
            async for item in items:
                yield item

    return call
