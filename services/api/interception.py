"""Wraps a method's handler so that a guard runs around every call of it.

The server's interceptors (the observers, the gate, the rate limiter) each
enter a guard around a call: it may refuse the call before the handler runs,
keep count of the calls under way, or watch how each call ends; this is the
one place that knows how unary and streaming handlers are rebuilt for that.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
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
    """Enters ``guard_for``'s guard around every call of our services."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        """Returns the method's handler, wrapped in the guard."""
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or not method.startswith(GUARDED_SERVICES):
            return handler
        return guarded(handler, self.guard_for(method, handler))

    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the guard of a call of ``method`` (``/package.Service/Name``)."""
        raise NotImplementedError


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
