"""The gRPC services' methods as Connect endpoints, for browsers and web clients.

The HTTP port (infra/http_api.py) speaks the Connect protocol and gRPC-Web
through connect-python, which reads each request and writes each answer in the
client's protocol. What runs in between is the gRPC server's own: the handler
``add_*Servicer_to_server`` registers for the method, wrapped in the very
``Guards`` the gRPC server runs (observers, the gate, rate limits, shapes, what
one client holds open), given a context that answers them as gRPC's does
(``HttpCall``). So a call costs, is limited, is refused and is answered the
same whichever port it came through; a refusal's ``google.rpc.Status`` becomes
a Connect error with the same code, message and details (the ``ErrorInfo``).

A request whose bytes (or JSON) are no valid message reaches the guards as
``Undecodable``, as on the gRPC port (``Received``), and is refused
``INVALID_ARGUMENT`` (``UNDECODABLE_REQUEST``) once they ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from base64 import b64decode
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
)
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import grpc
from connectrpc import _codec
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import Endpoint
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import status_pb2

from services.api.errors import internal
from services.api.interception import Guards, Handler, Undecodable

log = logging.getLogger(__name__)

# Where gRPC keeps a rich status in the trailing metadata.
_DETAILS_KEY = "grpc-status-details-bin"
# Request headers that are the HTTP or RPC protocol's own, not the caller's
# metadata: gRPC's servicers never see them either.
_PROTOCOL_HEADERS = frozenset(
    (
        "host",
        "connection",
        "content-length",
        "content-type",
        "content-encoding",
        "accept-encoding",
        "te",
        "connect-protocol-version",
        "connect-timeout-ms",
        "connect-content-encoding",
        "connect-accept-encoding",
        "grpc-timeout",
        "grpc-encoding",
        "grpc-accept-encoding",
        "x-grpc-web",
    )
)


class HandlerRegistry:
    """Stands in for a gRPC server to ``add_*Servicer_to_server``: keeps the handlers.

    The generated functions register each service's method handlers by name;
    ``handlers`` then gives each by its path (``/tabletop.v1.GameService/GetGame``).
    """

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}

    def add_generic_rpc_handlers(self, _handlers: Iterable[object]) -> None:
        """Ignored: the same handlers come by name through the next method."""

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, Handler]
    ) -> None:
        """Keeps ``service``'s handlers by path."""
        for name, handler in handlers.items():
            self.handlers[f"/{service}/{name}"] = handler


@dataclass(frozen=True, slots=True)
class _CallDetails:
    """What ``grpc.HandlerCallDetails`` tells an interceptor of a call."""

    method: str
    invocation_metadata: tuple[tuple[str, str | bytes], ...]


class HttpCall:
    """A Connect or gRPC-Web call, as the servicers and guards know a gRPC call.

    It gives them what they ask of ``grpc.aio.ServicerContext``: the caller's
    metadata and address, and aborting with a status, which it keeps for the
    answer (``error``) and for the guards that look at how a call ended.

    Its connection was counted for its address when it opened and is
    forgotten when it closes (infra/http_connections.py), so the gRPC port's
    connection count (services/api/connections.py) leaves it out.
    """

    connection_counted = True

    def __init__(
        self, peer: str, metadata: tuple[tuple[str, str | bytes], ...]
    ) -> None:
        self._peer = peer
        self._metadata = metadata
        self._code: grpc.StatusCode | None = None
        self._details = ""
        self._trailing: tuple[tuple[str, str | bytes], ...] = ()

    def peer(self) -> str:
        """The caller's address in gRPC's form (``ipv4:203.0.113.7:51234``)."""
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        """The caller's headers, but the protocol's own; ``-bin`` ones decoded."""
        return self._metadata

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        """Ends the call with ``status``, as gRPC's ``abort_with_status`` does."""
        await self.abort(status.code, status.details, status.trailing_metadata)

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: tuple[tuple[str, str | bytes], ...] = (),
    ) -> NoReturn:
        """Ends the call with ``code``, ``details`` and a status in the metadata."""
        self._code, self._details = code, details
        self._trailing = tuple(trailing_metadata)
        raise grpc.aio.AbortError

    def set_code(self, code: grpc.StatusCode) -> None:
        """Sets the code the call ends with."""
        self._code = code

    def set_details(self, details: str) -> None:
        """Sets the message the call ends with."""
        self._details = details

    def code(self) -> grpc.StatusCode | None:
        """The code set so far, or ``None``."""
        return self._code

    def details(self) -> str:
        """The message set so far."""
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        """The trailing metadata set so far (a rich status among it)."""
        return self._trailing

    def error(self) -> ConnectError:
        """The Connect error carrying the status the call was aborted with."""
        return connect_error(
            self._code or grpc.StatusCode.UNKNOWN, self._details, self._trailing
        )


def connect_error(
    code: grpc.StatusCode,
    message: str,
    trailing_metadata: Iterable[tuple[str, str | bytes]],
) -> ConnectError:
    """Returns the Connect error of a gRPC status, with its status's details."""
    details: list[Any] = []
    for key, value in trailing_metadata:
        if key == _DETAILS_KEY and isinstance(value, bytes):
            details = list(status_pb2.Status.FromString(value).details)
    return ConnectError(_CODES[code], message, details)


_CODES: Mapping[grpc.StatusCode, Code] = {
    grpc.StatusCode.CANCELLED: Code.CANCELED,
    **{
        status: Code[status.name]
        for status in grpc.StatusCode
        if status.name in Code.__members__
    },
}


def peer_of(client_address: str | None) -> str:
    """Returns an HTTP client's ``host:port`` as gRPC names a peer."""
    if not client_address:
        return "unknown"
    host, _, port = client_address.rpartition(":")
    try:
        parsed = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return f"unix:{client_address}"
    if isinstance(parsed, ipaddress.IPv6Address):
        return f"ipv6:[{parsed}]:{port}"
    return f"ipv4:{parsed}:{port}"


def metadata_of(
    headers: Iterable[tuple[str, str]],
) -> tuple[tuple[str, str | bytes], ...]:
    """Returns the call's metadata from its request headers, as gRPC gives it."""
    metadata: list[tuple[str, str | bytes]] = []
    for key, value in headers:
        name = key.lower()
        if name in _PROTOCOL_HEADERS or name.startswith(":"):
            continue
        if name.endswith("-bin"):
            try:
                padded = value + "=" * (-len(value) % 4)  # it may come unpadded
                metadata.append((name, b64decode(padded, validate=True)))
            except ValueError:
                continue  # gRPC drops a binary header it cannot decode, too
        else:
            metadata.append((name, value))
    return tuple(metadata)


class Bridge:
    """Runs calls of Connect endpoints through the gRPC handlers and ``guards``."""

    def __init__(self, handlers: Mapping[str, Handler], guards: Guards) -> None:
        self._handlers = dict(handlers)
        self._guards = guards

    def endpoints(
        self, services: Iterable[ServiceDescriptor]
    ) -> dict[str, Endpoint[Any, Any]]:
        """Returns an endpoint per method of ``services``, by path."""
        endpoints: dict[str, Endpoint[Any, Any]] = {}
        for service in services:
            for method in service.methods:
                path = f"/{service.full_name}/{method.name}"
                if path not in self._handlers:
                    continue
                request_type = message_factory.GetMessageClass(method.input_type)
                info = MethodInfo(
                    name=method.name,
                    service_name=service.full_name,
                    input=Received,
                    output=message_factory.GetMessageClass(method.output_type),
                    idempotency_level=IdempotencyLevel.UNKNOWN,
                )
                if method.server_streaming:
                    endpoints[path] = Endpoint.server_stream(
                        method=info, function=self._streaming(path, request_type)
                    )
                else:
                    endpoints[path] = Endpoint.unary(
                        method=info, function=self._unary(path, request_type)
                    )
        return endpoints

    async def _start(
        self, path: str, ctx: RequestContext[Any, Any]
    ) -> tuple[Handler, HttpCall]:
        call = HttpCall(
            peer_of(ctx.client_address()),
            metadata_of(ctx.request_headers().allitems()),
        )
        handler = await self._guards.intercept_service(
            _found(self._handlers[path]),
            cast(
                "grpc.HandlerCallDetails",
                _CallDetails(path, call.invocation_metadata()),
            ),
        )
        assert handler is not None  # noqa: S101 (the path was found above)
        return handler, call

    def _unary(
        self, path: str, request_type: type[Message]
    ) -> Callable[[Received, RequestContext[Any, Any]], Awaitable[Any]]:
        async def call(received: Received, ctx: RequestContext[Any, Any]) -> Any:
            request = decoded(received, request_type)
            handler, context = await self._start(path, ctx)
            behavior = cast("_Unary | None", handler.unary_unary)
            assert behavior is not None  # noqa: S101 (endpoints() chose unary)
            with _answered(context, path):
                async with _deadline(ctx):
                    return await behavior(request, context)

        return call

    def _streaming(
        self, path: str, request_type: type[Message]
    ) -> Callable[[Received, RequestContext[Any, Any]], AsyncIterator[Any]]:
        async def call(
            received: Received, ctx: RequestContext[Any, Any]
        ) -> AsyncIterator[Any]:
            request = decoded(received, request_type)
            handler, context = await self._start(path, ctx)
            behavior = cast("_Streaming | None", handler.unary_stream)
            assert behavior is not None  # noqa: S101 (endpoints() chose streaming)
            with _answered(context, path):
                async with (
                    _deadline(ctx),
                    contextlib.aclosing(behavior(request, context)) as items,
                ):
                    async for item in items:
                        yield item

        return call


# The server's handlers are coroutines and async generators (grpc.aio).
_Unary = Callable[[Any, HttpCall], Awaitable[Any]]
_Streaming = Callable[[Any, HttpCall], AsyncGenerator[Any, None]]


def _found(handler: Handler) -> Callable[[Any], Awaitable[Handler]]:
    async def continuation(_details: Any) -> Handler:
        return handler

    return continuation


@contextlib.contextmanager
def _answered(context: HttpCall, path: str) -> Any:
    """Turns how a call ended into the Connect error its client is answered."""
    try:
        yield
    except grpc.aio.AbortError:
        raise context.error() from None
    except TimeoutError:
        raise ConnectError(
            Code.DEADLINE_EXCEEDED, "The call's deadline passed before it ended."
        ) from None
    except (ConnectError, asyncio.CancelledError, GeneratorExit):
        raise
    except Exception:
        log.exception("%s failed", path)
        status = internal()
        raise connect_error(
            status.code, status.details, status.trailing_metadata
        ) from None


@contextlib.asynccontextmanager
async def _deadline(ctx: RequestContext[Any, Any]) -> AsyncIterator[None]:
    """Ends the call when the client's deadline (``connect-timeout-ms``) passes."""
    remaining = ctx.timeout_ms()
    if remaining is None:
        yield
        return
    async with asyncio.timeout(max(0.0, remaining) / 1000):
        yield


class Received:
    """A request's body as connect-python read it, for the endpoint to decode.

    connect-python decodes a request with the codec its content type names,
    into an instance of the method's input type, and does not always look at
    what the codec returns (a streaming request's frames). So the endpoints
    declare this as their input, the codecs (``deferred_codecs``) only keep the
    bytes in it, and ``decoded`` turns them into the request or ``Undecodable``.
    """

    __slots__ = ("data", "json")

    def __init__(self) -> None:
        self.data = b""
        self.json = False


def decoded(received: Received, message_type: type[Message]) -> Any:
    """Returns the request ``received`` holds, or ``Undecodable``."""
    if received.json:
        message = message_type()
        try:
            return json_format.Parse(received.data, message)
        except (json_format.ParseError, ValueError, TypeError, RecursionError):
            # The parser's complaint may quote the request: logged, it must not.
            problem = f"not valid JSON for {message.DESCRIPTOR.full_name}"
            return Undecodable(problem, message_type())
    try:
        return message_type.FromString(received.data)
    except DecodeError as error:  # it quotes none of the bytes
        return Undecodable(str(error), message_type())


class _DeferredProto(_codec.ProtoBinaryCodec[Any]):
    """The binary codec, keeping a request's bytes in ``Received``."""

    def decode(self, data: bytes | bytearray, message: Any) -> Any:
        if isinstance(message, Received):
            message.data, message.json = bytes(data), False
            return message
        return super().decode(data, message)


class _DeferredJson(_codec.ProtoJSONCodec[Any]):
    """The JSON codec, keeping a request's text in ``Received``."""

    def decode(self, data: bytes | bytearray, message: Any) -> Any:
        if isinstance(message, Received):
            message.data, message.json = bytes(data), True
            return message
        return super().decode(data, message)


def deferred_codecs() -> None:
    """Makes connect-python's codecs leave ``Received`` requests to ``decoded``.

    connect-python looks its codecs up by name in one table; this replaces the
    binary and JSON ones in it with codecs that decode as before any message
    but ``Received``. Its version is pinned in pyproject.toml, and
    tests/e2e/test_http_api.py checks undecodable requests in every protocol.
    """
    codecs = _codec._codecs  # noqa: SLF001
    json_codec = _DeferredJson()
    codecs[_codec.CODEC_NAME_PROTO] = _DeferredProto()
    codecs[_codec.CODEC_NAME_JSON] = json_codec
    codecs[_codec.CODEC_NAME_JSON_CHARSET_UTF8] = json_codec
