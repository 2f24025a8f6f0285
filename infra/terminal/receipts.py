"""Receipts the terminal client keeps: the last record digest it saw of a game.

``tabletop play`` keeps, beside a game's seat token, the record digest of the
latest revision it was shown (``Seat.receipt_digest``); ``tabletop audit verify
--kept-receipts`` checks an export of that game against it (docs/audit.md).

The session keeps a receipt with ``keep_receipt`` whenever a game or an event
it takes in has a higher revision than the seat's receipt: once per answer or
per batch of events, so that a burst of events writes the seat file once.
Spectating and replaying hold no seat and keep nothing.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from infra.terminal.seats import Seat, load_kept, seat_path

if TYPE_CHECKING:
    from tabletop.v1 import event_pb2


DIGEST_LENGTH = 64  # hex digits of a record digest


def kept_receipts(game: str) -> list[tuple[int, str]]:
    """Returns the (revision, digest) receipts kept for ``game`` (``games/{id}``).

    A seat file of another game, or whose receipt is malformed, keeps none.
    """
    seat = load_kept(seat_path(game))
    if seat is None or seat.game != game or not well_formed(seat):
        return []
    return [(seat.receipt_revision, seat.receipt_digest.lower())]


def well_formed(seat: Seat) -> bool:
    """Tells whether the seat keeps a receipt: a revision from 1, 64 hex digits."""
    revision, digest = seat.receipt_revision, seat.receipt_digest
    if isinstance(revision, bool) or revision < 1 or len(digest) != DIGEST_LENGTH:
        return False
    return all(character in string.hexdigits for character in digest)


def with_receipt(seat: Seat, revision: int, digest: str) -> Seat:
    """Returns the seat keeping (revision, digest) when that is newer than its
    receipt; else the seat itself, unchanged."""
    if not digest or revision <= seat.receipt_revision:
        return seat
    return replace(seat, receipt_revision=revision, receipt_digest=digest)


def latest_receipt(events: Iterable[event_pb2.GameEvent]) -> tuple[int, str]:
    """Returns the highest revision among events with a digest, and its digest;
    (0, "") when none has one."""
    latest = (0, "")
    for event in events:
        if event.record_digest and event.revision > latest[0]:
            latest = (event.revision, event.record_digest)
    return latest
