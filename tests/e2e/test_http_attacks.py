"""The HTTP port as an attacker tries it: what a request costs, buys and shows.

tests/e2e/test_http_api.py checks the HTTP port's rules one by one; these try
to get around them: methods other than ``POST`` and other sites' forms, odd
CORS origins, a seat token anywhere but the ``Authorization`` header, made-up
tokens on fresh connections and pipelined requests against the rate limit,
bodies that lie about their length, compression in every protocol, absurd
deadlines, streams their clients walk away from, ``Range`` requests and paths
out of the page, an IPv4 client on a dual-stack port, hostile requests against
the log, and a graceful stop with connections in every state.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import re
import secrets
import signal
import socket
import struct
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import quote, urlsplit

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import create_qwirkle, error_of, start_two_seats
from tests.e2e.conftest import Server, start_server
from tests.e2e.http_client import (
    Answer,
    connect_error,
    connect_stream,
    connect_unary,
    frame,
    frames,
    post,
)
from tests.pg import fresh_schema

SERVICE = "/tabletop.v1.GameService"
FRIEND = "https://friends.example"
STRANGER = "https://stranger.example"
PROTO = ("content-type", "application/proto")
GRPC_WEB = ("content-type", "application/grpc-web+proto")
CONNECT_STREAM = ("content-type", "application/connect+proto")
_TRAILERS = 0x80  # a gRPC-Web trailer frame
_END_STREAM = 0x02  # a Connect stream's last frame


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    """A server with its HTTP port, one other origin allowed, and no rate limits.

    Its tests refuse or spend nothing a limit would count, so they share it.
    """
    with fresh_schema() as url:
        server = start_server(
            url,
            dev=True,
            http=True,
            options=[
                *("--http-allowed-origin", FRIEND),
                *("--rate-limit", "0"),
                *("--max-connections-per-address", "0"),
            ],
        )
        yield server
        assert server.stop() == 0


@pytest.fixture(scope="module")
def one_stream() -> Iterator[Server]:
    """A server allowing one open stream per address, with heartbeats every 0.2 s."""
    with fresh_schema() as url:
        server = start_server(
            url,
            dev=True,
            http=True,
            heartbeat_seconds=0.2,
            options=["--max-streams-per-address", "1"],
        )
        yield server
        assert server.stop() == 0


def _url(server: Server) -> str:
    assert server.http_url is not None
    return server.http_url


def _games(server: Server) -> int:
    """How many games the server lists (the tests here make a few at most)."""
    listed = server.stub.ListGames(api.ListGamesRequest(page_size=200), timeout=10)
    return len(listed.games)


def _create(name: str = "Mallory") -> api.CreateGameRequest:
    return api.CreateGameRequest(
        game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE), display_name=name
    )


# --- raw HTTP/1.1, for what a client library would not send -------------------


@dataclass
class _Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def _connect(
    url: str, family: int = socket.AF_INET, timeout: float = 10
) -> socket.socket:
    parts = urlsplit(url)
    host = "::1" if family == socket.AF_INET6 else "127.0.0.1"
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect((host, parts.port or 80))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _request(
    method: str,
    path: str,
    headers: Sequence[tuple[str, str]] = (),
    body: bytes = b"",
    *,
    length: bool = True,
) -> bytes:
    """One HTTP/1.1 request, byte for byte (``Content-Length`` unless told not)."""
    lines = [f"{method} {path} HTTP/1.1", "host: tabletop.test"]
    lines += [f"{key}: {value}" for key, value in headers]
    if length:
        lines.append(f"content-length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _read_answer(stream: BinaryIO, *, head: bool = False) -> _Answer:
    """Reads one answer off a connection (chunked, sized, or up to the close)."""
    status_line = stream.readline()
    assert status_line.startswith(b"HTTP/1.1 "), status_line
    headers: dict[str, str] = {}
    while (line := stream.readline()) not in (b"\r\n", b""):
        key, _, value = line.decode("latin-1").partition(":")
        headers[key.strip().lower()] = value.strip()
    status = int(status_line.split()[1])
    if head or status in (100, 204, 304):
        return _Answer(status, headers, b"")
    if headers.get("transfer-encoding") == "chunked":
        body = b""
        while size := int(stream.readline().split(b";")[0], 16):
            body += stream.read(size)
            stream.readline()
        stream.readline()
        return _Answer(status, headers, body)
    if "content-length" in headers:
        return _Answer(status, headers, stream.read(int(headers["content-length"])))
    return _Answer(status, headers, stream.read())


def _exchange(
    url: str,
    data: bytes,
    answers: int = 1,
    *,
    family: int = socket.AF_INET,
    head: bool = False,
) -> list[_Answer]:
    """Sends ``data`` in one write on a new connection; reads ``answers`` answers."""
    with _connect(url, family) as sock, sock.makefile("rb") as stream:
        sock.sendall(data)
        return [_read_answer(stream, head=head) for _ in range(answers)]


def _grpc_web_status(answer: _Answer | Answer) -> dict[str, str]:
    """The gRPC-Web trailers of an answer (its status), by name."""
    trailers = {k: v for k, v in answer.headers.items() if k.startswith("grpc-")}
    for flags, payload in frames(answer.body):
        if flags & _TRAILERS:
            for line in payload.decode().split("\r\n"):
                key, _, value = line.partition(":")
                if key:
                    trailers[key.strip().lower()] = value.strip()
    return trailers


def _connect_stream_end(answer: _Answer | Answer) -> dict[str, object]:
    """The end-of-stream message of a Connect stream's answer."""
    ends = [json.loads(p or b"{}") for f, p in frames(answer.body) if f & _END_STREAM]
    assert len(ends) == 1, answer.body[:300]
    end: dict[str, object] = ends[0]
    return end


def _reasons(details_bin: str) -> list[str]:
    """The ErrorInfo reasons of a ``grpc-status-details-bin`` trailer."""
    status = status_pb2.Status.FromString(base64.b64decode(details_bin + "=="))
    reasons = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reasons.append(info.reason)
    return reasons


# --- what reaches an RPC at all -----------------------------------------------


def test_no_method_but_post_reaches_an_rpc(served: Server) -> None:
    url = _url(served)
    before = _games(served)
    body = _create().SerializeToString()
    for method in ("GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"):
        answer = post(url, f"{SERVICE}/CreateGame", body, [PROTO], method=method)
        assert answer.status == 405, method
        assert answer.headers["allow"] == "POST"
    # Connect's GET form of a call, in each of its encodings.
    message = base64.urlsafe_b64encode(body).decode().rstrip("=")
    text = quote(json_format.MessageToJson(_create()))
    for query in (
        f"connect=v1&encoding=proto&base64=1&message={message}",
        f"connect=v1&encoding=json&message={text}",
    ):
        answer = post(url, f"{SERVICE}/CreateGame?{query}", b"", method="GET")
        assert answer.status == 405
    # Health and reflection stay on the gRPC port.
    for path in (
        "/grpc.health.v1.Health/Check",
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    ):
        assert post(url, path, b"", [PROTO]).status in (404, 405)
    assert _games(served) == before


def test_a_page_of_another_site_cannot_call_without_a_preflight(
    served: Server,
) -> None:
    # A form, or fetch() without a preflight, may send only these content types:
    # none of them names a codec, so none reaches a handler.
    url = _url(served)
    before = _games(served)
    payload = json_format.MessageToJson(_create()).encode()
    for content_type in (
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ):
        answer = post(
            url,
            f"{SERVICE}/CreateGame",
            payload,
            [("content-type", content_type), ("origin", STRANGER)],
        )
        assert answer.status == 415, content_type
        assert "access-control-allow-origin" not in answer.headers
    assert _games(served) == before


def test_odd_origins_and_requests_get_no_preflight(served: Server) -> None:
    url = _url(served)
    path = f"{SERVICE}/GetGame"
    asked = ("access-control-request-method", "POST")
    for origin in (
        "null",
        "https://friends.example.stranger.example",
        "https://stranger.example/https://friends.example",
        "http://friends.example",
        "https://friends.example:8443",
        "https://www.friends.example",
        "https://friends.example.",
        f"{FRIEND}, {STRANGER}",
    ):
        preflight = post(url, path, b"", [("origin", origin), asked], method="OPTIONS")
        assert preflight.status == 400, origin
        assert "access-control-allow-origin" not in preflight.headers
        call = post(url, path, b"", [("origin", origin), PROTO])
        assert "access-control-allow-origin" not in call.headers, origin
    # The friend may call, but not with another method or any header it likes,
    # and never with the browser's credentials (cookies).
    for refused in (
        [("access-control-request-method", "PUT")],
        [asked, ("access-control-request-headers", "cookie")],
        [asked, ("access-control-request-headers", "x-forwarded-for")],
    ):
        answer = post(url, path, b"", [("origin", FRIEND), *refused], method="OPTIONS")
        assert answer.status == 400, refused
    allowed = post(url, path, b"", [("origin", FRIEND), asked], method="OPTIONS")
    assert allowed.status == 200
    assert allowed.headers["access-control-allow-origin"] == FRIEND
    assert "access-control-allow-credentials" not in allowed.headers
    call = post(url, path, b"", [("origin", FRIEND), ("cookie", "a=b"), PROTO])
    assert call.headers["access-control-allow-origin"] == FRIEND
    assert "access-control-allow-credentials" not in call.headers


def test_a_seat_token_acts_only_from_the_authorization_header(
    served: Server,
) -> None:
    # So no browser sends it on its own (a cookie), and no link carries it.
    url = _url(served)
    name, tokens = start_two_seats(served.stub)
    path = f"{SERVICE}/GetGame"
    request = api.GetGameRequest(name=name)
    seated = connect_unary(url, path, request, api.GetGameResponse, token=tokens[0])
    assert seated.game.caller
    assert seated.game.qwirkle_view.private_state.rack
    bearer = f"Bearer {tokens[0]}"
    encoded = base64.b64encode(bearer.encode()).decode()
    for headers, query in (
        ([("cookie", f"authorization={quote(bearer)}")], ""),
        ([("cookie", f"token={tokens[0]}")], ""),
        ([], f"?authorization={quote(bearer)}"),
        ([], f"?token={tokens[0]}"),
        ([("x-authorization", bearer)], ""),
        ([("proxy-authorization", bearer)], ""),
        ([("authorization-bin", encoded)], ""),
    ):
        answer = post(url, path + query, request.SerializeToString(), [PROTO, *headers])
        assert answer.status == 200, (headers, query)
        game = api.GetGameResponse.FromString(answer.body).game
        assert not game.caller, (headers, query)
        assert not game.qwirkle_view.private_state.rack


def test_made_up_tokens_fresh_connections_and_pipelining_share_one_rate(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "0.05")
    monkeypatch.setenv("TABLETOP_RATE_BURST", "4")
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        game = f"games/{uuid.uuid4()}"
        body = api.GetGameRequest(name=game).SerializeToString()

        def call(n: int) -> bytes:
            # A new made-up token each time, and an address the server should not
            # believe.
            return _request(
                "POST",
                f"{SERVICE}/GetGame",
                [
                    PROTO,
                    ("authorization", f"Bearer {secrets.token_urlsafe(32)}"),
                    ("x-forwarded-for", f"203.0.113.{n}"),
                    ("x-real-ip", f"203.0.113.{n}"),
                ],
                body,
            )

        # Two calls on two fresh connections, then five pipelined on one, in
        # one write: the address's burst of four holds for all of them.
        fresh = [_exchange(url, call(n))[0] for n in range(2)]
        pipelined = _exchange(url, b"".join(call(n) for n in range(2, 7)), 5)
        answers = fresh + pipelined
        statuses = [a.status for a in answers]
        assert all(400 <= s < 500 and s != 429 for s in statuses[:4]), statuses
        assert statuses[4:] == [429] * 3
        for refused in answers[4:]:
            error = connect_error(refused.body)
            assert (error.code, error.reason) == ("resource_exhausted", "RATE_LIMITED")
            info = error.error_info()
            assert info is not None
            assert info.metadata["limitedBy"] == "client address"
        # The gRPC port shares the bucket.
        with pytest.raises(grpc.RpcError) as refused_grpc:
            server.stub.ListGameTypes(api.ListGameTypesRequest(), timeout=10)
        assert error_of(refused_grpc.value)[1] == "RATE_LIMITED"
    finally:
        assert server.stop() == 0


# --- bodies -------------------------------------------------------------------


def test_bodies_that_lie_about_their_length_cost_nothing(served: Server) -> None:
    url = _url(served)
    before = _games(served)
    create = f"{SERVICE}/CreateGame"
    # A declared gigabyte, waiting for "100 Continue": refused before any of it
    # (the first answer is the refusal, no "100 Continue").
    (huge,) = _exchange(
        url,
        _request(
            "POST",
            create,
            [PROTO, ("expect", "100-continue"), ("content-length", str(10**9))],
            length=False,
        ),
    )
    assert huge.status == 429
    assert connect_error(huge.body).reason == "REQUEST_TOO_LARGE"
    # A length no integer type holds.
    (absurd,) = _exchange(
        url,
        _request("POST", create, [PROTO, ("content-length", "9" * 30)], length=False),
    )
    assert 400 <= absurd.status < 500
    # A body of one-byte chunks, with no declared length: cut off past 64 KiB.
    chunks = b"1\r\n\x0a\r\n" * 70_000 + b"0\r\n\r\n"
    head = _request(
        "POST", create, [PROTO, ("transfer-encoding", "chunked")], length=False
    )
    with _connect(url) as sock, sock.makefile("rb") as stream:
        sock.sendall(head)
        with contextlib.suppress(OSError):  # it may close once it has answered
            sock.sendall(chunks)
        chunked = _read_answer(stream)
    assert chunked.status == 429
    assert connect_error(chunked.body).reason == "REQUEST_TOO_LARGE"
    # Frames that declare 4 GiB and bring 3 bytes, or 10,000 frames for one
    # message: answered at once, in the client's protocol.
    liar = struct.pack(">BI", 0, 0xFFFF_FFFF) + b"abc"
    (web,) = _exchange(url, _request("POST", create, [GRPC_WEB], liar))
    assert _grpc_web_status(web)["grpc-status"] == "12"  # UNIMPLEMENTED
    many = b"".join(frame(b"") for _ in range(10_000))
    (web,) = _exchange(url, _request("POST", create, [GRPC_WEB], many))
    assert _grpc_web_status(web)["grpc-status"] == "12"
    assert "multiple%20messages" in _grpc_web_status(web)["grpc-message"]
    (stream_liar,) = _exchange(
        url, _request("POST", f"{SERVICE}/StreamGame", [CONNECT_STREAM], liar)
    )
    error = _connect_stream_end(stream_liar)["error"]
    assert isinstance(error, dict)
    assert error["code"] == "unimplemented"
    assert _games(served) == before


def test_no_protocol_takes_a_compressed_request_or_sends_a_compressed_answer(
    served: Server,
) -> None:
    url = _url(served)
    before = _games(served)
    create = f"{SERVICE}/CreateGame"
    message = _create().SerializeToString()
    zipped = gzip.compress(message)
    for encoding in ("gzip", "br", "deflate", "zstd", "snappy"):
        answer = post(url, create, zipped, [PROTO, ("content-encoding", encoding)])
        assert answer.status == 501, encoding
        assert connect_error(answer.body).code == "unimplemented"
    web = post(
        url,
        create,
        frame(zipped, flags=0x01),
        [GRPC_WEB, ("grpc-encoding", "gzip")],
    )
    assert _grpc_web_status(web)["grpc-status"] == ("12")
    # A Connect stream's frame flagged compressed is a protocol error, whatever
    # encoding the client names.
    stream_request = api.StreamGameRequest(name=f"games/{uuid.uuid4()}")
    (streamed,) = _exchange(
        url,
        _request(
            "POST",
            f"{SERVICE}/StreamGame",
            [CONNECT_STREAM, ("connect-content-encoding", "gzip")],
            frame(gzip.compress(stream_request.SerializeToString()), flags=0x01),
        ),
    )
    assert "error" in _connect_stream_end(streamed)
    assert not [f for f, _ in frames(streamed.body) if not f & _END_STREAM]
    # Answers are never compressed, whatever the client accepts.
    types = api.ListGameTypesRequest().SerializeToString()
    for headers in (
        [PROTO, ("accept-encoding", "gzip, br, deflate")],
        [GRPC_WEB, ("grpc-accept-encoding", "gzip")],
    ):
        payload = types if headers[0] == PROTO else frame(types)
        answer = post(url, f"{SERVICE}/ListGameTypes", payload, headers)
        assert answer.status == 200
        assert answer.headers.get(
            "content-encoding", answer.headers.get("grpc-encoding", "identity")
        ) in ("identity", ""), answer.headers
    assert _games(served) == before


# --- deadlines and streams ----------------------------------------------------


def test_absurd_deadlines_are_refused_and_a_short_one_ends_a_stream(
    one_stream: Server,
) -> None:
    url = _url(one_stream)
    types = api.ListGameTypesRequest().SerializeToString()
    path = f"{SERVICE}/ListGameTypes"
    for refused in ("abc", "12345678901", "1e3", "0x10", "1.5", "+-1"):
        answer = post(url, path, types, [PROTO, ("connect-timeout-ms", refused)])
        assert answer.status == 400, refused
        assert connect_error(answer.body).code == "invalid_argument"
    for odd in ("0", "-1", "9999999999"):
        answer = post(url, path, types, [PROTO, ("connect-timeout-ms", odd)])
        assert answer.status < 500, odd
    name = create_qwirkle(one_stream.stub).game.name
    request = frame(api.StreamGameRequest(name=name).SerializeToString())
    stream = f"{SERVICE}/StreamGame"
    started = time.monotonic()
    connect = post(
        url, stream, request, [CONNECT_STREAM, ("connect-timeout-ms", "300")]
    )
    error = _connect_stream_end(connect)["error"]
    assert isinstance(error, dict)
    assert error["code"] == "deadline_exceeded"
    web = post(url, stream, request, [GRPC_WEB, ("grpc-timeout", "300m")])
    assert _grpc_web_status(web)["grpc-status"] == ("4")  # DEADLINE_EXCEEDED
    assert time.monotonic() - started < 5
    # Each gave its stream back: the address's only one is free.
    messages, ended = connect_stream(
        url,
        stream,
        api.StreamGameRequest(name=name, snapshot_first=True),
        api.StreamGameResponse,
        limit=1,
    )
    assert ended is None
    assert [m.WhichOneof("item") for m in messages] == ["snapshot"]


def test_a_stream_its_client_walks_away_from_gives_its_count_back(
    one_stream: Server,
) -> None:
    url = _url(one_stream)
    name = create_qwirkle(one_stream.stub).game.name
    request = api.StreamGameRequest(name=name, snapshot_first=True)
    path = f"{SERVICE}/StreamGame"
    opened = _request(
        "POST", path, [CONNECT_STREAM], frame(request.SerializeToString())
    )
    for abrupt in (False, True, False, True, False):
        sock = _connect(url)
        sock.sendall(opened)
        with sock.makefile("rb") as stream:
            assert stream.readline().startswith(b"HTTP/1.1 200")
        if abrupt:  # a reset, as a phone losing its network would not even send
            sock.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
        sock.close()
        # Noticed at the stream's next heartbeat (0.2 s): the count comes back.
        deadline = time.monotonic() + 5
        while True:
            messages, ended = connect_stream(
                url, path, request, api.StreamGameResponse, limit=1
            )
            if ended is None:
                break
            assert ended.reason == "TOO_MANY_STREAMS"
            assert time.monotonic() < deadline, "the stream was never given back"
            time.sleep(0.1)
        assert [m.WhichOneof("item") for m in messages] == ["snapshot"]


# --- the page -----------------------------------------------------------------


def test_range_requests_cannot_make_the_page_an_amplifier(served: Server) -> None:
    url = _url(served)
    page = post(url, "/assets/app.js", b"", method="GET")
    assert page.status == 200
    size = len(page.body)
    # Each distinct byte its own part: 100 parts at most, more is the whole file.
    ranges = ",".join(f"{2 * n}-{2 * n}" for n in range(100))
    parts = post(
        url, "/assets/app.js", b"", [("range", f"bytes={ranges}")], method="GET"
    )
    assert parts.status == 206
    assert len(parts.body) < 100 * 200
    ranges = ",".join(f"{2 * n}-{2 * n}" for n in range(101))
    whole = post(
        url, "/assets/app.js", b"", [("range", f"bytes={ranges}")], method="GET"
    )
    assert (whole.status, len(whole.body)) == (200, size)
    # The whole file asked for a hundred times is sent once.
    again = post(
        url,
        "/assets/app.js",
        b"",
        [("range", "bytes=" + ",".join(["0-"] * 100))],
        method="GET",
    )
    assert again.status == 206
    assert len(again.body) <= size
    for bad in (
        "bytes=5-1",
        "bytes=99999999-",
        "bytes=-0",
        "bytes=" + "9" * 5000 + "-",
        "bits=0-1",
        "garbage",
        "bytes=" + "," * 10_000,
    ):
        answer = post(url, "/assets/app.js", b"", [("range", bad)], method="GET")
        assert answer.status in (200, 206, 400, 416), bad
    (head,) = _exchange(url, _request("HEAD", "/assets/app.js"), head=True)
    assert head.status == 200
    assert int(head.headers["content-length"]) == size


def test_no_path_leaves_the_page(served: Server) -> None:
    url = _url(served)
    index = post(url, "/", b"", method="GET").body
    for path in (
        "/../pyproject.toml",
        "/assets/../../pyproject.toml",
        "/assets/%2e%2e/%2e%2e/pyproject.toml",
        "/assets/%252e%252e/%252e%252e/pyproject.toml",
        "/assets/..%2f..%2fpyproject.toml",
        "/assets/..%5c..%5cpyproject.toml",
        "/assets/....//....//pyproject.toml",
        "//etc/passwd",
        "/%2fetc%2fpasswd",
        "/assets//etc/passwd",
        "/assets/app.js%00.html",
        "/%ff%fe",
        "/games/../../pyproject.toml",
        "/games/%2e%2e/%2e%2e/infra/settings.py",
        "/games/../assets/../../../../etc/passwd",
    ):
        (answer,) = _exchange(url, _request("GET", path))
        assert answer.status in (200, 400, 404), path
        if answer.status == 200:
            assert answer.body == index, path  # a game's link: the page itself
        for secret in (b"[project]", b"root:", b"def ", b"import "):
            assert secret not in answer.body, path


# --- addresses ----------------------------------------------------------------


_HTTP_LINE = re.compile(r"http on http://\[::\]:(\d+)/")


def test_an_ipv4_client_of_a_dual_stack_port_is_counted_as_itself(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On [::] an IPv4 client connects as ::ffff:127.0.0.1: its rate and its
    # connections are 127.0.0.1's all the same, on either port.
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "0.05")
    monkeypatch.setenv("TABLETOP_RATE_BURST", "3")
    monkeypatch.setenv("TABLETOP_MAX_CONNECTIONS_PER_ADDRESS", "2")
    server = start_server(postgres_url, dev=True, options=["--http-listen", "[::]:0"])
    try:
        assert server.process.stdout is not None
        found = _HTTP_LINE.search(server.process.stdout.readline())
        assert found is not None
        url = f"http://127.0.0.1:{found.group(1)}"
        types = _request(
            "POST",
            f"{SERVICE}/ListGameTypes",
            [PROTO],
            api.ListGameTypesRequest().SerializeToString(),
        )
        with _connect(url) as kept, kept.makefile("rb") as stream:
            for _ in range(2):
                kept.sendall(types)
                assert _read_answer(stream).status == 200
            server.stub.ListGameTypes(api.ListGameTypesRequest(), timeout=10)
            kept.sendall(types)
            refused = _read_answer(stream)
            assert refused.status == 429
            assert connect_error(refused.body).reason == "RATE_LIMITED"
            # ::1 is another client, with a bucket of its own.
            (other,) = _exchange(url, types, family=socket.AF_INET6)
            assert other.status == 200
            # The kept connection and one more are 127.0.0.1's two.
            with _connect(url):
                time.sleep(0.2)
                (beyond,) = _exchange(url, _request("GET", "/"))
                assert beyond.status == 503
                (v6,) = _exchange(url, _request("GET", "/"), family=socket.AF_INET6)
                assert v6.status == 200
    finally:
        assert server.stop() == 0


# --- the log and the stop -----------------------------------------------------


def test_a_flood_of_undecodable_requests_is_logged_a_line_a_second(
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "0")
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        garbage = b"".join(
            _request("POST", f"{SERVICE}/SubmitMove", [PROTO], b"\xff\xff\xff")
            for _ in range(100)
        )
        answers = _exchange(url, garbage, 100)
        assert {a.status for a in answers} == {400}
        time.sleep(1.5)  # the throttle's summary line
    finally:
        assert server.stop() == 0
    err = capfd.readouterr().err
    assert "no --signing-key-file" in err  # the server's log is captured here
    lines = [line for line in err.splitlines() if "undecodable request" in line]
    assert 1 <= len(lines) <= 4, lines
    assert "more like this" in lines[-1]
    assert "Traceback" not in err


def test_a_graceful_stop_ends_http_connections_in_every_state(
    postgres_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    server = start_server(postgres_url, dev=True, http=True, heartbeat_seconds=0.2)
    url = _url(server)
    name = create_qwirkle(server.stub).game.name
    request = api.StreamGameRequest(name=name, snapshot_first=True)
    path = f"{SERVICE}/StreamGame"
    held: list[socket.socket] = []
    try:
        # Streams read, a stream never read, a silent connection, a request
        # whose headers are half sent, a keep-alive connection between requests.
        readers = []
        for content_type in (CONNECT_STREAM, GRPC_WEB):
            sock = _connect(url)
            sock.sendall(
                _request(
                    "POST", path, [content_type], frame(request.SerializeToString())
                )
            )
            readers.append(sock)
        unread = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        unread.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        unread.connect(("127.0.0.1", urlsplit(url).port or 80))
        unread.sendall(
            _request("POST", path, [CONNECT_STREAM], frame(request.SerializeToString()))
        )
        silent = _connect(url)
        half = _connect(url)
        half.sendall(_request("POST", path, [CONNECT_STREAM])[:40])
        idle = _connect(url)
        idle.sendall(_request("GET", "/"))
        held += [*readers, unread, silent, half, idle]
        with idle.makefile("rb") as stream:
            assert _read_answer(stream).status == 200
        time.sleep(1)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        ends = []
        for sock in readers:
            with sock.makefile("rb") as stream:
                ends.append(_read_answer(stream))
        assert server.process.wait(timeout=30) == 0
        assert time.monotonic() - started < 5
    finally:
        for sock in held:
            sock.close()
        if server.process.poll() is None:
            server.stop()
    connect, web = ends
    error = _connect_stream_end(connect)["error"]
    assert connect_error(json.dumps(error).encode()).reason == "SERVER_SHUTTING_DOWN"
    trailers = _grpc_web_status(web)
    assert trailers["grpc-status"] == "14"  # UNAVAILABLE
    assert _reasons(trailers["grpc-status-details-bin"]) == ["SERVER_SHUTTING_DOWN"]
    err = capfd.readouterr().err
    assert "no --signing-key-file" in err  # the server's log is captured here
    assert "Traceback" not in err
    assert "Exception in ASGI application" not in err


def test_odd_but_well_formed_headers_get_a_client_error_never_a_fault(
    served: Server,
) -> None:
    url = _url(served)
    path = f"{SERVICE}/GetGame"
    body = api.GetGameRequest(name=f"games/{uuid.uuid4()}").SerializeToString()
    for headers in (
        [("connect-protocol-version", "2")],
        [("te", "trailers")],
        [("authorization", "Bearer " + "x" * 100_000)],
        [("authorization", "Bearer a"), ("authorization", "Bearer b")],
        [("authorization", "Basic bWFsbG9yeTpzZWNyZXQ=")],
        [("authorization", "Bearer")],
        [("x-note-bin", "!!! not base64 !!!")],
        [("grpc-status-details-bin", "AAAA")],
        [("x-filler", "a" * 8000)],
        [(f"x-h{n}", "v") for n in range(100)],
        [("content-type", "application/proto")],  # a second one
    ):
        answer = post(url, path, body, [PROTO, *headers])
        assert 400 <= answer.status < 500, (
            headers[0],
            answer.status,
            answer.body[:200],
        )
        if answer.headers.get("content-type") == "application/json":
            assert connect_error(answer.body).code not in ("internal", "unknown")


def _raw(url: str) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname or "", parts.port or 0), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _rss_mib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:  # noqa: PTH123
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    msg = "no VmRSS"
    raise AssertionError(msg)


def _status_line(sock: socket.socket) -> bytes:
    with contextlib.suppress(OSError):
        return sock.makefile("rb").readline()
    return b""


def test_a_header_block_of_half_a_million_lines_is_refused_unread(
    served: Server,
) -> None:
    before = _rss_mib(served.process.pid)
    sock = _raw(_url(served))
    sock.sendall(b"POST /tabletop.v1.GameService/ListGameTypes HTTP/1.1\r\nHost: x\r\n")
    block = b"".join(b"x-h%d: a\r\n" % i for i in range(10_000))
    with contextlib.suppress(OSError):  # the server closes the connection
        for _ in range(50):
            sock.sendall(block)
        sock.sendall(b"content-type: application/proto\r\ncontent-length: 0\r\n\r\n")
    status = _status_line(sock)
    sock.close()
    assert status.startswith(b"HTTP/1.1 431") or status == b""
    assert _rss_mib(served.process.pid) - before < 20


@pytest.mark.parametrize(
    ("head", "tail"),
    [
        (b"GET /", b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nx-big: ", b"\r\n\r\n"),
    ],
    ids=["url", "header value"],
)
def test_an_eight_megabyte_url_or_header_value_is_refused(
    served: Server, head: bytes, tail: bytes
) -> None:
    sock = _raw(_url(served))
    sock.sendall(head)
    with contextlib.suppress(OSError):
        for _ in range(8):
            sock.sendall(b"a" * (1 << 20))
        sock.sendall(tail)
    status = _status_line(sock)
    sock.close()
    assert status.startswith(b"HTTP/1.1 431") or status == b""


@pytest.mark.parametrize(
    ("header", "status"),
    [
        (b"content-type: application/grpc", b"415"),
        (b"content-type: application/grpc-web+proto\r\ngrpc-timeout: soon", b"400"),
        (
            b"content-type: application/grpc-web+proto\r\ngrpc-timeout: 999999999S",
            b"400",
        ),
        (b"content-type: application/proto\r\nx-name: \xe9", b"400"),
    ],
    ids=["plain gRPC", "a timeout in words", "a nine-digit timeout", "latin-1"],
)
def test_headers_the_protocol_library_cannot_read_are_refused_in_words(
    served: Server, header: bytes, status: bytes
) -> None:
    sock = _raw(_url(served))
    sock.sendall(
        b"POST /tabletop.v1.GameService/ListGameTypes HTTP/1.1\r\nHost: x\r\n"
        + header
        + b"\r\ncontent-length: 5\r\nconnection: close\r\n\r\n\x00\x00\x00\x00\x00"
    )
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    sock.close()
    assert answer.startswith(b"HTTP/1.1 " + status), answer[:200]


def test_closed_connections_are_not_counted_against_the_address(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_MAX_CONNECTIONS_PER_ADDRESS", "3")
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        statuses = [  # each call on a new connection, closed before the next
            post(url, f"{SERVICE}/ListGameTypes", b"", [PROTO]).status for _ in range(6)
        ]
    finally:
        assert server.stop() == 0
    assert statuses == [200] * 6


def test_malformed_connections_cannot_flood_the_log(
    postgres_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        for n in range(100):
            sock = _raw(url)
            if n % 2:
                sock.sendall(
                    b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
                    b"Upgrade: websocket\r\n\r\n"
                )
            else:
                sock.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03no\r\n\r\n")
            with contextlib.suppress(OSError):
                sock.recv(100)
            sock.close()
        time.sleep(0.5)
    finally:
        assert server.stop() == 0
    logged = [line for line in capfd.readouterr().err.splitlines() if "uvicorn" in line]
    assert len(logged) <= 10, logged


def test_a_request_without_its_body_does_not_hold_up_a_graceful_stop(
    postgres_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    server = start_server(postgres_url, dev=True, http=True)
    sock = _raw(_url(server))
    sock.sendall(
        b"POST /tabletop.v1.GameService/GetGame HTTP/1.1\r\nHost: x\r\n"
        b"content-type: application/proto\r\ncontent-length: 10\r\n\r\nab"
    )
    time.sleep(0.5)
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(30) == 0
    took = time.monotonic() - started
    sock.close()
    assert took < 5  # the grace period is 10 s
    assert "Traceback" not in capfd.readouterr().err
