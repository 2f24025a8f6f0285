"""An audit export gives nobody a seat: request ids are secrets (decision T11).

The attack: a retry of ``CreateGame`` or ``JoinGame`` returns the seat's token,
so whoever holds a game's export tries every value in it as a request id (with
the public fields of the seat's request) and as a seat token.
"""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_audit_service_pb2 as audit_api
from tabletop.v1 import (
    game_audit_service_pb2_grpc,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
)

from tests.e2e.client import auth, error_of, legal_moves, seat_of, submit
from tests.e2e.conftest import Server, start_server


@pytest.fixture
def audited(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Server, str]]:
    """Yields a server in normal mode with an operator credential, and it.

    Its per-address limits on creating and joining are off: every value of
    the export is tried, and none may be refused for the rate instead.
    """
    for limit in ("CREATE_RATE_LIMIT", "JOIN_RATE_LIMIT", "MAX_WAITING_TABLES"):
        monkeypatch.setenv(f"TABLETOP_{limit}", "0")
    operator = secrets.token_urlsafe(32)
    running = start_server(postgres_url, dev=False, operator_token=operator)
    yield running, operator
    assert running.stop() == 0


def _strings(value: Any) -> Iterator[str]:
    """Yields every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _create(stub: game_service_pb2_grpc.GameServiceStub, _: str, rid: str) -> Any:
    return stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Ana",
            request_id=rid,
        ),
        timeout=10,
    )


def _join(stub: game_service_pb2_grpc.GameServiceStub, name: str, rid: str) -> Any:
    return stub.JoinGame(
        game_service_pb2.JoinGameRequest(name=name, display_name="Ben", request_id=rid),
        timeout=10,
    )


def _a_running_game(
    stub: game_service_pb2_grpc.GameServiceStub, ids: list[str]
) -> tuple[str, list[str]]:
    """Creates, joins (with request ids), starts and plays one move."""
    created = _create(stub, "", ids[0])
    name = created.game.name
    joined = _join(stub, name, ids[1])
    tokens = [created.seat_token, joined.seat_token]
    stub.StartGame(
        game_service_pb2.StartGameRequest(name=name, request_id=ids[2]),
        metadata=auth(tokens[0]),
        timeout=10,
    )
    game = stub.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=10).game
    mover = tokens[seat_of(game.current_player)]
    revision, moves = legal_moves(stub, name, mover)
    submit(stub, name, mover, moves[0], expected_revision=revision)
    return name, tokens


def test_no_value_of_an_export_obtains_a_seat_token(
    audited: tuple[Server, str],
) -> None:
    server, operator = audited
    ids = [str(uuid.uuid4()) for _ in range(3)]
    name, tokens = _a_running_game(server.stub, ids)
    exported = (
        game_audit_service_pb2_grpc.GameAuditServiceStub(server.channel)
        .ExportGame(
            audit_api.ExportGameRequest(name=name), metadata=auth(operator), timeout=30
        )
        .records
    )
    values = {
        text
        for line in exported.splitlines()
        for text in _strings(json.loads(line))
        if text
    }
    assert len(values) > 20
    obtained: set[str] = set()
    refusals: list[str] = []
    for value in sorted(values):
        for retry in (_create, _join):
            try:
                reply = retry(server.stub, name, value[:100])
            except grpc.RpcError as error:
                refusals.append(error_of(error)[1])
                continue
            if reply.game.name == name:
                obtained.add(reply.seat_token)
        if not (value.isascii() and value.isprintable()) or value != value.strip():
            continue  # not sendable as a header value: no client could present it
        try:
            server.stub.GetGame(
                game_service_pb2.GetGameRequest(name=name),
                metadata=auth(value),
                timeout=10,
            )
        except grpc.RpcError as error:
            code, reason, _ = error_of(error)
            assert (code, reason) in {
                (grpc.StatusCode.UNAUTHENTICATED, "INVALID_CREDENTIALS"),
                (grpc.StatusCode.UNAUTHENTICATED, "MALFORMED_CREDENTIALS"),
            }, (code, reason)
        else:
            obtained.add(value)
    assert "RATE_LIMITED" not in refusals  # every value was really tried
    assert not obtained & set(tokens), "an export value took a seat"
    assert not obtained
    for raw in ids:
        assert raw not in exported, "a raw request id is in the export"
