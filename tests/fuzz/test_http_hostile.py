"""Hostile input against the HTTP port: every RPC, every protocol, fuzzed.

The gRPC port's fuzzing (test_hostile_input.py) covers what the handlers do
with any message; what only the HTTP port has is how a body becomes one: in
Connect's binary or JSON form, framed for a stream or for gRPC-Web, or in no
form the server knows. Each case must end with an answer (never a dropped
connection or a hang), never ``5xx``, never ``internal``/``unknown``; a Connect
error names its code and, when our code refused it, an ``ErrorInfo`` reason
(``internal`` only where gRPC's protocol asks for it: a frame flagged
compressed when no compression was agreed).
The server logs no traceback and answers its health check at the end.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterator

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import MethodDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabletop.v1 import auth_service_pb2, game_audit_service_pb2, game_service_pb2

from tests.e2e.client import health_status
from tests.e2e.conftest import Server, start_server
from tests.e2e.http_client import post
from tests.fuzz.conftest import CASES, EXAMPLES_VARIABLE
from tests.fuzz.messages import messages
from tests.pg import fresh_schema

pytestmark = pytest.mark.e2e

EXAMPLES = int(os.environ.get(EXAMPLES_VARIABLE, "6"))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
_SERVICES = (
    auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"],
    game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
    game_audit_service_pb2.DESCRIPTOR.services_by_name["GameAuditService"],
)
METHODS: dict[str, MethodDescriptor] = {
    f"/{s.full_name}/{m.name}": m for s in _SERVICES for m in s.methods
}
CONTENT_TYPES = (
    "application/proto",
    "application/json",
    "application/json; charset=utf-8",
    "application/connect+proto",
    "application/connect+json",
    "application/grpc-web+proto",
    "application/grpc-web",
    "application/grpc-web+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "",
)
_SERVER_FAULTS = ("internal", "unknown")


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    """Yields a server with its HTTP port and no rate limit."""
    with fresh_schema() as url, pytest.MonkeyPatch.context() as patch:
        patch.setenv("TABLETOP_RATE_LIMIT", "0")
        server = start_server(url, dev=True, http=True, heartbeat_seconds=0.2)
        yield server
        assert health_status(server.channel) == 1  # SERVING after every case
        assert server.stop() == 0


def _framed(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


@st.composite
def bodies(draw: st.DrawFn, method: MethodDescriptor) -> bytes:
    """A body a client might send: a fuzzed message in some form, or noise."""
    request = draw(messages(method.input_type, depth=3))
    kind = draw(st.sampled_from(["binary", "json", "noise", "json-noise"]))
    if kind == "binary":
        body = request.SerializeToString()
    elif kind == "json":
        try:
            body = json_format.MessageToJson(request).encode()
        except json_format.SerializeToJsonError:  # a field mask JSON cannot name
            body = request.SerializeToString()
    elif kind == "noise":
        body = draw(st.binary(max_size=512))
    else:
        body = json.dumps(
            draw(
                st.recursive(
                    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: (
                        st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=12), inner, max_size=4)
                    ),
                    max_leaves=12,
                )
            )
        ).encode()
    if draw(st.booleans()):
        body = _framed(body, draw(st.sampled_from([0, 0x01, 0x02, 0x80])))
    return body


@pytest.mark.parametrize("path", sorted(METHODS))
def test_any_body_in_any_form_gets_a_well_formed_answer(
    served: Server, path: str, capfd: pytest.CaptureFixture[str]
) -> None:
    assert served.http_url is not None
    url = served.http_url

    @FUZZ
    @given(
        body=bodies(METHODS[path]),
        content_type=st.sampled_from(CONTENT_TYPES),
    )
    def case(body: bytes, content_type: str) -> None:
        CASES[f"http {path}"] += 1
        headers = [("content-type", content_type)] if content_type else []
        answer = post(url, path, body, headers)
        assert answer.status < 500, (answer.status, answer.body[:300])
        assert answer.status != 404, "every RPC is served"
        if answer.headers.get("content-type") == "application/json" and answer.body:
            error = json.loads(answer.body)
            if "code" in error:
                assert error["code"] not in _SERVER_FAULTS, error
        assert b"grpc-status: 2\r\n" not in answer.body  # UNKNOWN
        if b"grpc-status: 13\r\n" in answer.body:  # INTERNAL: only as gRPC says
            # A frame flagged compressed, though no compression was agreed.
            assert b"grpc-message: protocol%20error" in answer.body, answer.body

    case()
    assert "Traceback" not in capfd.readouterr().err
