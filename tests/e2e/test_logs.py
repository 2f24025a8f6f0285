"""A server's logs, even at DEBUG, hold no credential and no hidden tile.

Logs travel further than the database (terminals, log shippers, bug reports),
so a seat token there is a stolen seat and a rack there is a spoiled game. The
server runs at DEBUG with its stdout and stderr kept; a Qwirkle game is played
for a few moves, calls fail on purpose, and then every form a secret could
take in the output is looked for, in the text logs and in the JSON ones.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from grpc_health.v1 import health_pb2
from tabletop.v1 import (
    common_pb2,
    game_audit_service_pb2,
    game_audit_service_pb2_grpc,
    game_pb2,
    game_service_pb2_grpc,
    move_pb2,
    qwirkle_pb2,
)
from tabletop.v1 import game_service_pb2 as api

from domain.games.qwirkle.model import Color, Shape, Tile
from services.api.calls import Metadata, serve
from tests.e2e.client import auth, expect_error, get, health_status, legal_moves
from tests.e2e.client import submit as submit_move

SEED = bytes(range(100, 132))
FAR_AWAY = common_pb2.Coordinate(x=50, y=50)
_LISTENING = re.compile(r"listening on ([\d.]+):(\d+)")
# What a tile looks like however it is written: a dataclass or enum repr, the
# stored JSON, protobuf text format. Nothing in a log should spell a tile.
TILE_FORMS = ("Tile(", "Color.", "Shape.", '"_type"', "QWIRKLE_COLOR_", "color: ")


def test_debug_logs_hold_no_token_and_no_hidden_tile(
    postgres_url: str, tmp_path: Path
) -> None:
    output, name = run_and_check(postgres_url, tmp_path / "server.log", "text")
    assert "DEBUG" in output, "the server did log at DEBUG"
    assert name in output  # the audit export is logged


def test_json_logs_are_objects_with_the_call_fields_and_no_secret(
    postgres_url: str, tmp_path: Path
) -> None:
    log_path = tmp_path / "server.log"
    _, name = run_and_check(postgres_url, log_path, "json")
    entries = [json.loads(line) for line in log_path.read_text().splitlines()]
    assert {"DEBUG", "INFO"} <= {entry["level"] for entry in entries}
    for entry in entries:
        assert {"time", "level", "logger", "message"} <= entry.keys()
        assert entry["time"].endswith("Z")
    (export,) = [e for e in entries if e.get("method", "").endswith("/ExportGame")]
    assert export["method"] == "tabletop.v1.GameAuditService/ExportGame"
    assert export["game_id"] == name.removeprefix("games/")


def run_and_check(database: str, log_path: Path, log_format: str) -> tuple[str, str]:
    """Plays, fails on purpose, stops; checks that the output holds no secret.

    Returns the output (stdout and stderr) and the game's name.
    """
    operator = secrets.token_urlsafe(24)
    process, channel = start_debug_server(database, operator, log_path, log_format)
    try:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        name, tokens = play_a_few_moves(stub)
        wrong = secrets.token_urlsafe(32)
        fail_on_purpose(stub, channel, name, tokens, wrong, operator)
        racks = [rack_of(stub, name, token) for token in tokens]
    finally:
        channel.close()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    assert process.stdout is not None
    output = process.stdout.read() + log_path.read_text(encoding="utf-8")
    for secret in (*tokens, operator, wrong, SEED.hex()):
        assert secret not in output
    for form in TILE_FORMS:
        assert form not in output
    for tile in {tile for rack in racks for tile in rack}:
        assert tile not in output
    return output, name


def test_a_bug_is_logged_without_the_values_its_message_holds(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = Tile(Color.RED, Shape.STARBURST)

    def buggy(request: object, metadata: Metadata) -> None:
        seen: dict[Tile, int] = {}
        try:
            seen[secret]
        except KeyError as error:
            msg = f"not a Qwirkle event: {(secret, request, metadata)!r}"
            raise TypeError(msg) from error

    context = AbortingContext()
    with caplog.at_level(logging.DEBUG), pytest.raises(grpc.RpcError):
        asyncio.run(serve(context, buggy, "request"))
    assert context.code == grpc.StatusCode.INTERNAL
    logged = caplog.text
    assert "unhandled error in buggy" in logged
    assert "KeyError: (withheld)" in logged
    assert "TypeError: (withheld)" in logged
    assert "seen[secret]" in logged  # the frames are kept, they are code
    for leak in ("Tile(", "starburst", "Bearer", "s3cret"):
        assert leak not in logged


class AbortingContext:
    """The part of a ``grpc.aio`` servicer context that ``serve`` uses."""

    def __init__(self) -> None:
        self.code: grpc.StatusCode | None = None

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", "Bearer s3cret"),)

    async def abort_with_status(self, status: grpc.Status) -> None:
        self.code = status.code
        raise grpc.RpcError


def start_debug_server(
    database: str, operator_token: str, log_path: Path, log_format: str = "text"
) -> tuple[subprocess.Popen[str], grpc.Channel]:
    """Starts ``tabletop serve --log-level DEBUG``; its stderr goes to a file.

    Like ``tests.e2e.conftest.start_server`` (which logs at WARNING and leaves
    stderr to the terminal), with the operator token in the environment.
    """
    command = [sys.executable, "-m", "infra.cli", "serve", "--listen", "127.0.0.1:0"]
    command += ["--database", database, "--log-level", "DEBUG", "--dev"]
    command += ["--log-format", log_format]
    env = {"TABLETOP_OPERATOR_TOKEN": operator_token}
    with log_path.open("w", encoding="utf-8") as log_file:
        process = subprocess.Popen(  # noqa: S603 (our own CLI)
            command,
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
            env={**_environ(), **env},
        )
    assert process.stdout is not None
    found = _LISTENING.search(process.stdout.readline())
    if found is None:
        process.kill()
        msg = f"server did not start: {log_path.read_text(encoding='utf-8')}"
        raise AssertionError(msg)
    channel = grpc.insecure_channel(f"{found.group(1)}:{found.group(2)}")
    deadline = time.monotonic() + 20
    while True:
        try:
            if health_status(channel) == health_pb2.HealthCheckResponse.SERVING:
                return process, channel
        except grpc.RpcError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.05)


def play_a_few_moves(
    stub: game_service_pb2_grpc.GameServiceStub,
) -> tuple[str, list[str]]:
    """Opens a two-seat Qwirkle table and plays four moves; returns its tokens."""
    created = stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Ana",
            seed=SEED,
            request_id="log-test-create",
        ),
        timeout=10,
    )
    name = created.game.name
    joined = stub.JoinGame(api.JoinGameRequest(name=name, display_name="Ben"))
    tokens = [created.seat_token, joined.seat_token]
    stub.StartGame(api.StartGameRequest(name=name), metadata=auth(tokens[0]))
    played = 0
    while played < 4:  # a few moves, both seats
        for token in tokens:
            revision, moves = legal_moves(stub, name, token)
            placing = [m for m in moves if m.qwirkle.HasField("place_tiles")]
            if placing:
                submit_move(stub, name, token, placing[0], revision)
                played += 1
    return name, tokens


def fail_on_purpose(
    stub: game_service_pb2_grpc.GameServiceStub,
    channel: grpc.Channel,
    name: str,
    tokens: list[str],
    wrong: str,
    operator: str,
) -> None:
    """Makes calls the server refuses: bad tokens, bad moves, audit calls."""
    expect_error(get, stub, name, wrong)
    bad_header = (("authorization", f"Token {wrong}"),)
    expect_error(stub.GetGame, api.GetGameRequest(name=name), metadata=bad_header)
    rack = rack_tiles(stub, name, tokens[0])
    far_away = move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            place_tiles=qwirkle_pb2.QwirklePlaceTiles(
                placements=[qwirkle_pb2.QwirklePlacement(tile=rack[0], at=FAR_AWAY)]
            )
        )
    )
    for token in tokens:  # one is not to move, the other's tile is not adjacent
        expect_error(submit_move, stub, name, token, far_away)
    exchange = move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            exchange_tiles=qwirkle_pb2.QwirkleExchangeTiles(tiles=[rack[0]] * 7)
        )
    )
    expect_error(submit_move, stub, name, tokens[0], exchange)
    audit = game_audit_service_pb2_grpc.GameAuditServiceStub(channel)
    export = game_audit_service_pb2.ExportGameRequest(name=name)
    expect_error(audit.ExportGame, export, metadata=auth(wrong))
    assert audit.ExportGame(export, metadata=auth(operator)).records


def rack_tiles(
    stub: game_service_pb2_grpc.GameServiceStub, name: str, token: str
) -> list[qwirkle_pb2.QwirkleTile]:
    """Returns the tiles on the token's rack."""
    return list(get(stub, name, token).qwirkle_view.private_state.rack)


def rack_of(
    stub: game_service_pb2_grpc.GameServiceStub, name: str, token: str
) -> list[str]:
    """Returns the token's rack as the domain writes tiles (``red-circle``)."""
    return [
        f"{_word(qwirkle_pb2.QwirkleColor, tile.color)}-"
        f"{_word(qwirkle_pb2.QwirkleShape, tile.shape)}"
        for tile in rack_tiles(stub, name, token)
    ]


def _word(enum: EnumTypeWrapper, number: int) -> str:
    return enum.Name(number).split("_", 2)[2].lower()


def _environ() -> dict[str, str]:
    environ = dict(os.environ)
    environ.pop("TABLETOP_OPERATOR_TOKEN", None)
    return environ
