"""Replay: a game as it was at a revision, and its event log in pages (DESIGN §7).

Both answers go through the game's views for the caller (DESIGN §5). While the
game is in progress (or still waiting for players) a replay shows the caller's
own perspective at that revision: a seat sees its own rack as it was then, a
spectator the public state. Once the game has finished (its ``GameFinished``
event is in the log), every replay and every event page shows everything, as
the operator sees it, the seed included.

Each call loads the latest game (kept in memory, or from its newest stored
snapshot): it says who the caller is and whether the game has finished. A past
revision is then loaded from the nearest kept or stored fold below it, and a
page of events is read by revision, both bounded by that latest game, so a
replay costs the same at any length of game.
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
from services.records import GameRecord
from services.store import revision_not_found

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
_LISTING = "game-events"  # what a page token lists


def get_game_revision(
    app: GamesApp, request: game_service_pb2.GetGameRevisionRequest, token: str | None
) -> game_service_pb2.GetGameRevisionResponse:
    """Returns the game as it was at a revision, as the caller may see it."""
    game_id, revision = parse_revision_name(request.name)
    current = _current(app, game_id)
    # Who asks is checked before what exists (AIP-193).
    viewer = caller(app, current, token)
    if not 1 <= revision <= current.revision:
        raise ApiError(rejection_status(revision_not_found(current, revision)))
    past = app.get_game(game_id, revision) if revision < current.revision else current
    if past is None or past.revision != revision:
        raise ApiError(rejection_status(revision_not_found(current, revision)))
    game = game_to_proto(past, viewer, full=True, reveal_all=_finished(current))
    return game_service_pb2.GetGameRevisionResponse(snapshot=game)


def list_game_events(
    app: GamesApp, request: game_service_pb2.ListGameEventsRequest, token: str | None
) -> game_service_pb2.ListGameEventsResponse:
    """Returns one page of the game's events in revision order, redacted."""
    game_id = parse_game_name(request.parent, "parent")
    size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    resume = decode_page_token(request.page_token, _LISTING, request.parent)
    after = resume.position if resume else 0  # the last revision already returned
    current = _current(app, game_id)
    viewer = caller(app, current, token)
    last = min(after + size, current.revision)
    page = app.recorded_events(game_id, gt=after, lte=last) if after < last else []
    reveal_all = _finished(current)
    response = game_service_pb2.ListGameEventsResponse(
        events=[
            event_to_proto(current, item, viewer, reveal_all=reveal_all)
            for item in page
        ]
    )
    if page and page[-1].revision < current.revision:
        token_after = PageToken(_LISTING, page[-1].revision, request.parent)
        response.next_page_token = encode_page_token(token_after)
    return response


def _current(app: GamesApp, game_id: UUID) -> GameRecord:
    """Returns the latest game; refuses with ``GAME_NOT_FOUND`` when there is none.

    It says who the caller is and whether the game has finished; the revision
    or page asked for is then read up to it, so a move made meanwhile changes
    nothing in the answer.
    """
    current = app.get_game(game_id)
    if current is None:
        raise ApiError(rejection_status(game_not_found(game_id)))
    return current


def _finished(record: GameRecord) -> bool:
    """Tells whether the game has finished, so that its replays show everything."""
    return record.table.status is tables.TableStatus.FINISHED
