"""A kept seat's tokens go only to the server they were kept for.

Anybody can name a game id that a player sits at on one server (ListGames shows
it) and ask them to ``--join`` it on another: were the kept seat resumed there,
its seat token and its bots' would go to that server's operator, who could play
the seat, and read its hand, on the first.
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import grpc
import pytest
from rich.console import Console
from tabletop.v1 import game_service_pb2_grpc

from infra.bot_command import _seat
from infra.terminal.connection import ClientError, Connection
from infra.terminal.lobby import SeatRequest, take_seat
from infra.terminal.seats import KeptBot, Seat, save_seat, seat_path

GAME = "games/0b7c8f7e-3f0a-4b8e-9d3e-1c2b3a4d5e6f"
KEPT_FOR = "tabletop.example:50051"
ELSEWHERE = "127.0.0.1:1"  # nothing answers there: no call may be needed


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seat:
    """A seat with a bot kept for KEPT_FOR under a temporary ``$XDG_STATE_HOME``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    bots = (KeptBot(f"{GAME}/players/1", "bot-secret"),)
    seat = Seat(GAME, f"{GAME}/players/0", "seat-secret", KEPT_FOR, bots=bots)
    save_seat(seat, seat_path(GAME))
    return seat


def _connection(server: str) -> Connection:
    channel = grpc.insecure_channel(server)
    return Connection(channel, game_service_pb2_grpc.GameServiceStub(channel))


def _request(server: str) -> SeatRequest:
    return SeatRequest(server, None, None, 0, GAME, None)


def test_a_kept_seat_is_resumed_on_its_own_server(kept: Seat) -> None:
    table = take_seat(
        _connection(KEPT_FOR), _request(KEPT_FOR), Console(file=io.StringIO())
    )
    assert table.seat == kept
    assert table.connection.metadata == (("authorization", "Bearer seat-secret"),)


def test_a_kept_seat_is_not_sent_to_another_server(kept: Seat) -> None:
    out = io.StringIO()
    with pytest.raises(ClientError) as refused:
        take_seat(_connection(ELSEWHERE), _request(ELSEWHERE), Console(file=out))
    message = str(refused.value)
    assert f"kept for {KEPT_FOR}" in message
    assert f"--server {KEPT_FOR}" in message
    assert "secret" not in message + out.getvalue()
    assert seat_path(GAME).exists()  # still kept, for its own server


def test_tabletop_bot_sends_no_kept_token_to_another_server(kept: Seat) -> None:
    args = argparse.Namespace(
        server=ELSEWHERE, seat_token_file=None, seat=1, name="Bot", code=""
    )
    stub = game_service_pb2_grpc.GameServiceStub(grpc.insecure_channel(ELSEWHERE))
    with pytest.raises(ClientError) as refused:
        _seat(stub, GAME, args)
    assert f"kept for {KEPT_FOR}" in str(refused.value)
