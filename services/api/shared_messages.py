"""The messages a game's new events are streamed as, built once per kind of viewer.

Every spectator of a game sees the same redaction of an event, and once the game
has finished everybody sees everything: such streams can send one message
object. Each message is built by the first stream that needs it and kept on the
game feed's entry (``services.game_feed.Entry``), keyed by whom it was redacted
for, so a thousand spectators cost one conversion and a seat still gets only its
own view (DESIGN §5).
"""

from __future__ import annotations

from tabletop.v1 import game_service_pb2

from domain.common import table as tables
from domain.common.seats import Viewer
from services.api.convert.game import event_to_proto, game_to_proto
from services.game_feed import Entry
from services.records import GameRecord

Response = game_service_pb2.StreamGameResponse


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
