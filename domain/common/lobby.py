"""Seats before play: leaving, the host's removals, invite codes and expiry.

Decided like every table request (``domain.common.commands``); the table's
lifecycle and folds are in ``domain.common.table``.
"""

from __future__ import annotations

from datetime import datetime

from domain.common.decision import Accepted, Decision, malformed, reject
from domain.common.table import host_only, not_seated, waiting_only
from domain.common.table_state import (
    ClosedBecause,
    InviteCodeSet,
    PlayerLeft,
    Table,
    TableClosed,
    TableEvent,
)


def leave(table: Table, seat: int) -> Decision[TableEvent]:
    """Gives up ``seat`` before play begins; the last player out closes the table."""
    if not 0 <= seat < len(table.seats):
        return not_seated()
    refused = waiting_only(table, "resign instead to hand your seat to the bot")
    if refused is not None:
        return refused
    holder = table.seats[seat]
    left = PlayerLeft(
        seat, holder.display_name, removed=False, player_id=holder.player_id
    )
    if len(table.seats) == 1:
        return Accepted((left, TableClosed(ClosedBecause.EMPTY)))
    return Accepted((left,))


def remove(table: Table, seat: int, removed: int) -> Decision[TableEvent]:
    """The host's removal of another seat before play begins."""
    refused = host_only(table, seat, "remove a seat")
    if refused is not None:
        return refused
    refused = waiting_only(table, "seats can no longer be removed")
    if refused is not None:
        return refused
    if not 0 < removed < len(table.seats):
        return reject(
            "NO_SUCH_SEAT",
            f"There is no other player in seat {removed}; the seats taken are 0 "
            f"to {len(table.seats) - 1}, and the host leaves rather than removes "
            "themself.",
            "table/remove_seat",
            seat=removed,
            seatedPlayers=len(table.seats),
        )
    holder = table.seats[removed]
    left = PlayerLeft(
        removed, holder.display_name, removed=True, player_id=holder.player_id
    )
    return Accepted((left,))


def rotate_invite(table: Table, seat: int, invite_hash: str) -> Decision[TableEvent]:
    """The host's new invite code for a private table; the old one stops working."""
    refused = host_only(table, seat, "change the invite code")
    if refused is not None:
        return refused
    if not table.private:
        return reject(
            "TABLE_NOT_PRIVATE",
            "This table is public: anybody may join it without a code.",
            "table/invite_code",
        )
    refused = waiting_only(table, "nobody can join any more")
    if refused is not None:
        return refused
    if not invite_hash:  # no code would let anybody in
        return malformed(
            "INVALID_INVITE_CODE",
            "A private table's invite code cannot be empty.",
            "table/invite_code",
        )
    return Accepted((InviteCodeSet(invite_hash),))


def expire(table: Table, now: datetime) -> Decision[TableEvent]:
    """Closes a table that waited for players past its expiry time.

    A table from before tables expired has no expiry time of its own: the
    server closes it by its creation time and the configured wait.
    """
    refused = waiting_only(table, "only a table waiting for players expires")
    if refused is not None:
        return refused
    if table.expires_at is not None and now < table.expires_at:
        return reject(
            "TABLE_NOT_EXPIRED",
            f"The table may wait for players until {table.expires_at.isoformat()}.",
            "table/expiry",
            expireTime=table.expires_at.isoformat(),
        )
    return Accepted((TableClosed(ClosedBecause.EXPIRED),))
