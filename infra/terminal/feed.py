"""Following ``StreamGame`` in a background thread, resuming after dropped streams."""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Literal, cast

import grpc
from tabletop.v1 import event_pb2, game_service_pb2

from infra.terminal.connection import Connection, describe_error

STREAM_TIMEOUT = 3600.0  # seconds; the stream is resumed after it
RESUMABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,  # a slow consumer resumes from its revision
}
Kind = Literal["events", "end", "error"]


@dataclass(frozen=True, slots=True)
class Item:
    """What the feed saw: events, the end of the game's stream, or an error."""

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
    while not feed.stopped.is_set():
        try:
            _stream_once(feed)
        except grpc.RpcError as error:
            if feed.stopped.is_set():
                return
            code = cast("grpc.Call", error).code()  # stub errors are calls
            if code not in RESUMABLE:
                feed.items.put(Item("error", message=describe_error(error)))
                return
            time.sleep(pause)
            pause = min(pause * 2, 5.0)
        else:
            feed.items.put(Item("end"))
            return


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
        kind = item.WhichOneof("item")
        events: tuple[event_pb2.GameEvent, ...] = ()
        if kind == "events":
            events = tuple(item.events.events)
        elif kind == "event":
            events = (item.event,)
        if events:
            feed.revision = events[-1].revision
            feed.items.put(Item("events", events))
