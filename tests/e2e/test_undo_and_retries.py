"""Undo and retried requests through two server processes on one PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest
from tabletop.v1 import game_pb2, move_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import (
    auth,
    expect_error,
    get,
    legal_moves,
    seat_of,
    start_two_seats,
)
from tests.e2e.conftest import Server, start_server
from tests.pg import fresh_schema

SEED = bytes(range(32))


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Server, Server]]:
    """Yields two development servers on one database."""
    with fresh_schema() as url:
        first = start_server(url, dev=True)
        second = start_server(url, dev=True)
        yield first, second
        assert first.stop() == 0
        assert second.stop() == 0


def _drawn(reply: api.SubmitMoveResponse) -> list[bytes]:
    return [
        e.qwirkle.tiles_drawn.SerializeToString()
        for e in reply.events
        if e.qwirkle.WhichOneof("event") == "tiles_drawn"
    ]


def _first_move(
    server: Server, name: str, tokens: list[str]
) -> tuple[int, move_pb2.Move]:
    seat = seat_of(get(server.stub, name).current_player)
    _, moves = legal_moves(server.stub, name, tokens[seat])
    return seat, moves[0]


def test_a_retried_move_through_another_process_returns_the_first_result(
    servers: tuple[Server, Server],
) -> None:
    a, b = servers
    name, tokens = start_two_seats(a.stub, SEED)
    seat, move = _first_move(a, name, tokens)
    request = api.SubmitMoveRequest(name=name, move=move, request_id=str(uuid.uuid4()))
    first = a.stub.SubmitMove(request, metadata=auth(tokens[seat]), timeout=10)
    again = b.stub.SubmitMove(request, metadata=auth(tokens[seat]), timeout=10)
    assert list(again.events) == list(first.events)
    assert get(b.stub, name).revision == first.game.revision

    other = api.SubmitMoveRequest(name=name, request_id=request.request_id)
    code, reason, _ = expect_error(
        b.stub.SubmitMove, other, metadata=auth(tokens[seat]), timeout=10
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REQUEST_ID_REUSED")


def test_a_retried_create_returns_the_same_game_and_seat_token(
    servers: tuple[Server, Server],
) -> None:
    a, b = servers
    request = api.CreateGameRequest(
        game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
        display_name="Ana",
        request_id=str(uuid.uuid4()),
    )
    first = a.stub.CreateGame(request, timeout=10)
    again = b.stub.CreateGame(request, timeout=10)
    assert (again.game.name, again.seat_token) == (first.game.name, first.seat_token)
    assert get(a.stub, first.game.name, again.seat_token).revision == 2


def test_a_takeback_by_consent_is_seen_by_spectators_and_never_rerolls(
    servers: tuple[Server, Server],
) -> None:
    a, b = servers
    name, tokens = start_two_seats(a.stub, SEED)
    seat, move = _first_move(a, name, tokens)
    played = a.stub.SubmitMove(
        api.SubmitMoveRequest(name=name, move=move),
        metadata=auth(tokens[seat]),
        timeout=10,
    )
    code, reason, _ = expect_error(
        b.stub.UndoMove,
        api.UndoMoveRequest(name=name),
        metadata=auth(tokens[seat]),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MOVE_NOT_UNDOABLE")

    proposed = b.stub.ProposeUndo(
        api.ProposeUndoRequest(name=name), metadata=auth(tokens[seat]), timeout=10
    )
    proposal = proposed.game.pending_undo
    assert proposal.proposal_id > 0
    answered = a.stub.RespondUndo(
        api.RespondUndoRequest(
            name=name, proposal_id=proposal.proposal_id, vote=api.UNDO_VOTE_ACCEPT
        ),
        metadata=auth(tokens[1 - seat]),
        timeout=10,
    )
    assert not answered.game.HasField("pending_undo")
    assert answered.game.current_player.endswith(f"/{seat}")

    log = b.stub.ListGameEvents(api.ListGameEventsRequest(parent=name), timeout=10)
    kinds = [e.WhichOneof("event") for e in log.events]
    assert "moves_undone" in kinds
    assert kinds.count("move_played") == 1  # the undone move stays in history

    replayed = b.stub.SubmitMove(
        api.SubmitMoveRequest(name=name, move=move),
        metadata=auth(tokens[seat]),
        timeout=10,
    )
    assert _drawn(replayed) == _drawn(played)
