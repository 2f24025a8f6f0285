"""Checks of request fields shared by every RPC: names, page sizes, page tokens."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from services.api.errors import ApiError, FieldViolation, bad_request

_GAME_PREFIX = "games/"


def parse_game_name(name: str, field: str = "name") -> UUID:
    """Returns the game id of a ``games/{game}`` resource name."""
    game_id = name.removeprefix(_GAME_PREFIX) if name.startswith(_GAME_PREFIX) else ""
    try:
        parsed = UUID(game_id)
    except ValueError:
        parsed = None
    # One spelling per game (AIP-122): the lower-case, hyphenated form.
    if parsed is None or str(parsed) != game_id:
        raise ApiError(
            bad_request(
                "INVALID_NAME",
                f"{field} must be a game resource name like 'games/<uuid>'.",
                [FieldViolation(field, "expected games/<uuid>")],
                {"field": field},
            )
        )
    return parsed


def page_size(requested: int, default: int, maximum: int) -> int:
    """Returns the page size to use (AIP-158): 0 is the default, above max is max."""
    if requested < 0:
        raise ApiError(
            bad_request(
                "INVALID_PAGE_SIZE",
                "page_size must not be negative.",
                [FieldViolation("page_size", "must be >= 0")],
            )
        )
    return min(requested or default, maximum)


@dataclass(frozen=True, slots=True)
class PageToken:
    """Where a listing resumes, and what it was a listing of."""

    kind: str
    position: int
    query: str
    revision: int = 0


def encode_page_token(token: PageToken) -> str:
    """Returns an opaque page token."""
    raw = json.dumps([token.kind, token.position, token.query, token.revision])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(text: str, kind: str, query: str) -> PageToken | None:
    """Returns the token of a listing, None for the first page.

    A token from another listing or another query is refused (AIP-158).
    """
    if not text:
        return None
    try:
        padded = text + "=" * (-len(text) % 4)
        data: Any = json.loads(base64.urlsafe_b64decode(padded))
        token = PageToken(str(data[0]), int(data[1]), str(data[2]), int(data[3]))
    except (ValueError, TypeError, IndexError, KeyError, binascii.Error):
        token = None
    if (
        token is None
        or token.kind != kind
        or token.query != query
        or token.position < 0
    ):
        raise ApiError(
            bad_request(
                "INVALID_PAGE_TOKEN",
                "page_token does not belong to this listing; start again without it.",
                [FieldViolation("page_token", "not a token of this listing")],
            )
        )
    return token
