"""Checking OpenID Connect ID tokens from the identity providers the server trusts.

A player signs in with an identity provider and hands the server the ID token
the provider gave its client; ``IdTokenVerifier.verify`` returns whom the
provider vouches for, or why the token is refused. The providers come from a
JSON file (``load_providers``): each one's issuer, the client ids its tokens may
be addressed to, and where its public keys are, a JWKS URL or file. PyJWT checks
the signatures; a JWKS URL is fetched again for an unknown key id at most once a
minute, so made-up key ids cannot make the server fetch on every call.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeAlias, TypeGuard

import jwt
from jwt.types import Options

# The reasons of a refusal (secrets scanners take them for passwords).
ID_TOKEN_MALFORMED = "ID_TOKEN_MALFORMED"  # noqa: S105
ISSUER_NOT_TRUSTED = "ISSUER_NOT_TRUSTED"
ID_TOKEN_INVALID = "ID_TOKEN_INVALID"  # noqa: S105
ID_TOKEN_EXPIRED = "ID_TOKEN_EXPIRED"  # noqa: S105
JWKS_UNAVAILABLE = "JWKS_UNAVAILABLE"

ALGORITHMS = ("RS256", "ES256", "EdDSA")
MAX_ID_TOKEN_CHARS = 8192
MAX_SUBJECT_CHARS = 255
LEEWAY = timedelta(seconds=60)
REFETCH_INTERVAL = timedelta(minutes=1)
JWKS_LIFESPAN_SECONDS = 3600
JWKS_TIMEOUT_SECONDS = 5
MAX_FILE_BYTES = 1 << 20
_FIELDS = frozenset({"issuer", "audiences", "jwks"})
# exp, iat and nbf are checked against the injected clock, not PyJWT's.
_OPTIONS: Options = {
    "require": ["iss", "aud", "sub", "exp", "iat"],
    "verify_exp": False,
    "verify_iat": False,
    "verify_nbf": False,
    "enforce_minimum_key_length": True,
}

Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


class ProviderConfigError(ValueError):
    """A provider configuration that cannot be used, with a message a person reads."""


@dataclass(frozen=True, slots=True)
class Provider:
    """An identity provider: its issuer, accepted client ids and key set location."""

    issuer: str
    audiences: tuple[str, ...]
    jwks: str  # an http(s) URL or an absolute file path


@dataclass(frozen=True, slots=True)
class VerifiedIdentity:
    """Whom a provider vouches for: its issuer, its subject id and a display name."""

    issuer: str
    subject: str
    name: str


@dataclass(frozen=True, slots=True)
class IdTokenRefused:
    """Why an ID token is refused: a stable reason and a message for a person."""

    reason: str
    message: str


def load_providers(path: Path) -> tuple[Provider, ...]:
    """Returns the providers in a file ``{"providers": [{issuer, audiences, jwks}]}``.

    A relative ``jwks`` file path is taken from the file's own folder.
    """
    document = _read_json(path)
    if not isinstance(document, dict) or set(document) != {"providers"}:
        msg = f'{path} must hold one object, {{"providers": [...]}}'
        raise ProviderConfigError(msg)
    entries = document["providers"]
    if not isinstance(entries, list) or not entries:
        msg = f'{path}: "providers" must be a list of at least one provider'
        raise ProviderConfigError(msg)
    providers = tuple(
        _provider(f"{path}: providers[{index}]", path.parent, entry)
        for index, entry in enumerate(entries)
    )
    _check_unique(str(path), providers)
    return providers


def _read_json(path: Path) -> Any:
    """Returns the JSON document in a file, or raises naming the file."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        msg = f"cannot read {path}: {error.strerror}"
        raise ProviderConfigError(msg) from None
    if len(data) > MAX_FILE_BYTES:
        msg = f"{path} is larger than {MAX_FILE_BYTES} bytes"
        raise ProviderConfigError(msg)
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        msg = f"{path} is not JSON: {error}"
        raise ProviderConfigError(msg) from None


def _provider(where: str, directory: Path, entry: object) -> Provider:
    """Returns the provider of one entry of the file, or raises saying what is wrong."""
    if not isinstance(entry, dict):
        msg = f"{where} must be an object with issuer, audiences and jwks"
        raise ProviderConfigError(msg)
    if missing := sorted(_FIELDS - entry.keys()):
        msg = f"{where} lacks {', '.join(missing)}"
        raise ProviderConfigError(msg)
    if unknown := sorted(entry.keys() - _FIELDS):
        msg = f"{where} has unknown keys {', '.join(unknown)} (issuer, audiences, jwks)"
        raise ProviderConfigError(msg)
    issuer, audiences = entry["issuer"], entry["audiences"]
    if not _text(issuer):
        msg = f"{where}: issuer must be a non-empty string"
        raise ProviderConfigError(msg)
    if not isinstance(audiences, list) or not all(_text(a) for a in audiences):
        msg = f"{where}: audiences must be a list of client ids (non-empty strings)"
        raise ProviderConfigError(msg)
    if not audiences:
        msg = f"{where}: audiences is empty; list the client ids tokens may be for"
        raise ProviderConfigError(msg)
    return Provider(issuer, tuple(audiences), _jwks(where, directory, entry["jwks"]))


def _text(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and value != ""


def _jwks(where: str, directory: Path, value: object) -> str:
    """Returns a JWKS URL as it is, or a file path made absolute from ``directory``."""
    if not _text(value):
        msg = f"{where}: jwks must be an http(s) URL or a file path"
        raise ProviderConfigError(msg)
    if value.startswith(("https://", "http://")):
        return value
    if "://" in value:
        msg = f"{where}: jwks {value!r} is neither an http(s) URL nor a file path"
        raise ProviderConfigError(msg)
    return str((directory / value).absolute())


def _check_unique(where: str, providers: Iterable[Provider]) -> None:
    seen: set[str] = set()
    for provider in providers:
        if provider.issuer in seen:
            msg = f"{where}: two providers have the issuer {provider.issuer!r}"
            raise ProviderConfigError(msg)
        seen.add(provider.issuer)


class _JwksUnavailableError(Exception):
    """A provider's key set could not be fetched (or may not be fetched yet)."""


def _signing_keys(jwk_set: jwt.PyJWKSet) -> tuple[jwt.PyJWK, ...]:
    """Returns the keys of a set that sign with an algorithm accepted here."""
    return tuple(
        key
        for key in jwk_set.keys
        if key.public_key_use in {"sig", None} and key.algorithm_name in ALGORITHMS
    )


def _match(keys: tuple[jwt.PyJWK, ...], kid: str | None) -> jwt.PyJWK | None:
    """Returns the key named ``kid``; without a kid, the only key if there is one."""
    if kid is None:
        return keys[0] if len(keys) == 1 else None
    return next((key for key in keys if key.key_id == kid), None)


class _FileKeys:
    """A provider's keys in a JWKS file, read once."""

    def __init__(self, path: str) -> None:
        document = _read_json(Path(path))
        try:
            if not isinstance(document, dict):
                raise TypeError  # noqa: TRY301 (one message for every bad file)
            keys = _signing_keys(jwt.PyJWKSet.from_dict(document))
        except (jwt.PyJWTError, TypeError):
            keys = ()
        if not keys:
            msg = f"{path} is not a JWKS with keys for {', '.join(ALGORITHMS)}"
            raise ProviderConfigError(msg)
        self._keys = keys

    def key_for(self, kid: str | None) -> jwt.PyJWK | None:
        return _match(self._keys, kid)


class _RemoteKeys:
    """A provider's keys at a JWKS URL, cached, fetched at most once a minute."""

    def __init__(self, url: str, clock: Clock) -> None:
        self._client = jwt.PyJWKClient(
            url, lifespan=JWKS_LIFESPAN_SECONDS, timeout=JWKS_TIMEOUT_SECONDS
        )
        self._clock = clock
        self._lock = threading.Lock()
        self._fetched_at: datetime | None = None

    def key_for(self, kid: str | None) -> jwt.PyJWK | None:
        """Returns the key named ``kid``, fetching the set when allowed."""
        cached = self._cached()
        if cached is not None and (key := _match(cached, kid)) is not None:
            return key
        with self._lock:
            cached = self._cached()  # another thread may have fetched meanwhile
            if cached is not None and (key := _match(cached, kid)) is not None:
                return key
            if self._may_fetch():
                return _match(self._fetch(), kid)
            if cached is None:
                raise _JwksUnavailableError
            return None

    def _cached(self) -> tuple[jwt.PyJWK, ...] | None:
        cache = self._client.jwk_set_cache
        jwk_set = None if cache is None else cache.get()
        return None if jwk_set is None else _signing_keys(jwk_set)

    def _may_fetch(self) -> bool:
        now = self._clock()
        if self._fetched_at is not None and now - self._fetched_at < REFETCH_INTERVAL:
            return False
        self._fetched_at = now
        return True

    def _fetch(self) -> tuple[jwt.PyJWK, ...]:
        try:
            return _signing_keys(self._client.get_jwk_set(refresh=True))
        except (jwt.PyJWTError, ValueError, OSError) as error:
            raise _JwksUnavailableError from error


_MALFORMED = IdTokenRefused(ID_TOKEN_MALFORMED, "the ID token is not a readable JWT")
_NOT_TRUSTED = IdTokenRefused(
    ISSUER_NOT_TRUSTED, "the ID token comes from an issuer this server does not trust"
)
_UNAVAILABLE = IdTokenRefused(
    JWKS_UNAVAILABLE, "the provider's signing keys cannot be fetched; try again later"
)
_UNKNOWN_KEY = IdTokenRefused(
    ID_TOKEN_INVALID, "the ID token is signed with a key its provider does not publish"
)
_INVALID = IdTokenRefused(
    ID_TOKEN_INVALID,
    "the ID token's signature, issuer, audience or subject is not valid here",
)
_EXPIRED = IdTokenRefused(ID_TOKEN_EXPIRED, "the ID token has expired; sign in again")
_EARLY = IdTokenRefused(
    ID_TOKEN_INVALID, "the ID token is not valid yet (check the clock)"
)


_Keys: TypeAlias = _FileKeys | _RemoteKeys


class IdTokenVerifier:
    """Checks ID tokens against the providers it trusts; thread-safe."""

    def __init__(
        self, providers: Iterable[Provider], *, clock: Clock = _utc_now
    ) -> None:
        """Reads every JWKS file now; a JWKS URL is fetched at the first token."""
        trusted = tuple(providers)
        _check_unique("identity providers", trusted)
        self._clock = clock
        self._trusted: dict[str, tuple[Provider, _Keys]] = {
            provider.issuer: (provider, self._keys(provider)) for provider in trusted
        }

    def _keys(self, provider: Provider) -> _Keys:
        if provider.jwks.startswith(("https://", "http://")):
            return _RemoteKeys(provider.jwks, self._clock)
        return _FileKeys(provider.jwks)

    def verify(self, id_token: str) -> VerifiedIdentity | IdTokenRefused:
        """Returns whom a valid ID token names, or why it is refused."""
        unverified = _unverified(id_token)
        if unverified is None:
            return _MALFORMED
        kid, issuer = unverified
        if issuer not in self._trusted:
            return _NOT_TRUSTED
        provider, keys = self._trusted[issuer]
        try:
            key = keys.key_for(kid)
        except _JwksUnavailableError:
            return _UNAVAILABLE
        if key is None:
            return _UNKNOWN_KEY
        return _checked(id_token, key, provider, self._clock())


def _unverified(id_token: str) -> tuple[str | None, str] | None:
    """Returns a token's kid and issuer, unverified (to pick a key), or None."""
    if len(id_token) > MAX_ID_TOKEN_CHARS or not id_token.isascii():
        return None
    try:
        decoded = jwt.decode_complete(id_token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return None
    issuer = decoded["payload"].get("iss")
    kid = decoded["header"].get("kid")  # PyJWT refuses a kid that is not a string
    return (kid, issuer) if isinstance(issuer, str) else None


def _checked(
    id_token: str, key: jwt.PyJWK, provider: Provider, now: datetime
) -> VerifiedIdentity | IdTokenRefused:
    """Returns the identity in a token signed by ``key``, checked at ``now``."""
    try:
        claims = jwt.decode(
            id_token,
            key,
            algorithms=list(ALGORITHMS),
            audience=list(provider.audiences),
            issuer=provider.issuer,
            options=_OPTIONS,
        )
    except jwt.PyJWTError:
        return _INVALID
    if (refused := _untimely(claims, now)) is not None:
        return refused
    subject = claims["sub"]  # PyJWT has made sure it is a string
    if not 0 < len(subject) <= MAX_SUBJECT_CHARS:
        return _INVALID
    name = claims.get("name")
    return VerifiedIdentity(provider.issuer, subject, name if _text(name) else "")


def _untimely(claims: dict[str, Any], now: datetime) -> IdTokenRefused | None:
    """Returns why a token's times refuse it at ``now``, or None if they do not."""
    stamp = now.timestamp()
    leeway = LEEWAY.total_seconds()
    expires, issued = _seconds(claims["exp"]), _seconds(claims["iat"])
    not_before = _seconds(claims.get("nbf", 0))
    if expires is None or issued is None or not_before is None:
        return _INVALID
    if expires <= stamp - leeway:
        return _EXPIRED
    if issued > stamp + leeway or not_before > stamp + leeway:
        return _EARLY
    return None


def _seconds(value: object) -> float | None:
    """Returns a NumericDate's seconds, None if it is not a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None
