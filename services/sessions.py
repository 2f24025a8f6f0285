"""Access tokens for signed-in players: short-lived JWTs the server signs itself.

A player who has signed in holds an access token: a JWT of type ``at+jwt``
(RFC 9068), signed with EdDSA by the server's session key, naming the player
(``sub``) and the sign-in it belongs to (``sid``). Every server process holding
the key checks one without a database: ``Sessions.verify`` returns its claims or
None, and remembers the tokens it has checked so that a busy client costs one
signature check per token rather than one per call. The key is an Ed25519 key
like the audit signing key of ``services.signing``, whose key files, errors and
fingerprints it shares; PyJWT and ``cryptography`` do the signing.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import jwt
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from jwt.types import Options

from services.signing import MAX_KEY_FILE_BYTES, KeyFileError, PublicKey, SigningKey

AUDIENCE = "tabletop"
TOKEN_TYPE = "at+jwt"  # noqa: S105 (a media type, not a secret)
ALGORITHM = "EdDSA"
# A token of ours is about 400 characters; anything far longer is not one.
MAX_TOKEN_CHARS = 2048
# Clocks of the processes that issue and check a token may differ a little.
LEEWAY = timedelta(seconds=30)
CACHE_ENTRIES = 4096
_CLAIMS = ["iss", "aud", "sub", "sid", "iat", "exp", "jti"]
# exp and iat are checked against the injected clock, not PyJWT's.
_OPTIONS: Options = {
    "require": _CLAIMS,
    "strict_aud": True,
    "verify_exp": False,
    "verify_iat": False,
    "verify_nbf": False,
}
_JWT_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")

Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def looks_like_session(token: str) -> bool:
    """Tells whether a bearer token has a JWT's shape (seat tokens have no dots)."""
    return _JWT_SHAPE.fullmatch(token) is not None


class SessionKey:
    """The Ed25519 private key that signs access tokens; ``repr`` never shows it."""

    def __init__(self, key: Ed25519PrivateKey, *, ephemeral: bool) -> None:
        self._key = key
        self.ephemeral = ephemeral
        self.public = PublicKey(
            key.public_key().public_bytes(
                serialization.Encoding.Raw, serialization.PublicFormat.Raw
            )
        )

    def __repr__(self) -> str:
        return f"SessionKey({self.fingerprint}, ephemeral={self.ephemeral})"

    @property
    def fingerprint(self) -> str:
        """Returns ``SHA256:<unpadded base64>`` of the public key (the tokens' kid)."""
        return self.public.fingerprint

    @property
    def public_key(self) -> Ed25519PublicKey:
        """Returns the public key that checks this key's tokens."""
        return self._key.public_key()

    @classmethod
    def generate(cls, *, ephemeral: bool = True) -> SessionKey:
        """Returns a new key (ephemeral unless it is to be kept in a file)."""
        return cls(Ed25519PrivateKey.generate(), ephemeral=ephemeral)

    @classmethod
    def from_file(cls, path: str | Path) -> SessionKey:
        """Returns the key in a PKCS#8 PEM file, as ``tabletop keygen`` writes.

        Raises ``KeyFileError`` naming the file, as ``SigningKey.from_file`` does.
        """
        raw = SigningKey.from_file(path).private_bytes()
        return cls(Ed25519PrivateKey.from_private_bytes(raw), ephemeral=False)

    @classmethod
    def from_bytes(cls, pem: bytes, *, ephemeral: bool) -> SessionKey:
        """Returns the key of ``private_bytes()`` (to hand a key to a process)."""
        try:
            if len(pem) > MAX_KEY_FILE_BYTES:
                raise ValueError  # noqa: TRY301 (one message for every bad key)
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm):
            key = None
        if not isinstance(key, Ed25519PrivateKey):
            msg = "a session key is an unencrypted Ed25519 private key in PEM"
            raise KeyFileError(msg)
        return cls(key, ephemeral=ephemeral)

    def private_bytes(self) -> bytes:
        """Returns the private key as PKCS#8 PEM."""
        return self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def encode(self, claims: dict[str, Any]) -> str:
        """Returns ``claims`` signed as an access token (EdDSA, kid the fingerprint)."""
        headers = {"typ": TOKEN_TYPE, "kid": self.fingerprint}
        return jwt.encode(claims, self._key, algorithm=ALGORITHM, headers=headers)


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """An access token and the moment it stops being accepted."""

    token: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class SessionClaims:
    """What a valid access token says: who signed in, in which sign-in, until when."""

    player_id: UUID
    sign_in_id: UUID
    expires_at: datetime
    issued_at: datetime


class Sessions:
    """Issues access tokens and checks them, remembering the ones it has checked."""

    def __init__(
        self,
        key: SessionKey,
        *,
        issuer: str = "tabletop",
        lifetime: timedelta = timedelta(hours=1),
        clock: Clock = _utc_now,
        cache_entries: int = CACHE_ENTRIES,
    ) -> None:
        if lifetime < timedelta(seconds=1):
            msg = f"an access token must live a second or more, not {lifetime}"
            raise ValueError(msg)
        self._key = key
        self._issuer = issuer
        self._lifetime = int(lifetime.total_seconds())
        self._clock = clock
        self._verified = _VerifiedTokens(cache_entries)

    def issue(self, player_id: UUID, sign_in_id: UUID) -> IssuedToken:
        """Returns an access token for ``player_id`` in the sign-in ``sign_in_id``."""
        issued_at = int(self._clock().timestamp())
        expires_at = issued_at + self._lifetime
        claims = {
            "iss": self._issuer,
            "aud": AUDIENCE,
            "sub": str(player_id),
            "sid": str(sign_in_id),
            "iat": issued_at,
            "exp": expires_at,
            "jti": secrets.token_urlsafe(16),
        }
        token = self._key.encode(claims)
        return IssuedToken(token, datetime.fromtimestamp(expires_at, UTC))

    def verify(self, token: str) -> SessionClaims | None:
        """Returns the claims of a valid, unexpired token of this key; else None."""
        if len(token) > MAX_TOKEN_CHARS or not token.isascii():
            return None
        digest = hashlib.sha256(token.encode("ascii")).digest()
        now = self._clock()
        claims = self._verified.get(digest, now)
        if claims is None:
            claims = self._decode(token, now)
            if claims is not None:
                self._verified.put(digest, claims)
        return claims

    def _decode(self, token: str, now: datetime) -> SessionClaims | None:
        try:
            decoded = jwt.decode_complete(
                token,
                self._key.public_key,
                algorithms=[ALGORITHM],
                audience=AUDIENCE,
                issuer=self._issuer,
                options=_OPTIONS,
            )
        except jwt.PyJWTError:
            return None
        if decoded["header"].get("typ") != TOKEN_TYPE:
            return None
        return _session_claims(decoded["payload"], now)


def _session_claims(payload: dict[str, Any], now: datetime) -> SessionClaims | None:
    """Returns the claims of a signed payload if they are well formed and current."""
    expires_at = _instant(payload["exp"])
    issued_at = _instant(payload["iat"])
    player_id = _uuid(payload["sub"])
    sign_in_id = _uuid(payload["sid"])
    if (
        expires_at is None
        or issued_at is None
        or player_id is None
        or sign_in_id is None
        or issued_at > now + LEEWAY
    ):
        return None
    claims = SessionClaims(player_id, sign_in_id, expires_at, issued_at)
    return claims if _current(claims, now) else None


def _current(claims: SessionClaims, now: datetime) -> bool:
    """Tells whether a token is still accepted at ``now`` (as PyJWT counts exp)."""
    return claims.expires_at > now - LEEWAY


def _instant(value: object) -> datetime | None:
    """Returns the moment of a whole-second NumericDate, None if it is not one."""
    if type(value) is not int:  # bool is an int too
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _uuid(value: object) -> UUID | None:
    """Returns the UUID of its canonical spelling, None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        parsed = UUID(value)
    except ValueError:
        return None
    return parsed if str(parsed) == value else None


class _VerifiedTokens:
    """Claims of tokens verified lately, by SHA-256 of the token; LRU, thread-safe."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[bytes, SessionClaims] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, digest: bytes, now: datetime) -> SessionClaims | None:
        """Returns the remembered claims if they are still current."""
        with self._lock:
            claims = self._entries.get(digest)
            if claims is None:
                return None
            if not _current(claims, now):
                del self._entries[digest]
                return None
            self._entries.move_to_end(digest)
            return claims

    def put(self, digest: bytes, claims: SessionClaims) -> None:
        """Remembers ``claims``, forgetting the least recently used beyond capacity."""
        with self._lock:
            self._entries[digest] = claims
            self._entries.move_to_end(digest)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
