"""The messages a game's new events are streamed as, built once per kind of viewer.

Every spectator of a game sees the same redaction of an event, and once the game
has finished everybody sees everything: such streams can send one message
object. Each message is built by the first stream that needs it and kept on the
game feed's entry (``services.game_feed.Entry``), keyed by whom it was redacted
for, so a thousand spectators cost one conversion and a seat still gets only its
own view (DESIGN §5).

A stream that asked for ``batch_events`` sends the entries it is given at once
as items of up to ``MAX_BATCH`` events. Streams at the same place in the feed are
given the same entries, so such an item is kept likewise, on its last entry and
keyed by its first revision and its viewer: gRPC's cost per message sent, not
the conversion, is what bounds a fan-out, and one item per move divides it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tabletop.v1 import event_pb2, game_service_pb2

from domain.common import table as tables
from domain.common.seats import Viewer
from services.api.convert.game import event_to_proto, game_to_proto
from services.game_feed import Entry
from services.records import GameRecord

Response = game_service_pb2.StreamGameResponse
MAX_BATCH = 100  # events in one ``events`` item (documented in the proto)


def event_message(entry: Entry, viewer: Viewer) -> Response:
    """Returns the entry's event as ``viewer`` may see it, shared with its peers."""
    seen_as = tables.effective_viewer(entry.record.table, viewer)
    key = ("event", seen_as)
    cached = entry.sent_as.get(key)
    if isinstance(cached, Response):
        return cached
    message = Response(event=event_to_proto(entry.record, entry.item, seen_as))
    entry.sent_as[key] = message
    return message


def event_messages(entries: Sequence[Entry], viewer: Viewer) -> Iterator[Response]:
    """Yields one ``event`` item per entry, each shared as ``event_message`` says."""
    for entry in entries:
        yield event_message(entry, viewer)


def batch_messages(entries: Sequence[Entry], viewer: Viewer) -> Iterator[Response]:
    """Yields the entries' events as ``events`` items, shared with the peers.

    Items are cut every ``MAX_BATCH`` entries from the first, so streams given
    the same entries cut them alike. The cache key holds the viewer itself, not
    the redaction of each event: a batch may span the game's end, where that
    redaction changes, and the events in it are ``event_message``'s anyway.
    """
    for start in range(0, len(entries), MAX_BATCH):
        part = entries[start : start + MAX_BATCH]
        last = part[-1]
        key = ("events", part[0].revision, viewer)
        cached = last.sent_as.get(key)
        if isinstance(cached, Response):
            yield cached
            continue
        events = [event_message(entry, viewer).event for entry in part]
        message = Response(events=game_service_pb2.EventBatch(events=events))
        last.sent_as[key] = message
        yield message


def event_batches(events: Sequence[event_pb2.GameEvent]) -> list[Response]:
    """Returns one stream's own events as ``events`` items of ``MAX_BATCH`` at most."""
    return [
        Response(events=game_service_pb2.EventBatch(events=events[i : i + MAX_BATCH]))
        for i in range(0, len(events), MAX_BATCH)
    ]


def snapshot_message(entry: Entry, viewer: Viewer) -> Response:
    """Returns the game after the entry as ``viewer`` may see it, shared likewise."""
    seen_as = tables.effective_viewer(entry.record.table, viewer)
    key = ("snapshot", seen_as)
    cached = entry.sent_as.get(key)
    if isinstance(cached, Response):
        return cached
    message = snapshot(entry.record, seen_as)
    entry.sent_as[key] = message
    return message


def snapshot(record: GameRecord, viewer: Viewer) -> Response:
    """Returns the game as ``viewer`` may see it, for this stream alone."""
    return Response(snapshot=game_to_proto(record, viewer, full=True))
