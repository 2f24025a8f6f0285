"""``StreamGame``: a game's live feed, redacted for its caller (docs/design.md §7).

The stream registers its listener before it reads the game, sends the caller's
snapshot or the stored events after ``after_revision``, then one ``caught_up``
item with the revision read, then every new event as the feed delivers it (in
revision order, each once, see ``services.feed``), with a heartbeat whenever the
game has been idle for the feed's heartbeat interval. After the table's
``GameFinished`` (or ``TableClosed``) it sends a final snapshot and ends with OK.
The catch-up happens once per call: a gap the feed reads from the store later
is sent as live events, and a client that resumes calls again (and is sent its
own ``caught_up``). A game already over when called has nothing live to follow:
its stream sends no ``caught_up``, only the final snapshot, and ends.

New events come folded once for all the game's streams (``services.game_feed``),
and each is converted once per kind of viewer (``shared_messages``): every
spectator is sent the same message, each seat its own, so a stream's share of a
move is being woken and sending. With ``batch_events`` a stream sends the events
ready at each wake-up as one item (also shared), so a move of several events
costs it one message instead of one per event.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any
from uuid import UUID

import grpc
from eventsourcing.persistence import InterfaceError, OperationalError
from tabletop.v1 import game_service_pb2

from domain.common import table as tables
from domain.common.decision import Rejected, RejectionKind, reject
from domain.common.seats import Seat, Viewer
from services.api.auth import StreamDeadline, bearer_token
from services.api.convert.game import event_to_proto
from services.api.errors import (
    ApiError,
    FieldViolation,
    bad_request,
    internal,
    rejection_status,
    resource_exhausted,
    unavailable,
)
from services.api.mutations import caller
from services.api.requests import parse_game_name
from services.api.shared_messages import (
    batch_messages,
    event_batches,
    event_messages,
    snapshot,
    snapshot_message,
)
from services.feed import Feed
from services.game_feed import Entry, FeedClosedError, Listener, SlowConsumerError
from services.games import GamesApp, game_not_found
from services.records import GameRecord, RecordedEvent
from services.store import revision_not_found
from services.tracebacks import withheld_traceback

log = logging.getLogger(__name__)

Response = game_service_pb2.StreamGameResponse


async def stream_game(
    app: GamesApp,
    feed: Feed,
    request: game_service_pb2.StreamGameRequest,
    context: Any,
) -> AsyncIterator[Response]:
    """Yields the caller's feed of a game; ends it with the right status.

    One generator from the request to the last item: every item sent passes
    through each generator it is yielded from, for every stream.
    """
    try:
        game_id = parse_game_name(request.name)
        token = bearer_token(context.invocation_metadata())
        with feed.listen(game_id) as listener:  # before the read: nothing slips by
            record, viewer, first = await _open(app, listener, game_id, token, request)
            for message in first:
                yield message
            if _finished(record):
                if not request.snapshot_first:
                    yield snapshot(record, viewer)
                return
            yield _caught_up(record)
            items = batch_messages if request.batch_events else event_messages
            heartbeat_seconds = feed.heartbeat_seconds
            deadline = StreamDeadline(app.sessions, token)
            last: Entry | None = None
            while not _finished(record):
                entries = await listener.next(deadline.wait(heartbeat_seconds))
                deadline.wait(heartbeat_seconds)  # not past the token's expiry
                if not entries:
                    yield Response(
                        heartbeat=game_service_pb2.Heartbeat(revision=listener.last)
                    )
                    continue
                if isinstance(viewer, Seat):
                    for part, now in _seat_changes(entries, viewer):
                        for item in items(part, viewer):
                            yield item
                        if now is not None:
                            viewer = _reseat(app, now, token)
                else:  # a spectator sits nowhere: nothing to cut
                    for item in items(entries, viewer):
                        yield item
                last, record = entries[-1], entries[-1].record
            yield snapshot_message(last, viewer) if last else snapshot(record, viewer)
    except Exception as error:  # noqa: BLE001 (each has its status)
        await context.abort_with_status(_status_of(error))


def _caught_up(record: GameRecord) -> Response:
    """Returns the item that ends the catch-up: everything up to the read is sent."""
    return Response(caught_up=game_service_pb2.CaughtUp(revision=record.revision))


def _status_of(error: Exception) -> grpc.Status:
    """Returns the status a stream ends with after ``error``; logs the unforeseen."""
    if isinstance(error, ApiError):
        return error.status
    if isinstance(error, SlowConsumerError):
        return _slow_consumer()
    if isinstance(error, FeedClosedError):
        return _shutting_down()
    if isinstance(error, (OperationalError, InterfaceError)):
        log.warning("event store unavailable", exc_info=error)
        return unavailable("The game store is unavailable; retry shortly.")
    log.error("unhandled error in StreamGame\n%s", withheld_traceback(error))
    return internal()


async def _open(
    app: GamesApp,
    listener: Listener,
    game_id: UUID,
    token: str | None,
    request: game_service_pb2.StreamGameRequest,
) -> tuple[GameRecord, Viewer, list[Response]]:
    """Reads the game for the caller; returns it, the caller and the first items.

    Those are the caller's snapshot, or the stored events after
    ``after_revision``; the listener takes its place after the game read.
    """
    after = request.after_revision
    if after < 0:
        raise ApiError(
            bad_request(
                "INVALID_REVISION",
                "after_revision must not be negative.",
                [FieldViolation("after_revision", "must be >= 0")],
            )
        )
    record, viewer, backlog = await asyncio.to_thread(
        _load, app, game_id, token, after, backlog=not request.snapshot_first
    )
    listener.start(record)
    if request.snapshot_first:
        return record, viewer, [snapshot(record, viewer)]
    # Converted with the game as it is now: once it has finished, every caller
    # sees all of it (decision T5).
    messages = await asyncio.to_thread(
        _events, record, backlog, viewer, batch=request.batch_events
    )
    return record, viewer, messages


def _reseat(app: GamesApp, record: GameRecord, token: str | None) -> Viewer:
    """Returns the caller's seat after a ``PlayerLeft``; ends a seat given up.

    A seat's stream follows its seat: when a seat is given up the seats after
    it move down, so the caller's seat is looked up again after each
    ``PlayerLeft``, and a stream whose seat was given up ends there, before it
    could show the next holder of that seat number anything.
    """
    moved = app.viewer_for(record, token)
    if moved is None:
        raise ApiError(rejection_status(_seat_given_up()))
    return moved


def _seat_changes(
    entries: Sequence[Entry], viewer: Viewer
) -> Iterator[tuple[Sequence[Entry], GameRecord | None]]:
    """Cuts ``entries`` after each ``PlayerLeft``, with the game after it.

    Only a seat's stream is cut: a spectator sits nowhere.
    """
    if not isinstance(viewer, Seat):
        yield entries, None
        return
    start = 0
    for index, entry in enumerate(entries):
        if isinstance(entry.item.event, tables.PlayerLeft):
            yield entries[start : index + 1], entry.record
            start = index + 1
    if start < len(entries):
        yield entries[start:], None


def _seat_given_up() -> Rejected:
    return reject(
        "SEAT_GIVEN_UP",
        "Your seat was given up (you left the table or its host removed you); "
        "this stream ends. Watch the table without a token, as a spectator.",
        "table/credentials",
        RejectionKind.NOT_A_PARTICIPANT,
    )


def _load(
    app: GamesApp, game_id: UUID, token: str | None, after: int, *, backlog: bool
) -> tuple[GameRecord, Viewer, list[RecordedEvent]]:
    """Returns the game, the caller and, with ``backlog``, the events after ``after``.

    The game is the store's kept fold; the events are read up to its revision,
    so that what follows comes from the feed alone, with no gap or repeat.
    """
    record = app.get_game(game_id)
    if record is None:
        raise ApiError(rejection_status(game_not_found(game_id)))
    viewer = caller(app, record, token)
    if after > record.revision:
        raise ApiError(rejection_status(revision_not_found(record, after)))
    if not backlog:
        return record, viewer, []
    return record, viewer, app.recorded_events(game_id, gt=after, lte=record.revision)


def _events(
    record: GameRecord, items: list[RecordedEvent], viewer: Viewer, *, batch: bool
) -> list[Response]:
    events = [event_to_proto(record, item, viewer) for item in items]
    if batch:
        return event_batches(events)
    return [Response(event=event) for event in events]


def _finished(record: GameRecord) -> bool:
    """Tells whether nothing more can happen: play finished, or the table closed."""
    return record.table.status in _OVER


_OVER = (tables.TableStatus.FINISHED, tables.TableStatus.CLOSED)


def _slow_consumer() -> grpc.Status:
    return resource_exhausted(
        "SLOW_CONSUMER",
        "The stream fell too far behind and was closed; call StreamGame again, "
        "with after_revision set to the last revision received, to resume.",
    )


def _shutting_down() -> grpc.Status:
    return unavailable(
        "The server is shutting down; call StreamGame again, with after_revision "
        "set to the last revision received, to resume on another server.",
        reason="SERVER_SHUTTING_DOWN",
    )
