"""Receipts the terminal client keeps: the last record digest it saw of a game.

``tabletop play`` keeps, beside a game's seat token, the record digest of the
latest revision it was shown (``Seat.receipt_digest``); ``tabletop audit verify
--kept-receipts`` checks an export of that game against it (docs/audit.md).
"""

from __future__ import annotations

from infra.terminal.seats import load_seat, seat_path


def kept_receipts(game: str) -> list[tuple[int, str]]:
    """Returns the (revision, digest) receipts kept for ``game`` (``games/{id}``)."""
    seat = load_seat(seat_path(game))
    if seat is None or seat.game != game or not seat.receipt_digest:
        return []
    return [(seat.receipt_revision, seat.receipt_digest)]
