"""A small client of the HTTP port's Connect and gRPC-Web protocols, for tests.

Written from the protocols' specifications with the standard library alone, so
the tests check the server's answers byte for byte as a client library would
read them: Connect unary (binary and JSON), Connect server streams and
gRPC-Web unary calls (length-prefixed frames; a gRPC-Web call's status comes
in a trailer frame).
"""

from __future__ import annotations

import base64
import http.client
import json
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from google.protobuf import any_pb2, json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

M = TypeVar("M", bound=Message)
TIMEOUT = 10.0
_END_STREAM = 0x02  # the flag of a Connect stream's last frame
_TRAILERS = 0x80  # the flag of a gRPC-Web trailer frame


@dataclass
class HttpRpcError(Exception):
    """A refusal as a Connect or gRPC-Web client reads it."""

    code: str  # Connect's name: invalid_argument, resource_exhausted, ...
    message: str
    details: list[Any] = field(default_factory=list)  # google.protobuf.Any
    http_status: int = 200

    @property
    def reason(self) -> str:
        """The ErrorInfo reason among the details, or ``""``."""
        info = self.error_info()
        return info.reason if info is not None else ""

    def error_info(self) -> error_details_pb2.ErrorInfo | None:
        """The ErrorInfo among the details, or None."""
        for detail in self.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                return info
        return None


@dataclass
class Answer:
    """A raw HTTP answer."""

    status: int
    headers: dict[str, str]
    body: bytes


def post(
    url: str,
    path: str,
    body: bytes,
    headers: Sequence[tuple[str, str]] = (),
    method: str = "POST",
) -> Answer:
    """Sends one request to the server at ``url``; returns its answer."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname or "", parts.port, timeout=TIMEOUT
    )
    try:
        connection.request(method, path, body=body, headers=dict(headers))
        response = connection.getresponse()
        return Answer(
            response.status,
            {key.lower(): value for key, value in response.getheaders()},
            response.read(),
        )
    finally:
        connection.close()


def _auth(token: str | None) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")] if token else []


def connect_unary(
    url: str,
    path: str,
    request: Message,
    reply_type: type[M],
    *,
    token: str | None = None,
    use_json: bool = False,
    headers: Sequence[tuple[str, str]] = (),
) -> M:
    """Calls a unary method over Connect; raises ``HttpRpcError`` on refusal."""
    if use_json:
        body = json_format.MessageToJson(request).encode()
        content_type = "application/json"
    else:
        body = request.SerializeToString()
        content_type = "application/proto"
    answer = post(
        url,
        path,
        body,
        [
            ("content-type", content_type),
            ("connect-protocol-version", "1"),
            *_auth(token),
            *headers,
        ],
    )
    if answer.status != 200:
        raise connect_error(answer.body, answer.status)
    if use_json:
        return json_format.Parse(answer.body, reply_type())
    return reply_type.FromString(answer.body)


def connect_error(body: bytes, http_status: int = 200) -> HttpRpcError:
    """Reads a Connect error (its JSON form)."""
    data = json.loads(body)
    details = [
        any_pb2.Any(
            type_url=f"type.googleapis.com/{item['type']}",
            value=base64.b64decode(item["value"] + "=="),
        )
        for item in data.get("details", [])
    ]
    return HttpRpcError(data["code"], data.get("message", ""), details, http_status)


def frames(body: bytes) -> Iterator[tuple[int, bytes]]:
    """Splits a body into its length-prefixed frames: (flags, payload)."""
    at = 0
    while at < len(body):
        flags, length = struct.unpack(">BI", body[at : at + 5])
        yield flags, body[at + 5 : at + 5 + length]
        at += 5 + length


def frame(payload: bytes, flags: int = 0) -> bytes:
    """Returns one length-prefixed frame."""
    return struct.pack(">BI", flags, len(payload)) + payload


def connect_stream(
    url: str,
    path: str,
    request: Message,
    reply_type: type[M],
    *,
    token: str | None = None,
    limit: int | None = None,
) -> tuple[list[M], HttpRpcError | None]:
    """Calls a server-streaming method over Connect; reads up to ``limit`` messages.

    Returns the messages and the error the stream ended with (None: ended well).
    With ``limit`` it stops reading once it has that many.
    """
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname or "", parts.port, timeout=TIMEOUT
    )
    try:
        connection.request(
            "POST",
            path,
            body=frame(request.SerializeToString()),
            headers={
                "content-type": "application/connect+proto",
                "connect-protocol-version": "1",
                **dict(_auth(token)),
            },
        )
        response = connection.getresponse()
        messages: list[M] = []
        while limit is None or len(messages) < limit:
            head = response.read(5)
            if len(head) < 5:
                return messages, None
            flags, length = struct.unpack(">BI", head)
            payload = response.read(length)
            if flags & _END_STREAM:
                end = json.loads(payload or b"{}")
                if "error" in end:
                    return messages, connect_error(json.dumps(end["error"]).encode())
                return messages, None
            messages.append(reply_type.FromString(payload))
        return messages, None
    finally:
        connection.close()


def grpc_web_unary(
    url: str,
    path: str,
    request: Message,
    reply_type: type[M],
    *,
    token: str | None = None,
) -> M:
    """Calls a unary method over gRPC-Web; raises ``HttpRpcError`` on refusal."""
    answer = post(
        url,
        path,
        frame(request.SerializeToString()),
        [
            ("content-type", "application/grpc-web+proto"),
            ("x-grpc-web", "1"),
            *_auth(token),
        ],
    )
    reply: M | None = None
    trailers: dict[str, str] = {
        key: value for key, value in answer.headers.items() if key.startswith("grpc-")
    }
    for flags, payload in frames(answer.body):
        if flags & _TRAILERS:
            for line in payload.decode().split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
        else:
            reply = reply_type.FromString(payload)
    if trailers.get("grpc-status", "0") != "0":
        status = status_pb2.Status()
        if "grpc-status-details-bin" in trailers:
            status.ParseFromString(
                base64.b64decode(trailers["grpc-status-details-bin"] + "==")
            )
        raise HttpRpcError(
            _GRPC_CODES[int(trailers["grpc-status"])],
            unquote(trailers.get("grpc-message", "")),
            list(status.details),
            answer.status,
        )
    assert reply is not None
    return reply


_GRPC_CODES = {
    1: "canceled",
    2: "unknown",
    3: "invalid_argument",
    4: "deadline_exceeded",
    5: "not_found",
    6: "already_exists",
    7: "permission_denied",
    8: "resource_exhausted",
    9: "failed_precondition",
    10: "aborted",
    11: "out_of_range",
    12: "unimplemented",
    13: "internal",
    14: "unavailable",
    15: "data_loss",
    16: "unauthenticated",
}
