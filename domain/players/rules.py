"""What players' accounts, credentials and refresh tokens allow, decided purely.

The services layer hashes and seals (``services/players.py``); these functions
see only hashes, sealed values and the time a call happens.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum

from domain.common.decision import Rejected, RejectionKind, reject
from domain.common.table import check_display_name
from domain.players.model import Account, RefreshToken, SignIn

# A used refresh token presented again this soon is a retry of a refresh whose
# answer was lost, not a copy: it gets the same next token back.
RETRY_GRACE = timedelta(seconds=60)
# What one account may link and how often it may be renamed. Each link and
# rename is an event of the account, which every sign-in, refresh and view of
# its name folds, so these bound what a player can make the server read.
MAX_DEVICES = 20
MAX_IDENTITIES = 10
RENAMES_A_DAY = 10
RENAME_WINDOW = timedelta(days=1)

__all__ = [
    "MAX_DEVICES",
    "MAX_IDENTITIES",
    "RENAMES_A_DAY",
    "RENAME_WINDOW",
    "RETRY_GRACE",
    "Refresh",
    "account_refusal",
    "check_display_name",
    "link_refusal",
    "refresh_verdict",
    "rename_refusal",
]


class Refresh(Enum):
    """What presenting a refresh token amounts to."""

    FRESH = "fresh"  # unused, valid: exchange it
    RETRY = "retry"  # used within RETRY_GRACE: the same exchange again
    REUSED = "reused"  # used before that: a copy; the sign-in must end
    INVALID = "invalid"  # unknown, wrong secret, expired, or its sign-in ended


def refresh_verdict(
    token: RefreshToken,
    secret_matches: bool,  # noqa: FBT001 (compared by the caller in constant time)
    sign_in: SignIn,
    now: datetime,
) -> Refresh:
    """Returns what presenting ``token`` (with a matching secret or not) means now."""
    if not token.secret_hash or not secret_matches or sign_in.ended is not None:
        return Refresh.INVALID
    if token.used_at is not None:
        return Refresh.RETRY if now - token.used_at <= RETRY_GRACE else Refresh.REUSED
    if token.expires_at is None or now >= token.expires_at:
        return Refresh.INVALID
    return Refresh.FRESH


def account_refusal(account: Account) -> Rejected | None:
    """Refuses acting as an account that was never made or was deleted."""
    if not account.registered or account.deleted:
        return reject(
            "PLAYER_NOT_FOUND",
            "No such player: the account does not exist or was deleted.",
            "players/account",
            RejectionKind.UNAUTHENTICATED,
        )
    return None


def link_refusal(account: Account, kind: str) -> Rejected | None:
    """Refuses linking one more ``kind`` ("device" or "identity") to ``account``."""
    refused = account_refusal(account)
    if refused is not None:
        return refused
    if kind == "device" and len(account.devices) >= MAX_DEVICES:
        return _too_many("devices", MAX_DEVICES)
    if kind != "device" and len(account.identities) >= MAX_IDENTITIES:
        return _too_many("identities", MAX_IDENTITIES)
    return None


def _too_many(linked: str, most: int) -> Rejected:
    return reject(
        f"TOO_MANY_{linked.upper()}",
        f"An account links at most {most} {linked}, and this one has as many.",
        f"players/max_{linked}",
        maxLinked=most,
    )


def rename_refusal(account: Account, now: datetime) -> Rejected | None:
    """Refuses a rename beyond ``RENAMES_A_DAY`` within ``RENAME_WINDOW``."""
    recent = account.renamed_at[-RENAMES_A_DAY:]
    if len(recent) < RENAMES_A_DAY or now - recent[0] >= RENAME_WINDOW:
        return None
    again = (recent[0] + RENAME_WINDOW).isoformat()
    return reject(
        "TOO_MANY_RENAMES",
        f"An account is renamed at most {RENAMES_A_DAY} times a day: "
        f"rename it again from {again}.",
        "players/renames_a_day",
        renameAgainAfter=again,
    )
