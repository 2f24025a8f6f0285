"""Following ``StreamGame`` in a background thread, resuming after dropped streams.

A stream presenting a signed-in player's session ends when its access token
expires, or at once when the server no longer accepts the token (``UNAUTHENTICATED
INVALID_CREDENTIALS``): the session is renewed and the stream resumed, once for
each stream that delivered something, so a session that cannot be renewed ends
the feed rather than retrying for ever.

A stream that fails because the server is away (``UNAVAILABLE``, or
``CANCELLED`` by a server shutting down) puts a ``lost`` item; the feed then
waits for the channel to connect again, puts a ``back`` item and resubscribes
after the last revision it delivered. Stream items it does not know (a newer
server's) are skipped.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Literal, cast

import grpc
from tabletop.v1 import event_pb2, game_service_pb2

from infra.terminal.connection import Connection, describe_error
from infra.terminal.credentials import refused_credentials

STREAM_TIMEOUT = 3600.0  # seconds; the stream is resumed after it
# A stream that ended so is resumed; after GONE once the server answers again.
GONE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.CANCELLED,  # by a server shutting down (ours are stopped first)
}
RESUMABLE = GONE | {
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,  # a slow consumer resumes from its revision
}
Kind = Literal["events", "end", "error", "lost", "back"]
MAX_PAUSE = 5.0  # seconds between attempts to reach a server that is away


@dataclass(frozen=True, slots=True)
class Item:
    """What the feed saw: events, the end of the game's stream, an error, or
    the server going away (``lost``) and answering again (``back``)."""

    kind: Kind
    events: tuple[event_pb2.GameEvent, ...] = ()
    message: str = ""


@dataclass
class Feed:
    """A followed stream: items arrive on ``items`` until ``stop`` is called."""

    connection: Connection
    name: str
    revision: int
    items: queue.Queue[Item] = field(default_factory=queue.Queue)
    stopped: threading.Event = field(default_factory=threading.Event)
    call: grpc.Call | None = None
    delivered: bool = False  # the stream last opened sent an item

    def stop(self) -> None:
        """Ends the stream and the thread following it."""
        self.stopped.set()
        if self.call is not None:
            self.call.cancel()


def follow(connection: Connection, name: str, after_revision: int) -> Feed:
    """Starts following a game's events after a revision."""
    feed = Feed(connection, name, after_revision)
    threading.Thread(target=_run, args=(feed,), daemon=True).start()
    return feed


def _run(feed: Feed) -> None:
    pause = 0.2
    renewed = False  # the session was renewed and no stream has delivered since
    lost = False  # the server is away: the feed said so and waits for it
    while not feed.stopped.is_set():
        if lost:
            if not _reachable(feed, pause):
                pause = min(pause * 2, MAX_PAUSE)
                continue
            lost, pause = False, 0.2
            feed.items.put(Item("back"))
        token, feed.delivered = "", False
        try:
            token = _access_token(feed)
            _stream_once(feed)
        except grpc.RpcError as error:
            if feed.stopped.is_set():
                return
            if _seat_given_up(feed, error):
                continue  # followed on as a spectator: the events say why
            renewed = renewed and not feed.delivered
            renewing = _renewable(feed, error) and not renewed
            renewed = renewed or renewing
            failed = _renew(feed, token) if renewing else error
            if failed is None:  # renewed: resume at once
                continue
            code = cast("grpc.Call", failed).code()  # stub errors are calls
            if code not in RESUMABLE:
                feed.items.put(Item("error", message=describe_error(failed)))
                return
            if code in GONE:
                lost = True
                feed.items.put(Item("lost", message=describe_error(failed)))
                continue
            time.sleep(pause)
            pause = min(pause * 2, MAX_PAUSE)
        else:
            feed.items.put(Item("end"))
            return


def _reachable(feed: Feed, timeout: float) -> bool:
    """Tells whether the channel connects to the server within ``timeout``."""
    ready = grpc.channel_ready_future(feed.connection.channel)
    try:
        ready.result(timeout=timeout)
    except grpc.FutureTimeoutError:
        ready.cancel()
        return False
    return True


def _renew(feed: Feed, refused: str) -> grpc.RpcError | None:
    """Renews the session after the server refused its token; the error if that
    failed (the server is away: the stream is resumed later)."""
    assert feed.connection.session is not None  # noqa: S101 (see _renewable)
    try:
        feed.connection.session.renew(refused)
    except grpc.RpcError as error:
        return error
    return None


def _access_token(feed: Feed) -> str:
    """Returns the session's access token the stream opens with; empty without."""
    session = feed.connection.session
    return "" if session is None else session.access_token()


def _seat_given_up(feed: Feed, error: grpc.RpcError) -> bool:
    """Follows on as a spectator when the stream's seat token no longer works.

    A seat given up (left, or removed by the host) just before its stream
    (re)opened refuses the token: the events from the stream's revision on,
    which anybody may see, then tell the client so, as they would have told a
    stream opened in time.
    """
    if feed.connection.session is not None or not feed.connection.metadata:
        return False
    if not refused_credentials(error):
        return False
    feed.connection = replace(feed.connection, metadata=())
    return True


def _renewable(feed: Feed, error: grpc.RpcError) -> bool:
    """Tells whether the stream ended on a session the server no longer accepts."""
    return feed.connection.session is not None and refused_credentials(error)


def _stream_once(feed: Feed) -> None:
    call = feed.connection.stub.StreamGame(
        game_service_pb2.StreamGameRequest(
            name=feed.name, after_revision=feed.revision, batch_events=True
        ),
        metadata=feed.connection.metadata,
        timeout=STREAM_TIMEOUT,
    )
    feed.call = call
    for item in call:
        feed.delivered = True
        kind = item.WhichOneof("item")
        events: tuple[event_pb2.GameEvent, ...] = ()
        if kind == "events":
            events = tuple(item.events.events)
        elif kind == "event":
            events = (item.event,)
        if events:
            feed.revision = events[-1].revision
            feed.items.put(Item("events", events))
