"""Checks of request fields shared by every RPC: names, page sizes, page tokens."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from google.protobuf.message import Message

from services.api.errors import ApiError, FieldViolation, bad_request
from services.request_ids import request_key

_GAME_PREFIX = "games/"
MAX_REQUEST_ID = 100
# A page token this server issues holds a listing's kind, position, revision
# and query (a game name or a filter of at most MAX_FILTER characters): well
# under this, so anything longer is not ours and is refused before decoding.
MAX_PAGE_TOKEN = 1000
MAX_FILTER = 200
# Positions are row numbers and list offsets; far above any real one, yet low
# enough that adding a page size stays within int64 and ``sys.maxsize``.
_MAX_POSITION = 2**62
_REVISION_NAME = re.compile(
    r"games/(?P<game>[^/]+)/revisions/(?P<revision>[1-9][0-9]{0,18})"
)
_MAX_REVISION = 2**63 - 1  # revisions are int64 in every message
_PLAYER_NAME = re.compile(r"games/(?P<game>[^/]+)/players/(?P<seat>0|[1-9][0-9]?)")


def parse_game_name(name: str, field: str = "name") -> UUID:
    """Returns the game id of a ``games/{game}`` resource name."""
    game_id = name.removeprefix(_GAME_PREFIX) if name.startswith(_GAME_PREFIX) else ""
    parsed = _canonical_uuid(game_id)
    if parsed is None:
        raise ApiError(
            bad_request(
                "INVALID_NAME",
                f"{field} must be a game resource name like 'games/<uuid>'.",
                [FieldViolation(field, "expected games/<uuid>")],
                {"field": field},
            )
        )
    return parsed


def parse_revision_name(name: str, field: str = "name") -> tuple[UUID, int]:
    """Returns the game id and revision of ``games/{game}/revisions/{revision}``.

    The revision is a decimal number from 1 (the game's creation) to the int64
    maximum, without leading zeros: one spelling per revision.
    """
    found = _REVISION_NAME.fullmatch(name)
    game_id = _canonical_uuid(found["game"]) if found else None
    revision = int(found["revision"]) if found else 0
    if game_id is None or not 1 <= revision <= _MAX_REVISION:
        raise ApiError(
            bad_request(
                "INVALID_NAME",
                f"{field} must be a revision resource name like "
                "'games/<uuid>/revisions/<n>', n >= 1.",
                [FieldViolation(field, "expected games/<uuid>/revisions/<n>, n >= 1")],
                {"field": field},
            )
        )
    return game_id, revision


def parse_player_name(name: str, field: str = "name") -> tuple[UUID, int]:
    """Returns the game id and seat of ``games/{game}/players/{seat}``."""
    found = _PLAYER_NAME.fullmatch(name)
    game_id = _canonical_uuid(found["game"]) if found else None
    if found is None or game_id is None:
        raise ApiError(
            bad_request(
                "INVALID_NAME",
                f"{field} must be a player resource name like "
                "'games/<uuid>/players/<seat>'.",
                [FieldViolation(field, "expected games/<uuid>/players/<seat>")],
                {"field": field},
            )
        )
    return game_id, int(found["seat"])


def _canonical_uuid(text: str) -> UUID | None:
    """Returns the UUID ``text`` spells, None unless in its one spelling.

    One spelling per game (AIP-122): the lower-case, hyphenated form.
    """
    try:
        parsed = UUID(text)
    except ValueError:
        return None
    return parsed if str(parsed) == text else None


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
    return encode_token_data([token.kind, token.position, token.query, token.revision])


def encode_token_data(data: list[Any]) -> str:
    """Returns a page token holding ``data`` (JSON in unpadded base64url)."""
    raw = json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_token_data(text: str) -> Any:
    """Returns what a page token of ``encode_token_data`` holds; refuses an
    over-long or unreadable one as not this listing's."""
    if len(text) > MAX_PAGE_TOKEN:
        raise foreign_page_token()
    try:
        return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, TypeError, binascii.Error):
        raise foreign_page_token() from None


def decode_page_token(text: str, kind: str, query: str) -> PageToken | None:
    """Returns the token of a listing, None for the first page.

    A token from another listing or another query is refused (AIP-158).
    """
    if not text:
        return None
    data = decode_token_data(text)
    try:
        token = PageToken(str(data[0]), int(data[1]), str(data[2]), int(data[3]))
    except (ValueError, TypeError, IndexError, KeyError):
        token = None
    if (
        token is None
        or token.kind != kind
        or token.query != query
        or not 0 <= token.position <= _MAX_POSITION
    ):
        raise foreign_page_token()
    return token


def foreign_page_token() -> ApiError:
    return ApiError(
        bad_request(
            "INVALID_PAGE_TOKEN",
            "page_token does not belong to this listing; start again without it.",
            [FieldViolation("page_token", "not a token of this listing")],
        )
    )


def identify(request: Message, method: str, token: str | None) -> tuple[str, str]:
    """Returns the key of the request's id and the fingerprint of the request.

    The key is what the store keeps and compares (services/request_ids.py);
    the raw id goes no further than this call.
    """
    request_id, fingerprint = identify_secret(request, method, token)
    return request_key(request_id), fingerprint


# Fields that never tell a retry from a reuse: the id itself, and how much of
# the answer to send (a retry may ask for the game in full or basic alike).
_NOT_FINGERPRINTED = ("request_id", "view")


def identify_secret(
    request: Message, method: str, token: str | None
) -> tuple[str, str]:
    """Returns the raw request id and the fingerprint that tells a retry from a reuse.

    Only ``CreateGame`` and ``JoinGame`` need the raw id: the seat token a retry
    gets back derives from it. The fingerprint covers the method, the
    request's content (its id and the view it asks for aside) and the caller's
    credentials, so the same id sent with anything else is refused.
    """
    request_id = str(getattr(request, "request_id", ""))
    if len(request_id) > MAX_REQUEST_ID or not request_id.isprintable():
        raise ApiError(
            bad_request(
                "INVALID_REQUEST_ID",
                f"request_id must be printable and at most {MAX_REQUEST_ID} "
                "characters; a UUID4 is recommended.",
                [FieldViolation("request_id", "not a usable request id")],
            )
        )
    if not request_id:
        return "", ""
    content = type(request)()
    content.CopyFrom(request)
    for answer_only in _NOT_FINGERPRINTED:
        if answer_only in content.DESCRIPTOR.fields_by_name:
            content.ClearField(answer_only)
    digest = hashlib.sha256(method.encode() + b"\x00")
    digest.update(content.SerializeToString(deterministic=True))
    digest.update(b"\x00" + hashlib.sha256((token or "").encode()).digest())
    return request_id, digest.hexdigest()
