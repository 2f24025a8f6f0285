"""The operator exports a game from a real server and verifies it offline."""

from __future__ import annotations

import json
import os
import random
import secrets
import socket
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


def _cli(*arguments: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """Runs ``tabletop audit ...`` (the operator token from the environment)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    if token is not None:
        env["TABLETOP_OPERATOR_TOKEN"] = token
    return subprocess.run(  # noqa: S603 (our own CLI)
        [sys.executable, "-m", "infra.cli", "audit", *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_operator_exports_a_finished_game_with_the_cli_and_it_verifies(
    audited: Server, operator_token: str, tmp_path: Path
) -> None:
    name, tokens = start_two_seats(audited.stub, SEED)
    play_to_end(audited.stub, name, tokens, random.Random(7).choice)
    token_file = tmp_path / "operator-token"
    token_file.write_text(operator_token + "\n", encoding="utf-8")
    game_id = name.removeprefix("games/")
    exported = tmp_path / "game.jsonl"
    with exported.open("wb") as output:  # tabletop audit export ... > game.jsonl
        written = subprocess.run(  # noqa: S603 (our own CLI)
            [
                *(sys.executable, "-m", "infra.cli", "audit", "export", game_id),
                *("--server", audited.address, "--operator-token-file", token_file),
            ],
            stdout=output,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=60,
            check=False,
        )
    assert written.returncode == 0, written.stderr
    assert written.stderr == b""
    lines = exported.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["game"] == name
    assert json.loads(lines[-1])["seed"] == SEED.hex()
    verified = _verify(exported, _public_key(audited))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "RESULT: VERIFIED" in verified.stdout
    assert "signature:           valid" in verified.stdout
    # The token may come from the environment, as serve reads it.
    again = _cli("export", name, "--server", audited.address, token=operator_token)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:] == lines[1:]  # the header's time differs


def _free_address() -> str:
    """Returns a loopback address nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def test_an_export_the_cli_cannot_make_is_one_line_and_a_failing_status(
    audited: Server, operator_token: str
) -> None:
    name, _ = start_two_seats(audited.stub)
    server = ("--server", audited.address)
    cases = [
        # (arguments, operator token, exit status, start of the one line)
        (("export", f"games/{uuid.uuid4()}", *server), operator_token, 1,
         "tabletop: NOT_FOUND GAME_NOT_FOUND: "),
        (("export", name, *server), operator_token + "x", 1,
         "tabletop: PERMISSION_DENIED OPERATOR_ONLY: "),
        (("export", name, "--server", _free_address()), operator_token, 1,
         "tabletop: UNAVAILABLE: the server does not answer"),
        (("export", name, *server), None, 2,
         "tabletop: audit export needs the server's operator token"),
        (("export", name, *server, "--operator-token-file", "/nonexistent"), None, 2,
         "tabletop: cannot read the operator token file '/nonexistent'"),
        (("export", "games/not a game", *server), operator_token, 2,
         "tabletop: not a game id: "),
    ]  # fmt: skip
    for arguments, token, status, line in cases:
        failed = _cli(*arguments, token=token)
        assert failed.returncode == status, (arguments, failed.stderr)
        assert failed.stdout == ""
        assert len(failed.stderr.splitlines()) == 1, failed.stderr
        assert failed.stderr.startswith(line), failed.stderr


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
