"""The operator exports a game from a real server and verifies it offline."""

from __future__ import annotations

import json
import random
import secrets
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import grpc
import pytest
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from tabletop.v1 import game_audit_service_pb2 as audit_api
from tabletop.v1 import game_audit_service_pb2_grpc

from tests.e2e.client import (
    auth,
    error_of,
    expect_error,
    health_status,
    play_to_end,
    start_two_seats,
)
from tests.e2e.conftest import Server, start_server

SEED = bytes(range(32))
AUDIT_SERVICE = "tabletop.v1.GameAuditService"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def operator_token() -> str:
    """The operator credential of the audited server."""
    return secrets.token_urlsafe(32)


@pytest.fixture
def audited(postgres_url: str, operator_token: str) -> Iterator[Server]:
    """Yields a development server on PostgreSQL with an operator credential."""
    running = start_server(postgres_url, dev=True, operator_token=operator_token)
    yield running
    assert running.stop() == 0


def _audit(server: Server) -> game_audit_service_pb2_grpc.GameAuditServiceStub:
    return game_audit_service_pb2_grpc.GameAuditServiceStub(server.channel)


def _export(server: Server, name: str, token: str | None) -> str:
    reply = _audit(server).ExportGame(
        audit_api.ExportGameRequest(name=name),
        metadata=auth(token) if token else None,
        timeout=30,
    )
    return reply.records


def _public_key(server: Server) -> str:
    """Returns the text of the public key that signs the server's exports."""
    return (
        _audit(server).GetSigningKey(audit_api.GetSigningKeyRequest(), timeout=10).text
    )


def _verify(path: Path, *keys: str) -> subprocess.CompletedProcess[str]:
    options = [part for key in keys for part in ("--public-key", key)]
    return subprocess.run(  # noqa: S603 (our own CLI)
        [sys.executable, "-m", "infra.cli", "audit", "verify", str(path), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_an_exported_game_verifies_and_a_tampered_copy_does_not(
    audited: Server, operator_token: str, tmp_path: Path
) -> None:
    name, tokens = start_two_seats(audited.stub, SEED)
    play_to_end(audited.stub, name, tokens, random.Random(11).choice)

    records = _export(audited, name, operator_token)
    lines = records.splitlines()
    assert json.loads(lines[0])["finished"] is True
    assert json.loads(lines[-1])["seed"] == SEED.hex()
    exported = tmp_path / "game.jsonl"
    exported.write_text(records, encoding="utf-8")
    key = _public_key(audited)
    verified = _verify(exported, key)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "RESULT: VERIFIED" in verified.stdout
    assert "re-decided" in verified.stdout
    assert "signature:           valid" in verified.stdout
    unsigned = _verify(exported)  # without a key the signatures are not checked
    assert unsigned.returncode == 0, unsigned.stdout + unsigned.stderr
    assert "no public key was given" in unsigned.stdout

    scored = next(i for i, line in enumerate(lines) if "qwirkle.TurnScored" in line)
    item = json.loads(lines[scored])
    item["event"]["points"] += 1
    lines[scored] = json.dumps(item, sort_keys=True, separators=(",", ":"))
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused = _verify(tampered, key)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    revision = item["revision"]
    assert (
        f"revision {revision}: the signature does not hold for this line:"
        in refused.stdout
    )
    assert "NOT VERIFIED" in refused.stdout

    assert _verify(tmp_path / "missing.jsonl").returncode == 2


def test_a_game_in_progress_exports_without_its_seed(
    audited: Server, operator_token: str, tmp_path: Path
) -> None:
    name, _ = start_two_seats(audited.stub, SEED)
    records = _export(audited, name, operator_token)
    assert SEED.hex() not in records
    assert json.loads(records.splitlines()[-1])["seed"] is None
    exported = tmp_path / "in-progress.jsonl"
    exported.write_text(records, encoding="utf-8")
    verified = _verify(exported, _public_key(audited))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "signature:           valid" in verified.stdout
    assert "not everything could be checked" in verified.stdout


def test_only_the_operator_may_export(audited: Server, operator_token: str) -> None:
    name, tokens = start_two_seats(audited.stub)
    export = _audit(audited).ExportGame
    request = audit_api.ExportGameRequest(name=name)
    code, reason, _ = expect_error(export, request, timeout=10)
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_CREDENTIALS")
    for token in (tokens[0], tokens[1], operator_token + "x", "nonsense"):
        code, reason, _ = expect_error(
            export, request, metadata=auth(token), timeout=10
        )
        assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_ONLY")
    as_operator = auth(operator_token)
    unknown = audit_api.ExportGameRequest(name=f"games/{uuid.uuid4()}")
    code, reason, _ = expect_error(export, unknown, metadata=as_operator, timeout=10)
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    malformed = audit_api.ExportGameRequest(name="games/NOT-A-UUID")
    code, reason, _ = expect_error(export, malformed, metadata=as_operator, timeout=10)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")


def test_a_server_without_an_operator_credential_refuses_every_export(
    postgres_url: str,
) -> None:
    server = start_server(postgres_url, dev=True)
    try:
        name, tokens = start_two_seats(server.stub)
        export = _audit(server).ExportGame
        request = audit_api.ExportGameRequest(name=name)
        for metadata in (None, auth(tokens[0]), auth("anything")):
            with pytest.raises(grpc.RpcError) as refused:
                export(request, metadata=metadata, timeout=10)
            code, reason, _ = error_of(refused.value)
            assert (code, reason) == (
                grpc.StatusCode.PERMISSION_DENIED,
                "OPERATOR_ONLY",
            )
            message = cast("grpc.Call", refused.value).details() or ""
            assert "No operator credential is configured" in message
    finally:
        assert server.stop() == 0


def test_the_audit_service_reports_health_and_serves_reflection(
    audited: Server,
) -> None:
    status = health_status(audited.channel, AUDIT_SERVICE)
    assert status == health_pb2.HealthCheckResponse.SERVING
    database = ProtoReflectionDescriptorDatabase(audited.channel)
    assert AUDIT_SERVICE in database.get_services()
