"""The HTTP port: the API for browsers (Connect, gRPC-Web) and the web page.

``--http-listen`` serves, on one HTTP/1.1 port under uvicorn, on the gRPC
server's event loop:

- every RPC of ``tabletop.v1`` at its path (``POST /tabletop.v1.GameService/
  GetGame``) over the Connect protocol (binary or JSON) and gRPC-Web, through
  connect-python and services/api/bridge.py: the same handlers, guards, limits
  and errors as the gRPC port;
- the web page (infra/web, built into infra/web/dist by ``make web``) at ``/``,
  its assets under ``/assets/``, and the page again at every ``/games/...`` so
  a game's link can be shared.

Before connect-python reads a request: only ``POST`` reaches an RPC (a Connect
``GET`` would let a link or an image trigger a call), a body larger than the
gRPC port's ``MAX_REQUEST_BYTES`` is refused ``RESOURCE_EXHAUSTED``
(``REQUEST_TOO_LARGE``) as soon as its length shows it, and compression is
off: a small compressed body cannot swell into a large one. Other origins may
call the API only when listed (``--http-allowed-origin``; CORS). The server
trusts no ``X-Forwarded-For``: a client is the address that connected.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import socket
import time
from collections.abc import (
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    MutableMapping,
    Sequence,
)
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import uvicorn
from connectrpc.errors import ConnectError
from connectrpc.server import ConnectASGIApplication, Endpoint
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import PlainTextResponse
from starlette.staticfiles import StaticFiles

from infra.http_connections import Admission, GuardedProtocol, guarded_protocol
from infra.settings import listen_error
from services.api.bridge import connect_error
from services.api.errors import resource_exhausted

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

# Where `make web` builds the page.
WEB_ROOT = Path(__file__).resolve().parent / "web" / "dist"
# RPC paths: /<package>.<Service>/<Method>.
RPC_PREFIX = "/tabletop.v1."
# The page answers these paths too (the page routes on the path itself).
PAGE_PREFIXES = ("/games/",)
# Headers a browser may send and read across origins: Connect's and gRPC-Web's
# own, and the credential (as @connectrpc/cors lists them).
ALLOWED_HEADERS = (
    "authorization",
    "content-type",
    "connect-protocol-version",
    "connect-timeout-ms",
    "grpc-timeout",
    "x-grpc-web",
    "x-user-agent",
)
EXPOSED_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin")
# How long a browser may keep a preflight's answer.
PREFLIGHT_SECONDS = 7200
# The page's own headers: it loads only from this server and is framed by none.
PAGE_HEADERS = (
    (
        b"content-security-policy",
        (
            b"default-src 'self'; img-src 'self' data:; style-src 'self'; "
            b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        ),
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class _Api(ConnectASGIApplication[None]):
    """connect-python's application for our endpoints, all services at once."""

    @property
    def path(self) -> str:
        return RPC_PREFIX


def http_app(
    endpoints: Mapping[str, Endpoint[Any, Any]],
    max_request_bytes: int,
    allowed_origins: Sequence[str] = (),
    web_root: Path = WEB_ROOT,
) -> App:
    """Returns the ASGI application of the HTTP port."""
    api = _Api(
        service=None,
        # The endpoints are its unary and server-streaming kinds, which its
        # annotation names as a union of private classes.
        endpoints=lambda _service: cast("Any", endpoints),
        read_max_bytes=max_request_bytes,
        compressions=(),
    )
    page = _page(web_root)

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no websockets, and uvicorn runs no lifespan here
        path: str = scope["path"]
        if path.startswith(RPC_PREFIX):
            if scope["method"] != "POST":
                await _respond(send, 405, b"RPCs take POST", ((b"allow", b"POST"),))
                return
            refusal = _unreadable(scope.get("headers", ()))
            if refusal is not None:
                await _respond(send, *refusal, ())
                return
            await api(scope, _bounded(scope, receive, max_request_bytes), send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, b"", ((b"allow", b"GET, HEAD"),))
            return
        if path.startswith(PAGE_PREFIXES):
            scope = dict(scope, path="/")
        await page(scope, receive, _with_headers(send, PAGE_HEADERS))

    return CORSMiddleware(
        route,
        allow_origins=list(allowed_origins),
        allow_methods=["POST"],
        allow_headers=list(ALLOWED_HEADERS),
        expose_headers=list(EXPOSED_HEADERS),
        max_age=PREFLIGHT_SECONDS,
    )


# gRPC-Web's timeout: at most 8 digits and a unit (the gRPC specification).
_GRPC_TIMEOUT = re.compile(rb"[0-9]{1,8}[HMSmun]")


def _unreadable(headers: Iterable[tuple[bytes, bytes]]) -> tuple[int, bytes] | None:
    """Returns the status and text refusing headers connect-python cannot read.

    It would answer them ``500`` (``unknown``), quoting Python's complaint.
    """
    for name, value in headers:
        try:
            value.decode()
        except UnicodeDecodeError:
            return 400, b"A header value is not UTF-8 text."
        if (
            name == b"content-type"
            and value.startswith(b"application/grpc")
            and not (value.startswith(b"application/grpc-web"))
        ):
            return 415, b"gRPC over HTTP/2 is served on the gRPC port (--listen)."
        if name == b"grpc-timeout" and not _GRPC_TIMEOUT.fullmatch(value):
            return 400, b"grpc-timeout is at most 8 digits and a unit (H M S m u n)."
    return None


def _page(web_root: Path) -> App:
    """Returns the static page's application, or one saying how to build it."""
    if (web_root / "index.html").is_file():
        files = StaticFiles(directory=web_root, html=True)

        async def page(scope: Scope, receive: Receive, send: Send) -> None:
            try:
                await files(scope, receive, send)
            except HTTPException as missing:  # it raises for what it lacks
                await _respond(send, missing.status_code, b"", missing.headers or {})

        return page
    return PlainTextResponse(
        "The web page is not built: run `make web` (it needs Node.js and npm), "
        "then restart the server. The API is served here all the same.\n",
        status_code=404,
    )


def _bounded(scope: Scope, receive: Receive, most: int) -> Receive:
    """Returns ``receive``, refusing a body larger than ``most`` bytes.

    The refusal is raised as connect-python's error from inside its reading,
    so it answers in the client's protocol; what it read stays below ``most``
    plus one chunk.
    """
    declared = dict(scope.get("headers", ())).get(b"content-length", b"")
    # Five bytes of envelope frame a gRPC-Web or Connect streaming message.
    limit = most + 5
    seen = 0

    async def receive_bounded() -> Message:
        nonlocal seen
        if declared.isdigit() and int(declared) > limit:
            raise _too_large(most)
        message = await receive()
        seen += len(message.get("body", b""))
        if seen > limit:
            raise _too_large(most)
        return message

    return receive_bounded


def _too_large(most: int) -> ConnectError:
    status = resource_exhausted(
        "REQUEST_TOO_LARGE",
        f"The request is larger than the {most // 1024} KiB this server reads; "
        "no valid request comes near it.",
    )
    return connect_error(status.code, status.details, status.trailing_metadata)


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    headers: Iterable[tuple[bytes, bytes]] | Mapping[str, str],
) -> None:
    if isinstance(headers, Mapping):
        headers = [(k.encode(), v.encode()) for k, v in headers.items()]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _with_headers(send: Send, headers: Iterable[tuple[bytes, bytes]]) -> Send:
    extra = list(headers)

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = dict(message, headers=[*message.get("headers", ()), *extra])
        await send(message)

    return sending


def announce_http(host: str, port: int) -> None:
    """Prints where the HTTP port serves the web page and the API for browsers."""
    print(  # noqa: T201
        f"tabletop: http on http://{host}:{port}/ (the web page; the API over "
        "Connect and gRPC-Web)",
        flush=True,
    )


@dataclass(slots=True)
class HttpServer:
    """The HTTP port's uvicorn server, run as a task on the current event loop."""

    server: uvicorn.Server
    sock: socket.socket
    task: asyncio.Task[None]

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.sock.getsockname()[1])

    async def stop(self, grace_seconds: float) -> None:
        """Stops taking connections, lets responses under way end, closes.

        Responses still under way after ``grace_seconds`` are cut off.
        """
        self.server.should_exit = True
        await self.task
        for connection in list(self.server.server_state.connections):
            if isinstance(connection, GuardedProtocol):
                connection.close_if_arriving()
        try:
            async with asyncio.timeout(grace_seconds):
                await self.server.shutdown(sockets=[self.sock])
        except TimeoutError:
            self.server.force_exit = True
            await self.server.shutdown(sockets=[self.sock])


async def start_http(
    app: App,
    listen: str,
    *,
    reuse_port: bool,
    idle_seconds: float,
    max_connections: int,
    max_connections_per_address: int,
) -> HttpServer:
    """Starts serving ``app`` on ``listen`` (``host:port``; port 0 picks one).

    A connection closes after ``idle_seconds`` without a request, or when a
    request takes longer than that to arrive; one address holds at most
    ``max_connections_per_address`` (0: no cap), and all at most
    ``max_connections`` (``503`` beyond either). An address that does not bind
    is refused with ``SettingsError``, in one line.
    """
    try:
        sock = _bound(listen, reuse_port=reuse_port)
    except OSError as error:
        raise listen_error(listen, "--http-listen", error) from None
    config = uvicorn.Config(
        app,
        lifespan="off",
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        http=guarded_protocol(Admission(max_connections_per_address, idle_seconds)),
        ws="none",
        timeout_keep_alive=max(1, round(idle_seconds)),
        limit_concurrency=max_connections,
    )
    config.load()
    _throttle_uvicorn_log()
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)
    await server.startup(sockets=[sock])
    task = asyncio.create_task(server.main_loop(), name="tabletop-http")
    return HttpServer(server, sock, task)


class _Throttle(logging.Filter):
    """Passes at most one record a second; the next says how many it dropped.

    uvicorn logs a line for each malformed request or refused upgrade, which
    any client may send as fast as it connects.
    """

    def __init__(self, interval: float = 1.0) -> None:
        super().__init__()
        self._interval = interval
        self._last = -math.inf
        self._dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        if now - self._last < self._interval:
            self._dropped += 1
            return False
        if self._dropped:
            record.msg = f"{record.msg} ({self._dropped} more like this dropped)"
            self._dropped = 0
        self._last = now
        return True


def _throttle_uvicorn_log() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _Throttle) for f in logger.filters):
        logger.addFilter(_Throttle())


def _bound(listen: str, *, reuse_port: bool) -> socket.socket:
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, int(port)))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock
