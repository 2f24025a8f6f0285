"""Requests past a limit of shape are refused before conversion or a game load."""

from __future__ import annotations

import contextlib
import itertools
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import (
    common_pb2,
    game_pb2,
    game_service_pb2_grpc,
    gnoming_a_round_pb2,
    hues_and_cues_pb2,
    move_pb2,
    qwirkle_pb2,
    split_pb2,
)
from tabletop.v1 import game_service_pb2 as api

from domain.common.decision import Rejected
from domain.common.seats import Seat, Spectator, Viewer
from domain.common.table import TableStatus
from infra.server import create_server, stop_server
from infra.settings import Settings
from services.api import game_servicer
from services.api.convert.game import game_name, game_to_proto
from services.api.convert.moves import command_from_request
from services.api.convert.registry import CONVERTERS
from services.api.errors import ApiError
from services.api.shape_limits import LIMITS
from services.api.shapes import FIELD_LIMITS, SERVICES, oversized
from services.feed import Feed
from services.games import Applied, GamesApp
from services.records import GameRecord
from tests.helpers import error_info, status_details
from tests.playing import always

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


def placements(count: int) -> move_pb2.Move:
    """Returns a Qwirkle placement of ``count`` tiles on small coordinates."""
    tile = qwirkle_pb2.QwirkleTile(
        color=qwirkle_pb2.QWIRKLE_COLOR_RED, shape=qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE
    )
    return move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            place_tiles=qwirkle_pb2.QwirklePlaceTiles(
                placements=[
                    qwirkle_pb2.QwirklePlacement(
                        tile=tile, at=common_pb2.Coordinate(x=i % 60, y=i // 60 % 60)
                    )
                    for i in range(count)
                ]
            )
        )
    )


def refusal(request: Message) -> tuple[grpc.StatusCode, str, dict[str, str], str]:
    """Returns the code, reason, metadata and violated field of a refused request."""
    found = oversized(request)
    assert found is not None
    error = ApiError(found.status())
    request_detail = error_details_pb2.BadRequest()
    # Unpack is False for a detail of another type.
    assert any(d.Unpack(request_detail) for d in status_details(error).details)
    (violation,) = request_detail.field_violations
    info = error_info(error)
    assert info.domain == "tabletop.games"
    return error.status.code, info.reason, dict(info.metadata), violation.field


def test_a_qwirkle_move_of_74000_placements_is_refused_by_its_count() -> None:
    request = api.SubmitMoveRequest(name="games/x", move=placements(74_000))
    assert len(request.SerializeToString()) > 1_000_000
    code, reason, metadata, field = refusal(request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert reason == "TOO_MANY_VALUES"
    assert field == "move.qwirkle.place_tiles.placements"
    assert metadata == {
        "field": "move.qwirkle.place_tiles.placements",
        "limit": "6",
        "size": "74000",
    }
    found = oversized(request)
    assert found is not None
    assert found.status().details == (
        "move.qwirkle.place_tiles.placements holds 74000 values; "
        "at most 6 are allowed."
    )


@dataclass(frozen=True)
class Case:
    """A request with ``n`` values or characters in a field, refused past ``limit``."""

    build: Callable[[int], Message]
    field: str
    reason: str
    limit: int


def _game(**fields: Any) -> api.CreateGameRequest:
    return api.CreateGameRequest(game=game_pb2.Game(**fields), display_name="Ana")


def _qwirkle(**action: Any) -> api.SubmitMoveRequest:
    return api.SubmitMoveRequest(
        move=move_pb2.Move(qwirkle=qwirkle_pb2.QwirkleMove(**action))
    )


TILE = qwirkle_pb2.QwirkleTile(
    color=qwirkle_pb2.QWIRKLE_COLOR_ORANGE, shape=qwirkle_pb2.QWIRKLE_SHAPE_DIAMOND
)
CASES = {
    "placements": Case(
        lambda n: api.SubmitMoveRequest(move=placements(n)),
        "move.qwirkle.place_tiles.placements",
        "TOO_MANY_VALUES",
        6,
    ),
    "exchange": Case(
        lambda n: _qwirkle(
            exchange_tiles=qwirkle_pb2.QwirkleExchangeTiles(tiles=[TILE] * n)
        ),
        "move.qwirkle.exchange_tiles.tiles",
        "TOO_MANY_VALUES",
        6,
    ),
    "initial flip": Case(
        lambda n: api.SubmitMoveRequest(
            move=move_pb2.Move(
                gnoming_a_round=gnoming_a_round_pb2.GnomingARoundMove(
                    flip_initial=gnoming_a_round_pb2.GnomingARoundFlipInitial(
                        positions=list(range(n))
                    )
                )
            )
        ),
        "move.gnoming_a_round.flip_initial.positions",
        "TOO_MANY_VALUES",
        2,
    ),
    "cue": Case(
        lambda n: api.SubmitMoveRequest(
            move=move_pb2.Move(
                hues_and_cues=hues_and_cues_pb2.HuesAndCuesMove(
                    give_second_cue=hues_and_cues_pb2.HuesAndCuesGiveSecondCue(
                        cue="a" * n
                    )
                )
            )
        ),
        "move.hues_and_cues.give_second_cue.cue",
        "FIELD_TOO_LONG",
        160,
    ),
    "square": Case(
        lambda n: api.SubmitMoveRequest(
            move=move_pb2.Move(
                hues_and_cues=hues_and_cues_pb2.HuesAndCuesMove(
                    place_guess=hues_and_cues_pb2.HuesAndCuesPlaceGuess(
                        square=hues_and_cues_pb2.HuesAndCuesSquare(id="h" * n)
                    )
                )
            )
        ),
        "move.hues_and_cues.place_guess.square.id",
        "FIELD_TOO_LONG",
        4,
    ),
    "split card": Case(
        lambda n: api.SubmitMoveRequest(
            move=move_pb2.Move(
                split=split_pb2.SplitMove(
                    discard=split_pb2.SplitDiscard(card=split_pb2.SplitCard(id="1" * n))
                )
            )
        ),
        "move.split.discard.card.id",
        "FIELD_TOO_LONG",
        5,
    ),
    "display name": Case(
        lambda n: api.JoinGameRequest(display_name=" " * n),
        "display_name",
        "FIELD_TOO_LONG",
        160,
    ),
    "seed": Case(
        lambda n: api.CreateGameRequest(seed=b"\x00" * n), "seed", "FIELD_TOO_LONG", 32
    ),
    "request id": Case(
        lambda n: api.UndoMoveRequest(request_id="r" * n),
        "request_id",
        "FIELD_TOO_LONG",
        100,
    ),
    "name": Case(
        lambda n: api.GetGameRequest(name="g" * n), "name", "FIELD_TOO_LONG", 42
    ),
    "revision name": Case(
        lambda n: api.GetGameRevisionRequest(name="g" * n),
        "name",
        "FIELD_TOO_LONG",
        72,
    ),
    "filter": Case(
        lambda n: api.ListGamesRequest(filter="f" * n), "filter", "FIELD_TOO_LONG", 200
    ),
    "page token": Case(
        lambda n: api.ListGameEventsRequest(page_token="t" * n),
        "page_token",
        "FIELD_TOO_LONG",
        1000,
    ),
    "a player of a game sent back": Case(
        lambda n: _game(
            players=[game_pb2.Player(), game_pb2.Player(display_name="x" * n)]
        ),
        "game.players[1].display_name",
        "FIELD_TOO_LONG",
        160,
    ),
    "a winner of a game sent back": Case(
        lambda n: _game(winners=["", "", "w" * n]),
        "game.winners[2]",
        "FIELD_TOO_LONG",
        52,
    ),
    "winners of a game sent back": Case(
        lambda n: _game(winners=[""] * n), "game.winners", "TOO_MANY_VALUES", 10
    ),
    "a board sent back": Case(
        lambda n: _game(
            qwirkle_view=qwirkle_pb2.QwirkleView(
                public_state=qwirkle_pb2.QwirklePublicState(
                    board=[qwirkle_pb2.QwirklePlacement()] * n
                )
            )
        ),
        "game.qwirkle_view.public_state.board",
        "TOO_MANY_VALUES",
        108,
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_request_at_its_limit_fits_and_one_more_is_refused(case: Case) -> None:
    assert oversized(case.build(case.limit)) is None
    code, reason, metadata, field = refusal(case.build(case.limit + 1))
    assert (code, reason, field) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        case.reason,
        case.field,
    )
    assert metadata["limit"] == str(case.limit)
    assert metadata["size"] == str(case.limit + 1)


def test_text_is_measured_in_characters_and_bytes_in_bytes() -> None:
    assert oversized(api.JoinGameRequest(display_name="\U0001f469" * 160)) is None
    assert oversized(api.CreateGameRequest(seed=bytes(range(32)))) is None
    found = oversized(api.CreateGameRequest(seed=bytes(33)))
    assert found is not None
    assert "33 bytes" in found.status().details


def _started(app: GamesApp, game_type: str) -> tuple[GameRecord, list[str]]:
    """Returns a game of ``game_type`` started with every seat taken, and the tokens."""
    converter = CONVERTERS[game_type]
    config = converter.config_from_proto(
        getattr(game_pb2.Game(), converter.config_field)
    )
    created = app.create_game(game_type, config, 0, "P0")
    assert not isinstance(created, Rejected)
    game_id, tokens = created.record.game_id, [created.token]
    for seat in range(1, created.record.table.max_players):
        joined = app.join_game(game_id, f"P{seat}")
        assert not isinstance(joined, Rejected)
        tokens.append(joined.token)
    started = app.start_game(game_id, tokens[0])
    assert isinstance(started, Applied)
    return started.record, tokens


def _assert_views_fit(record: GameRecord) -> None:
    viewers: list[Viewer] = [Spectator(), *map(Seat, range(len(record.table.seats)))]
    games = [game_to_proto(record, viewer, full=True) for viewer in viewers]
    games.append(game_to_proto(record, Spectator(), full=True, reveal_all=True))
    for game in games:
        assert oversized(api.CreateGameRequest(game=game)) is None, game


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
        result = app.submit_move(record.game_id, tokens[seat], always(command))
        assert isinstance(result, Applied), result
        record = result.record
    assert record.table.status is TableStatus.FINISHED
    _assert_views_fit(record)


@contextlib.asynccontextmanager
async def serving(app: GamesApp, settings: Settings) -> AsyncIterator[grpc.aio.Channel]:
    """Yields a channel to an in-process server of ``app``."""
    feed = Feed(app, heartbeat_seconds=1)
    running = await create_server(settings, app, feed)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield channel
    finally:
        await channel.close()
        await stop_server(running, 1)
        app.close()


def counted(counts: Counter[str], key: str, function: Any) -> Any:
    """Returns ``function``, counting its calls under ``key``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        counts[key] += 1
        return function(*args, **kwargs)

    return call


async def _qwirkle_table(stub: Any) -> tuple[str, str]:
    """Opens and starts a two-seat Qwirkle game; returns it and the mover's token."""
    created = await stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE, max_players=2),
            display_name="Ana",
        )
    )
    name = created.game.name
    joined = await stub.JoinGame(api.JoinGameRequest(name=name, display_name="Ben"))
    tokens = [created.seat_token, joined.seat_token]
    auth = (("authorization", f"Bearer {tokens[0]}"),)
    started = await stub.StartGame(api.StartGameRequest(name=name), metadata=auth)
    seat = int(started.game.current_player.rsplit("/", 1)[1])
    return name, tokens[seat]


def _reason(error: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    (packed,) = [
        d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)
    ]
    packed.Unpack(info)
    return info.reason


async def test_a_move_refused_by_shape_is_neither_converted_nor_its_game_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    counts: Counter[str] = Counter()
    convert = counted(counts, "converted", command_from_request)
    monkeypatch.setattr(game_servicer, "command_from_request", convert)
    monkeypatch.setattr(app, "submit_move", counted(counts, "loaded", app.submit_move))
    settings = Settings(listen="127.0.0.1:0", reflection=False)
    async with serving(app, settings) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        name, token = await _qwirkle_table(stub)
        auth = (("authorization", f"Bearer {token}"),)
        # A move of a valid shape is converted and decided on the loaded game,
        # whether the rules accept it or not.
        with contextlib.suppress(grpc.aio.AioRpcError):
            await stub.SubmitMove(
                api.SubmitMoveRequest(name=name, move=placements(1)), metadata=auth
            )
        assert counts["converted"] >= 1
        assert counts["loaded"] >= 1
        before = counts.copy()
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.SubmitMove(
                api.SubmitMoveRequest(name=name, move=placements(74_000)),
                metadata=auth,
            )
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert _reason(refused.value) == "TOO_MANY_VALUES"
        assert counts == before


async def test_a_request_refused_by_shape_still_costs_its_caller_the_rate() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    # A burst of two and a bucket that refills only after some 17 minutes.
    settings = Settings(
        listen="127.0.0.1:0", reflection=False, rate_limit=0.001, rate_burst=2
    )
    async with serving(app, settings) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        codes = []
        for _ in range(3):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.GetGame(api.GetGameRequest(name="games/" + "x" * 10_000))
            codes.append((refused.value.code(), _reason(refused.value)))
    assert codes == [
        (grpc.StatusCode.INVALID_ARGUMENT, "FIELD_TOO_LONG"),
        (grpc.StatusCode.INVALID_ARGUMENT, "FIELD_TOO_LONG"),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED"),
    ]
