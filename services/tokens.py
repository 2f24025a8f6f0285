"""Seat tokens: secret bearer credentials, of which the store keeps only hashes.

A seat taken by a request that carries a ``request_id`` gets a token derived from
the game's secret seed, so a retry of that request (through any server process)
can return the same token without the token ever being stored.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import uuid

_TOKEN_LABEL = b"tabletop/seat-token/v1\x00"
_INVITE_LABEL = b"tabletop/invite-code/v1\x00"
# An invite code: 16 letters of base32 (80 random bits), in groups of four.
INVITE_CODE_BYTES = 10
_INVITE_GROUP = 4
# The longest invite code a request may carry, however it is spelled.
MAX_INVITE_CODE = 64
# Game ids of CreateGame requests that carry a request_id derive from it, so a
# retry through another process finds the game the first attempt created.
_GAME_NAMESPACE = uuid.UUID("5b7f4c36-5f0c-4a8e-9c61-1f3f1f0d2a71")


def new_token() -> str:
    """Returns a fresh random seat token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def seat_token(seed_hex: str, game_id: uuid.UUID, seat: int, request_id: str) -> str:
    """Returns the token of a seat taken by an identified request."""
    message = _TOKEN_LABEL + game_id.bytes + seat.to_bytes(2, "big")
    message += request_id.encode("utf-8")
    digest = hmac.new(bytes.fromhex(seed_hex), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def token_hash(token: str) -> str:
    """Returns the hash under which a seat token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def game_id_for(request_id: str) -> uuid.UUID:
    """Returns the id of the game a CreateGame request creates."""
    return uuid.uuid5(_GAME_NAMESPACE, request_id) if request_id else uuid.uuid4()


def invite_code(
    seed_hex: str, game_id: uuid.UUID, purpose: str, request_id: str
) -> str:
    """Returns a private table's invite code: 80 bits, readable, safe in a link.

    Set by an identified request (``request_id``), the code derives from the
    game's secret seed and the request, so that a retry returns the same code
    without the code ever being stored; otherwise it is random. ``purpose``
    tells the code a table opened with from those its host set later.
    """
    if request_id:
        message = _INVITE_LABEL + game_id.bytes + purpose.encode() + b"\x00"
        message += request_id.encode("utf-8")
        key = bytes.fromhex(seed_hex)
        raw = hmac.new(key, message, hashlib.sha256).digest()[:INVITE_CODE_BYTES]
    else:
        raw = secrets.token_bytes(INVITE_CODE_BYTES)
    letters = base64.b32encode(raw).decode("ascii").lower()
    groups = range(0, len(letters), _INVITE_GROUP)
    return "-".join(letters[i : i + _INVITE_GROUP] for i in groups)


def invite_hash(code: str) -> str:
    """Returns the hash under which an invite code is stored ("" for no code).

    Case, dashes and spaces do not matter: a code read aloud or retyped from a
    link still works.
    """
    letters = "".join(ch for ch in code.lower() if ch not in "- ")
    if not letters:
        return ""
    return hashlib.sha256(_INVITE_LABEL + letters.encode("utf-8")).hexdigest()
