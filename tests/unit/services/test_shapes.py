"""The shape check: a request past a limit is refused, its field and limit named."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from tabletop.v1 import (
    game_pb2,
    gnoming_a_round_pb2,
    hues_and_cues_pb2,
    move_pb2,
    qwirkle_pb2,
    split_pb2,
)
from tabletop.v1 import game_service_pb2 as api

from services.api.errors import ApiError
from services.api.shapes import oversized
from tests.helpers import error_info, qwirkle_placements_message, status_details

_TEXT = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


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
    request = api.SubmitMoveRequest(
        name="games/x", move=qwirkle_placements_message(74_000)
    )
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
        "move.qwirkle.place_tiles.placements holds 74000 values; at most 6 are allowed."
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
        lambda n: api.SubmitMoveRequest(move=qwirkle_placements_message(n)),
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
