"""A small client over the generated stubs, as a mobile app would use them."""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable
from typing import Any, TypeVar, cast

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status
from tabletop.v1 import (
    game_audit_service_pb2,
    game_audit_service_pb2_grpc,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    move_pb2,
)

from services.audit import Report, verify
from services.signing import parse_public_key

R = TypeVar("R")
STREAM_DEADLINE = 120  # seconds: a followed stream may not hang the suite


def auth(token: str) -> tuple[tuple[str, str], ...]:
    """Returns call metadata that presents a seat token."""
    return (("authorization", f"Bearer {token}"),)


def error_of(error: grpc.RpcError) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    """Returns the code, ``ErrorInfo.reason`` and metadata of a failed call."""
    call = cast("grpc.Call", error)  # errors raised by stubs are also calls
    status = rpc_status.from_call(call)
    assert status is not None, "every error carries a google.rpc.Status"
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            assert info.domain == "tabletop.games"
            return call.code(), info.reason, dict(info.metadata)
    msg = "the error has no ErrorInfo"
    raise AssertionError(msg)


def expect_error(
    call: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    """Calls and returns the error it must fail with."""
    try:
        call(*args, **kwargs)
    except grpc.RpcError as error:
        return error_of(error)
    msg = "the call succeeded but was expected to fail"
    raise AssertionError(msg)


def create_qwirkle(
    stub: game_service_pb2_grpc.GameServiceStub, name: str = "Ana", seed: bytes = b""
) -> game_service_pb2.CreateGameResponse:
    """Opens a Qwirkle table."""
    return stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name=name,
            seed=seed,
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )


def submit(
    stub: game_service_pb2_grpc.GameServiceStub,
    game: str,
    token: str,
    move: move_pb2.Move,
    expected_revision: int = 0,
) -> game_service_pb2.SubmitMoveResponse:
    """Submits a move for the seat of ``token``."""
    return stub.SubmitMove(
        game_service_pb2.SubmitMoveRequest(
            name=game,
            move=move,
            expected_revision=expected_revision,
            request_id=str(uuid.uuid4()),
        ),
        metadata=auth(token),
        timeout=10,
    )


def get(
    stub: game_service_pb2_grpc.GameServiceStub, game: str, token: str | None = None
) -> game_pb2.Game:
    """Returns the game as the token's seat (or a spectator) sees it."""
    reply = stub.GetGame(
        game_service_pb2.GetGameRequest(name=game),
        metadata=auth(token) if token else None,
        timeout=10,
    )
    return reply.game


def health_status(channel: grpc.Channel, service: str = "") -> int:
    """Returns the serving status the standard health service reports."""
    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
        response_deserializer=health_pb2.HealthCheckResponse.FromString,
    )
    reply: health_pb2.HealthCheckResponse = check(
        health_pb2.HealthCheckRequest(service=service), timeout=5
    )
    return reply.status


def seat_of(player: str) -> int:
    """Returns the seat index of a player resource name."""
    return int(player.rsplit("/", 1)[1])


def legal_moves(
    stub: game_service_pb2_grpc.GameServiceStub, game: str, token: str
) -> tuple[int, list[move_pb2.Move]]:
    """Returns the revision and every legal move of the token's seat, all pages."""
    moves: list[move_pb2.Move] = []
    page_token = ""
    revision = 0
    while True:
        reply = stub.ListLegalMoves(
            game_service_pb2.ListLegalMovesRequest(
                name=game, page_size=200, page_token=page_token
            ),
            metadata=auth(token),
            timeout=10,
        )
        moves.extend(reply.moves)
        revision = reply.revision
        page_token = reply.next_page_token
        if not page_token:
            return revision, moves


def play_to_end(
    stub: game_service_pb2_grpc.GameServiceStub,
    game: str,
    tokens: list[str],
    choose: Callable[[list[move_pb2.Move]], move_pb2.Move],
) -> list[tuple[int, move_pb2.Move]]:
    """Plays legal moves until the game finishes; returns (seat, move) in order."""
    played: list[tuple[int, move_pb2.Move]] = []
    current = get(stub, game, tokens[0])
    while current.state == game_pb2.GAME_STATE_IN_PROGRESS:
        seat = seat_of(current.current_player)
        revision, moves = legal_moves(stub, game, tokens[seat])
        move = choose(moves)
        reply = submit(stub, game, tokens[seat], move, expected_revision=revision)
        played.append((seat, move))
        current = reply.game
    return played


def seat_two(
    stub: game_service_pb2_grpc.GameServiceStub, seed: bytes = b""
) -> tuple[str, list[str]]:
    """Opens a Qwirkle table and seats Ana and Ben; returns name and tokens."""
    created = create_qwirkle(stub, "Ana", seed)
    name = created.game.name
    joined = stub.JoinGame(
        game_service_pb2.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    )
    return name, [created.seat_token, joined.seat_token]


def start_two_seats(
    stub: game_service_pb2_grpc.GameServiceStub, seed: bytes = b""
) -> tuple[str, list[str]]:
    """Opens a Qwirkle table, seats Ana and Ben and starts; returns name and tokens."""
    name, tokens = seat_two(stub, seed)
    stub.StartGame(
        game_service_pb2.StartGameRequest(name=name),
        metadata=auth(tokens[0]),
        timeout=10,
    )
    return name, tokens


def signing_key(channel: grpc.Channel) -> game_audit_service_pb2.GetSigningKeyResponse:
    """Returns the public key that signs the server's exports (open to everyone)."""
    stub = game_audit_service_pb2_grpc.GameAuditServiceStub(channel)
    return stub.GetSigningKey(game_audit_service_pb2.GetSigningKeyRequest(), timeout=10)


def export(channel: grpc.Channel, game: str, operator_token: str) -> str:
    """Returns the operator's signed export of a game."""
    stub = game_audit_service_pb2_grpc.GameAuditServiceStub(channel)
    reply = stub.ExportGame(
        game_audit_service_pb2.ExportGameRequest(name=game),
        metadata=auth(operator_token),
        timeout=30,
    )
    return reply.records


def verified_export(channel: grpc.Channel, game: str, operator_token: str) -> Report:
    """Exports a game with the operator credential and verifies the record.

    The signatures are checked with the public key the server serves.
    """
    key = parse_public_key(signing_key(channel).text)
    return verify(export(channel, game, operator_token), public_keys=[key])


class Spectator:
    """Follows a game's stream in a background thread until the server ends it."""

    def __init__(self, stub: game_service_pb2_grpc.GameServiceStub, name: str) -> None:
        self.items: list[game_service_pb2.StreamGameResponse] = []
        self.code: grpc.StatusCode | None = None
        self.call = stub.StreamGame(
            game_service_pb2.StreamGameRequest(name=name), timeout=STREAM_DEADLINE
        )
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        # A stream that ends with an error (or is cancelled when its channel
        # closes) raises from the iteration; its code says how it ended.
        with contextlib.suppress(grpc.RpcError):
            for item in self.call:
                self.items.append(item)
        self.code = self.call.code()

    def finish(self) -> list[game_service_pb2.StreamGameResponse]:
        """Waits for the stream to end; returns every item."""
        self.thread.join(STREAM_DEADLINE)
        assert not self.thread.is_alive()
        return self.items
