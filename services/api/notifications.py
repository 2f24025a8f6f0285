"""StreamNotifications: the signed-in caller's notifications, live.

The stream registers with the process's notification feed before it reads
what the caller missed (``after_notification_id``), so nothing made in
between slips by, and it sends each notification once, in id order, with a
heartbeat while idle.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError
from tabletop.v1 import game_service_pb2 as api

from services.api.auth import (
    StreamDeadline,
    bearer_token,
    signed_in,
    signed_in_player,
)
from services.api.convert.game import game_name
from services.api.convert.registry import converter_for
from services.api.errors import (
    ApiError,
    FieldViolation,
    bad_request,
    resource_exhausted,
    unavailable,
)
from services.games import GamesApp
from services.notification_feed import NotificationFeed, SlowStreamError
from services.notifications import Kind
from services.players_view import Stored

BACKLOG = 100  # missed notifications a stream resends at most
_KINDS = {
    Kind.YOUR_TURN: api.NOTIFICATION_KIND_YOUR_TURN,
    Kind.GAME_FINISHED: api.NOTIFICATION_KIND_GAME_FINISHED,
    Kind.TAKEBACK_PROPOSED: api.NOTIFICATION_KIND_TAKEBACK_PROPOSED,
    Kind.PLAYER_JOINED: api.NOTIFICATION_KIND_PLAYER_JOINED,
}
Response = api.StreamNotificationsResponse


async def stream_notifications(
    app: GamesApp,
    feed: NotificationFeed,
    heartbeat_seconds: float,
    request: api.StreamNotificationsRequest,
    context: Any,
) -> AsyncIterator[Response]:
    """Yields the caller's notifications; ends with the right status."""
    try:
        token = bearer_token(context.invocation_metadata())
        player = signed_in(app.sessions, token, "StreamNotifications").player_id
        signed_in_player(app.sessions, token)  # a deleted player's is refused
        last = _resumed_after(request)
        deadline = StreamDeadline(app.sessions, token)
        with feed.subscribe(player) as subscriber:  # before the read
            if last > 0:
                missed = await asyncio.to_thread(feed.view.since, last, BACKLOG, player)
                for stored in missed:
                    yield Response(notification=notification_message(stored))
                    last = stored.id
            while True:
                item = await subscriber.next(deadline.wait(heartbeat_seconds))
                deadline.wait(heartbeat_seconds)  # not past the token's expiry
                if item is None:
                    # Idle: every notification handed on so far was this
                    # stream's to send, and sent (its queue is empty).
                    newest = max(last, feed.handed_on)
                    yield Response(heartbeat_notification_id=newest)
                elif item.id > last:
                    yield Response(notification=notification_message(item))
                    last = item.id
    except ApiError as error:
        await context.abort_with_status(error.status)
    except SlowStreamError:
        await context.abort_with_status(
            resource_exhausted(
                "SLOW_CONSUMER",
                "The stream fell too far behind its notifications: call again "
                "with the last notification id received.",
                {},
            )
        )
    except (OperationalError, InterfaceError):
        await context.abort_with_status(
            unavailable("The game store is unavailable; retry shortly.")
        )


def _resumed_after(request: api.StreamNotificationsRequest) -> int:
    """Returns the last notification the caller has (0: none)."""
    if request.after_notification_id < 0:
        raise ApiError(
            bad_request(
                "INVALID_NOTIFICATION_ID",
                "after_notification_id must not be negative.",
                [FieldViolation("after_notification_id", "must be >= 0")],
            )
        )
    return request.after_notification_id


def notification_message(stored: Stored) -> api.Notification:
    """Returns a stored notification as the API sends it."""
    notice = stored.notice
    message = api.Notification(
        id=stored.id,
        idempotency_key=notice.key,
        player=f"players/{notice.player_id}",
        game=game_name(notice.game_id),
        game_type=converter_for(notice.game_type).proto_type,
        kind=_KINDS[notice.kind],
        revision=notice.revision,
    )
    message.create_time.FromDatetime(notice.at)
    return message
