"""Bad input gets the right status and reason, and stores nothing."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import grpc
import pytest
from tabletop.v1 import common_pb2, game_service_pb2, move_pb2, qwirkle_pb2

from tests.e2e.client import (
    auth,
    create_qwirkle,
    expect_error,
    get,
    play_to_end,
    seat_of,
    start_two_seats,
    submit,
)
from tests.e2e.conftest import Server, start_server
from tests.e2e.test_qwirkle_game import SEED

Tile = qwirkle_pb2.QwirkleTile


@dataclass(frozen=True)
class Table:
    """A started game: its name, the seat tokens, the seat to move and its rack."""

    name: str
    tokens: list[str]
    seat: int
    rack: list[Tile]

    @property
    def mover(self) -> str:
        """Returns the token of the seat to move."""
        return self.tokens[self.seat]


@dataclass(frozen=True)
class Attempt:
    """A SubmitMove call: which game, with which token, which move."""

    game: str
    token: str | None
    move: move_pb2.Move


def _place(*cells: tuple[Tile, int, int]) -> move_pb2.Move:
    placements = [
        qwirkle_pb2.QwirklePlacement(tile=tile, at=common_pb2.Coordinate(x=x, y=y))
        for tile, x, y in cells
    ]
    return move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            place_tiles=qwirkle_pb2.QwirklePlaceTiles(placements=placements)
        )
    )


def _missing_tile(rack: list[Tile]) -> Tile:
    names = qwirkle_pb2.QwirkleColor.Name, qwirkle_pb2.QwirkleShape.Name
    held = {(names[0](t.color), names[1](t.shape)) for t in rack}
    for color in qwirkle_pb2.QwirkleColor.keys()[1:]:
        for shape in qwirkle_pb2.QwirkleShape.keys()[1:]:
            if (color, shape) not in held:
                return Tile(color=color, shape=shape)
    msg = "a rack of six cannot hold all 36 tiles"
    raise AssertionError(msg)


def _not_held(t: Table) -> Attempt:
    return Attempt(t.name, t.mover, _place((_missing_tile(t.rack), 0, 0)))


def _duplicate(t: Table) -> Attempt:
    return Attempt(t.name, t.mover, _place((t.rack[0], 0, 0), (t.rack[0], 1, 0)))


def _far_off(t: Table) -> Attempt:
    return Attempt(t.name, t.mover, _place((t.rack[0], 1_000_000, 0)))


def _no_coordinate(t: Table) -> Attempt:
    placement = qwirkle_pb2.QwirklePlacement(tile=t.rack[0])
    move = move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            place_tiles=qwirkle_pb2.QwirklePlaceTiles(placements=[placement])
        )
    )
    return Attempt(t.name, t.mover, move)


def _no_colour(t: Table) -> Attempt:
    tile = Tile(shape=qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE)
    return Attempt(t.name, t.mover, _place((tile, 0, 0)))


def _other_game_type(t: Table) -> Attempt:
    # A client built against a newer schema sends another game's move (field 2).
    move = move_pb2.Move()
    move.MergeFromString(b"\x12\x00")
    return Attempt(t.name, t.mover, move)


def _out_of_turn(t: Table) -> Attempt:
    return Attempt(t.name, t.tokens[1 - t.seat], _place((t.rack[0], 0, 0)))


def _no_token(t: Table) -> Attempt:
    return Attempt(t.name, None, _place((t.rack[0], 0, 0)))


def _wrong_token(t: Table) -> Attempt:
    return Attempt(t.name, "not-a-seat-token", _place((t.rack[0], 0, 0)))


def _unknown_game(t: Table) -> Attempt:
    return Attempt(f"games/{uuid.uuid4()}", t.mover, _place((t.rack[0], 0, 0)))


def _bad_name(t: Table) -> Attempt:
    return Attempt("tables/7", t.mover, _place((t.rack[0], 0, 0)))


CASES: dict[str, tuple[Callable[[Table], Attempt], grpc.StatusCode, str]] = {
    "a tile the seat does not hold": (
        _not_held,
        grpc.StatusCode.FAILED_PRECONDITION,
        "TILE_NOT_IN_RACK",
    ),
    "a duplicate tile": (
        _duplicate,
        grpc.StatusCode.INVALID_ARGUMENT,
        "DUPLICATE_TILE",
    ),
    "a coordinate far off the grid": (
        _far_off,
        grpc.StatusCode.INVALID_ARGUMENT,
        "COORDINATE_OUT_OF_RANGE",
    ),
    "a placement without a coordinate": (
        _no_coordinate,
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_MOVE",
    ),
    "a tile of no colour": (
        _no_colour,
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_MOVE",
    ),
    "a move for another game type": (
        _other_game_type,
        grpc.StatusCode.INVALID_ARGUMENT,
        "GAME_TYPE_MISMATCH",
    ),
    "a move out of turn": (
        _out_of_turn,
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
    ),
    "a missing token": (
        _no_token,
        grpc.StatusCode.UNAUTHENTICATED,
        "MISSING_CREDENTIALS",
    ),
    "a wrong token": (
        _wrong_token,
        grpc.StatusCode.UNAUTHENTICATED,
        "INVALID_CREDENTIALS",
    ),
    "an unknown game": (_unknown_game, grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"),
    "a malformed game name": (
        _bad_name,
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_NAME",
    ),
}


@pytest.fixture
def table(server: Server) -> Table:
    """Returns a started two-seat game."""
    name, tokens = start_two_seats(server.stub, SEED)
    seat = seat_of(get(server.stub, name).current_player)
    rack = list(get(server.stub, name, tokens[seat]).qwirkle_view.private_state.rack)
    return Table(name, tokens, seat, rack)


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_move_is_refused_with_its_reason_and_stores_nothing(
    server: Server, table: Table, case: str
) -> None:
    build, code, reason = CASES[case]
    before = get(server.stub, table.name).revision
    attempt = build(table)
    got = expect_error(
        server.stub.SubmitMove,
        game_service_pb2.SubmitMoveRequest(name=attempt.game, move=attempt.move),
        metadata=auth(attempt.token) if attempt.token else None,
        timeout=10,
    )
    assert got[:2] == (code, reason)
    assert get(server.stub, table.name).revision == before


def test_a_move_after_the_game_ended_is_refused(server: Server) -> None:
    name, tokens = start_two_seats(server.stub, SEED)
    play_to_end(server.stub, name, tokens, random.Random(3).choice)
    finished = get(server.stub, name)
    tile = Tile(
        color=qwirkle_pb2.QWIRKLE_COLOR_RED, shape=qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE
    )
    code, reason, _ = expect_error(
        submit, server.stub, name, tokens[0], _place((tile, 50, 50))
    )
    assert (code, reason) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_IN_PROGRESS",
    )
    assert get(server.stub, name).revision == finished.revision


def test_a_client_seed_is_refused_outside_development_mode(postgres_url: str) -> None:
    server = start_server(postgres_url, dev=False)
    try:
        code, reason, _ = expect_error(create_qwirkle, server.stub, "Ana", SEED)
        assert (code, reason) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "CLIENT_SEED_NOT_ALLOWED",
        )
    finally:
        assert server.stop() == 0
