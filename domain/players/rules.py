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

__all__ = [
    "RETRY_GRACE",
    "Refresh",
    "account_refusal",
    "check_display_name",
    "refresh_verdict",
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
