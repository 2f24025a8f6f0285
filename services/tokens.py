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
