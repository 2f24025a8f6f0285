"""What every state-changing RPC shares: refusals, freshness, the reply's views."""

from __future__ import annotations

from typing import TypeVar

from tabletop.v1 import event_pb2, game_pb2

from domain.common.decision import Rejected
from domain.common.seats import Viewer
from services.api.convert.game import event_to_proto, game_to_proto
from services.api.errors import (
    ApiError,
    FieldViolation,
    bad_request,
    rejection_status,
)
from services.games import Applied, GamesApp
from services.records import GameRecord

T = TypeVar("T")

# The request field a table refusal is about, for BadRequest.field_violations.
_FIELDS = {
    "INVALID_DISPLAY_NAME": "display_name",
    "INVALID_PLAYER_COUNT": "game.max_players",
    "INVALID_SEED": "seed",
    "INVALID_TURN_TIME_LIMIT": "game.turn_time_limit",
    "UNKNOWN_GAME_TYPE": "game.game_type",
}


def accepted(result: T | Rejected) -> T:
    """Returns a use case's result, or raises the status of its refusal."""
    if isinstance(result, Rejected):
        raise ApiError(rejection_status(result, _FIELDS.get(result.reason, "")))
    return result


def caller(app: GamesApp, record: GameRecord, token: str | None) -> Viewer:
    """Returns who a call is in this game, or raises the refusal of its token."""
    viewer = app.caller(record, token)
    if isinstance(viewer, Rejected):
        raise ApiError(rejection_status(viewer))
    return viewer


def expected_revision(value: int) -> int:
    """Returns a request's ``expected_revision`` once it is known to be usable."""
    if value < 0:
        raise ApiError(
            bad_request(
                "INVALID_EXPECTED_REVISION",
                "expected_revision must not be negative (0 skips the check).",
                [FieldViolation("expected_revision", "must be >= 0")],
            )
        )
    return value


def seen_by_caller(
    app: GamesApp, applied: Applied, token: str | None, *, full: bool = True
) -> tuple[game_pb2.Game, list[event_pb2.GameEvent]]:
    """Returns the game and the events a command appended, as its caller sees them.

    ``full`` adds the game's own view to the game (GAME_VIEW_FULL).
    """
    record = applied.record
    viewer = caller(app, record, token)
    game = game_to_proto(record, viewer, full=full)
    return game, [event_to_proto(record, event, viewer) for event in applied.events]
