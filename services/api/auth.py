"""Caller identity from call credentials: ``authorization: Bearer <seat token>``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.api.errors import ApiError, unauthenticated

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
