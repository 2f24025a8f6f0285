"""Replay: a game as it was at a revision, and its event log in pages (DESIGN §7).

Both answers go through the game's views for the caller (DESIGN §5). While the
game is in progress (or still waiting for players) a replay shows the caller's
own perspective at that revision: a seat sees its own rack as it was then, a
spectator the public state. Once the game has finished (its ``GameFinished``
event is in the log), every replay and every event page shows everything, as
the operator sees it, the seed included.

Each call reads the game's event stream once and folds it: the current state
says who the caller is and whether the game has finished, and a snapshot or a
page comes from the same read, so the two always agree.
"""

from __future__ import annotations

from uuid import UUID

from tabletop.v1 import game_service_pb2

from domain.common import table as tables
from services.api.convert.game import event_to_proto, game_to_proto
from services.api.errors import ApiError, rejection_status
from services.api.mutations import caller
from services.api.requests import (
    PageToken,
    decode_page_token,
    encode_page_token,
    page_size,
    parse_game_name,
    parse_revision_name,
)
from services.games import GamesApp, game_not_found
from services.records import GameRecord, RecordedEvent, advance
from services.store import revision_not_found

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
_LISTING = "game-events"  # what a page token lists


def get_game_revision(
    app: GamesApp, request: game_service_pb2.GetGameRevisionRequest, token: str | None
) -> game_service_pb2.GetGameRevisionResponse:
    """Returns the game as it was at a revision, as the caller may see it."""
    game_id, revision = parse_revision_name(request.name)
    current, snapshot = _fold(game_id, app.recorded_events(game_id), at=revision)
    # Who asks is checked before what exists (AIP-193).
    viewer = caller(app, current, token)
    if snapshot is None:
        raise ApiError(rejection_status(revision_not_found(current, revision)))
    game = game_to_proto(snapshot, viewer, full=True, reveal_all=_finished(current))
    return game_service_pb2.GetGameRevisionResponse(snapshot=game)


def list_game_events(
    app: GamesApp, request: game_service_pb2.ListGameEventsRequest, token: str | None
) -> game_service_pb2.ListGameEventsResponse:
    """Returns one page of the game's events in revision order, redacted."""
    game_id = parse_game_name(request.parent, "parent")
    size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    resume = decode_page_token(request.page_token, _LISTING, request.parent)
    after = resume.position if resume else 0  # the last revision already returned
    events = app.recorded_events(game_id)
    current, _ = _fold(game_id, events)
    viewer = caller(app, current, token)
    page = [item for item in events if item.revision > after][:size]
    reveal_all = _finished(current)
    response = game_service_pb2.ListGameEventsResponse(
        events=[
            event_to_proto(current, item, viewer, reveal_all=reveal_all)
            for item in page
        ]
    )
    if page and page[-1].revision < current.revision:
        last = PageToken(_LISTING, page[-1].revision, request.parent)
        response.next_page_token = encode_page_token(last)
    return response


def _fold(
    game_id: UUID, events: list[RecordedEvent], *, at: int = 0
) -> tuple[GameRecord, GameRecord | None]:
    """Returns the game now and as it was at revision ``at`` (None if not reached).

    Refuses with ``GAME_NOT_FOUND`` when the game has no events.
    """
    current: GameRecord | None = None
    snapshot: GameRecord | None = None
    for item in events:
        current = advance(current, game_id, item)
        if item.revision == at:
            snapshot = current
    if current is None:
        raise ApiError(rejection_status(game_not_found(game_id)))
    return current, snapshot


def _finished(record: GameRecord) -> bool:
    """Tells whether the game has finished, so that its replays show everything."""
    return record.table.status is tables.TableStatus.FINISHED
