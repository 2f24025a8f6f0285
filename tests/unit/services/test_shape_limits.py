"""Every list and text a request reaches has a limit; no valid request passes one."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from tabletop.v1 import (
    game_pb2,
    move_pb2,
)
from tabletop.v1 import game_service_pb2 as api

from domain.common.decision import Rejected
from domain.common.seats import Seat, Spectator, Viewer
from domain.common.table import TableStatus
from infra.server import MAX_REQUEST_BYTES
from services.api.convert.game import game_name, game_to_proto
from services.api.convert.registry import CONVERTERS
from services.api.shape_limits import LIMITS
from services.api.shapes import FIELD_LIMITS, SERVICES, oversized
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp
from services.records import GameRecord
from tests.playing import sent_move

_TEXT = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


def reachable() -> Iterator[FieldDescriptor]:
    """Yields every field of every message a request of our services reaches."""
    seen: set[str] = set()
    stack = [method.input_type for service in SERVICES for method in service.methods]
    while stack:
        message = stack.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        for field in message.fields:
            yield field
            if field.message_type is not None:
                stack.append(field.message_type)


def test_every_list_and_text_a_request_reaches_has_a_declared_limit() -> None:
    missing = []
    for field in reachable():
        limit = FIELD_LIMITS.get(field)
        if field.is_repeated and (limit is None or limit.values is None):
            missing.append(field.full_name)
        if field.type in _TEXT and (limit is None or limit.length is None):
            missing.append(field.full_name + ("[]" if field.is_repeated else ""))
    assert missing == [], "declare these in services/api/shape_limits.py"


def test_every_declared_limit_is_of_a_field_a_request_reaches() -> None:
    assert set(FIELD_LIMITS) <= set(reachable())
    assert len(FIELD_LIMITS) <= len(LIMITS)


def _started(app: GamesApp, game_type: str) -> tuple[GameRecord, list[str]]:
    """Returns a game of ``game_type`` started with every seat taken, and the tokens."""
    converter = CONVERTERS[game_type]
    config = converter.config_from_proto(
        getattr(game_pb2.Game(), converter.config_field)
    )
    created = app.create_game(CreateGame(game_type, config, 0, "P0"))
    assert not isinstance(created, Rejected)
    game_id, tokens = created.record.game_id, [created.token]
    for seat in range(1, created.record.table.max_players):
        joined = app.join_game(JoinGame(game_id, f"P{seat}"))
        assert not isinstance(joined, Rejected)
        tokens.append(joined.token)
    started = app.start_game(SeatRequest(game_id, Call(tokens[0])))
    assert isinstance(started, Applied)
    return started.record, tokens


def _assert_views_fit(record: GameRecord) -> None:
    viewers: list[Viewer] = [Spectator(), *map(Seat, range(len(record.table.seats)))]
    games = [game_to_proto(record, viewer, full=True) for viewer in viewers]
    games.append(game_to_proto(record, Spectator(), full=True, reveal_all=True))
    for game in games:
        request = api.CreateGameRequest(game=game)
        assert oversized(request) is None, game
        assert request.ByteSize() < MAX_REQUEST_BYTES // 4  # far under gRPC's limit


def _assert_moves_fit(record: GameRecord, seats: tuple[int, ...]) -> list[Any]:
    converter = CONVERTERS[record.table.game_type]
    name = game_name(record.game_id)
    moves = []
    for seat in seats:
        legal = record.rules.legal_moves(record.table.game, seat)
        for command in itertools.islice(legal, 40):
            move = move_pb2.Move()
            getattr(move, converter.move_field).CopyFrom(
                converter.move_to_proto(command)
            )
            request = api.SubmitMoveRequest(name=name, move=move, request_id="r" * 36)
            assert oversized(request) is None, request
            moves.append((seat, command))
    return moves


@pytest.mark.parametrize("game_type", sorted(CONVERTERS))
def test_every_legal_move_and_every_view_of_a_full_table_fits(game_type: str) -> None:
    """Limits no valid request reaches: moves, and any Game the server sent back."""
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    record, tokens = _started(app, game_type)
    chooser = random.Random(game_type)
    for turn in itertools.count():
        if record.table.status is not TableStatus.IN_PROGRESS or turn > 3000:
            break
        if turn % 15 == 0:
            _assert_views_fit(record)
        moves = _assert_moves_fit(record, record.rules.to_move(record.table.game))
        seat, command = chooser.choice(moves)
        result = app.submit_move(
            SubmitMove(record.game_id, sent_move(command), Call(tokens[seat]))
        )
        assert isinstance(result, Applied), result
        record = result.record
    assert record.table.status is TableStatus.FINISHED
    _assert_views_fit(record)
