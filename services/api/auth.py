"""Caller identity from call credentials: ``authorization: Bearer <token>``.

The token is a seat token, the operator's, or a signed-in player's access token
(a signed JWT, ``services/sessions.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from services.api.errors import ApiError, unauthenticated
from services.player_names import NAMES
from services.sessions import SessionClaims, Sessions, looks_like_session
from services.tokens import token_hash

_SCHEME = "bearer "


def bearer_token(metadata: Iterable[Any] | None) -> str | None:
    """Returns the bearer token of a call, None when it sends none.

    A malformed ``authorization`` header is refused rather than ignored, so a
    client bug never silently turns a player into a spectator.
    """
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if not text.lower().startswith(_SCHEME) or not text[len(_SCHEME) :].strip():
            raise ApiError(
                unauthenticated(
                    "MALFORMED_CREDENTIALS",
                    "The authorization header must be 'Bearer <seat token>'.",
                )
            )
        return text[len(_SCHEME) :].strip()
    return None


def session_claims(
    sessions: Sessions | None, token: str | None
) -> SessionClaims | None:
    """Returns the signed-in player a call's access token names, None for a
    call without one (no token, or a seat token).

    An access token that does not verify is refused, never ignored.
    """
    if token is None or not looks_like_session(token):
        return None
    claims = sessions.verify(token) if sessions is not None else None
    if claims is None:
        raise ApiError(
            unauthenticated(
                "INVALID_CREDENTIALS",
                "The access token has expired or is not valid: refresh the "
                "session (AuthService.RefreshSession) or sign in again.",
            )
        )
    return claims


def signed_in_player(sessions: Sessions | None, token: str | None) -> str:
    """Returns the account id a call acts as, "" for a guest (or a seat token).

    A deleted player's access tokens, good until they expire, take no seat.
    """
    claims = session_claims(sessions, token)
    if claims is None:
        return ""
    if NAMES.name(claims.player_id) is None:
        raise ApiError(
            unauthenticated(
                "PLAYER_NOT_FOUND",
                "The signed-in player's account was deleted: sign in again.",
            )
        )
    return str(claims.player_id)


def credential_key(token: str, sessions: Sessions | None) -> tuple[str, str] | None:
    """Returns what per-caller limits count a token's calls under, and what it
    names: a signed-in player's every session together, a seat token alone.

    None for an access token that does not verify (its call is refused).
    """
    if looks_like_session(token):
        claims = sessions.verify(token) if sessions is not None else None
        return None if claims is None else (f"player:{claims.player_id}", "player")
    return f"token:{token_hash(token)}", "credential"


def signed_in(sessions: Sessions | None, token: str | None, call: str) -> SessionClaims:
    """Returns the signed-in player ``call`` needs, or refuses a call without one."""
    claims = session_claims(sessions, token)
    if claims is None:
        raise ApiError(
            unauthenticated(
                "MISSING_CREDENTIALS",
                f"{call} needs a signed-in player: send 'authorization: Bearer "
                "<access token>' (an access token from AuthService).",
            )
        )
    return claims


class StreamDeadline:
    """When a stream opened with an access token must end: the token's expiry.

    A stream outliving its token would go on showing a seat's private view
    after the sign-in ended; the client reopens it with a fresh token.
    """

    def __init__(self, sessions: Sessions | None, token: str | None) -> None:
        claims = session_claims(sessions, token)
        self.at = claims.expires_at if claims is not None else None

    def wait(self, idle_seconds: float) -> float:
        """Returns how long a stream may wait for its next item; refuses the
        stream once its token has expired."""
        if self.at is None:
            return idle_seconds
        left = (self.at - datetime.now(UTC)).total_seconds()
        if left <= 0:
            raise ApiError(
                unauthenticated(
                    "INVALID_CREDENTIALS",
                    "The access token this stream was opened with has expired: "
                    "refresh the session and open the stream again (with the "
                    "last item received, to miss nothing).",
                )
            )
        return min(idle_seconds, left)
