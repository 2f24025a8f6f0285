"""Requests that are not a protobuf of their method's type, through a real server.

gRPC itself would answer them ``UNKNOWN`` and log a traceback for each: a
client sending garbage could fill the server's log. They are answered
``INVALID_ARGUMENT`` (``UNDECODABLE_REQUEST``), charged to the caller's rate
limit like any call, and logged as a summary at most once a second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

import grpc
import pytest

from services.api.limits import MALFORMED_CHARGE
from tests.e2e.client import auth, error_of
from tests.e2e.conftest import Server, start_server

GARBAGE = b"\xff\xff\xff"
SUBMIT = "/tabletop.v1.GameService/SubmitMove"
STREAM = "/tabletop.v1.GameService/StreamGame"
BURST = 3


@pytest.fixture
def plain(postgres_url: str) -> Iterator[Server]:
    """Yields a server with its default limits."""
    running = start_server(postgres_url, dev=True)
    yield running
    assert running.stop() == 0


def raw(server: Server, method: str) -> Callable[..., Any]:
    """Returns a callable sending raw bytes to ``method`` (no serializers)."""
    if method == STREAM:
        return server.channel.unary_stream(method)
    return server.channel.unary_unary(method)


def send(server: Server, method: str, payload: bytes = GARBAGE) -> grpc.RpcError:
    """Sends raw bytes as a unary call; returns the error it must end with."""
    call = raw(server, method)
    with pytest.raises(grpc.RpcError) as refused:
        call(payload, metadata=auth("not-a-token"), timeout=10)
    return refused.value


def assert_undecodable(error: grpc.RpcError, method: str) -> None:
    """Checks the refusal an undecodable request gets."""
    code, reason, metadata = error_of(error)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNDECODABLE_REQUEST")
    assert metadata["method"] == method.removeprefix("/")
    details = cast("grpc.Call", error).details() or ""
    assert "not a valid" in details
    assert method.removeprefix("/") in details


def test_an_undecodable_unary_request_is_invalid_argument(plain: Server) -> None:
    assert_undecodable(send(plain, SUBMIT), SUBMIT)
    # A string field holding bytes that are not UTF-8 cannot be decoded either.
    assert_undecodable(send(plain, SUBMIT, b"\x0a\x02\xff\xfe"), SUBMIT)


def test_an_undecodable_stream_request_is_invalid_argument(plain: Server) -> None:
    stream = raw(plain, STREAM)(GARBAGE, timeout=10)
    with pytest.raises(grpc.RpcError) as refused:
        next(stream)
    assert_undecodable(refused.value, STREAM)


def test_undecodable_requests_are_rate_limited(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "0.5")
    # Each undecodable request costs MALFORMED_CHARGE calls.
    monkeypatch.setenv("TABLETOP_RATE_BURST", str(BURST * MALFORMED_CHARGE))
    server = start_server(postgres_url, dev=True)
    try:
        errors = [error_of(send(server, SUBMIT)) for _ in range(BURST + 1)]
    finally:
        assert server.stop() == 0
    reasons = [reason for _, reason, _ in errors]
    assert reasons == ["UNDECODABLE_REQUEST"] * BURST + ["RATE_LIMITED"]


def test_hundreds_of_undecodable_requests_log_a_few_lines_and_no_traceback(
    postgres_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    server = start_server(postgres_url, dev=True)  # logs at WARNING
    try:
        for _ in range(300):
            send(server, SUBMIT)
        streaming = raw(server, STREAM)
        for _ in range(30):
            with pytest.raises(grpc.RpcError):
                next(streaming(GARBAGE, timeout=10))
    finally:
        assert server.stop() == 0
    logged = capfd.readouterr().err.splitlines()
    assert not [line for line in logged if "Traceback" in line]
    assert any("undecodable" in line for line in logged)
    assert len(logged) <= 10, logged
