"""Access tokens: forgeries refused, the happy path, the key files and the cache."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from services.sessions import (
    MAX_TOKEN_CHARS,
    SessionClaims,
    SessionKey,
    Sessions,
    looks_like_session,
)
from services.signing import KeyFileError, SigningKey
from tests.playing import Clock

PLAYER = uuid.UUID("7b0c7e52-4a6f-4d52-9d8e-2f4b8a3c1e01")
SIGN_IN = uuid.UUID("1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a10")


@pytest.fixture
def key() -> SessionKey:
    return SessionKey.generate()


@pytest.fixture
def sessions(key: SessionKey, clock: Clock) -> Sessions:
    return Sessions(key, clock=clock)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _segment(value: object) -> str:
    return _b64(json.dumps(value).encode())


def _claims(clock: Clock, **changes: Any) -> dict[str, Any]:
    """Returns the claims of a valid token now, changed (None removes a claim)."""
    now = int(clock.now.timestamp())
    claims: dict[str, Any] = {
        "iss": "tabletop",
        "aud": "tabletop",
        "sub": str(PLAYER),
        "sid": str(SIGN_IN),
        "iat": now,
        "exp": now + 3600,
        "jti": secrets.token_urlsafe(16),
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def _signed(key: SessionKey, claims: dict[str, Any], **header: Any) -> str:
    """Returns ``claims`` signed by the right key, with header fields changed."""
    headers = {"typ": "at+jwt", "kid": key.fingerprint, **header}
    return jwt.encode(claims, key.private_bytes(), algorithm="EdDSA", headers=headers)


def _hs256(claims: dict[str, Any], secret: bytes) -> str:
    """Returns an HS256 token, made by hand (PyJWT refuses a PEM as HMAC secret)."""
    header = {"alg": "HS256", "typ": "at+jwt"}
    signing_input = f"{_segment(header)}.{_segment(claims)}"
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(mac)}"


# --- Forgeries ---


def test_refuses_a_token_with_alg_none(sessions: Sessions, clock: Clock) -> None:
    for alg in ("none", "None", "NONE"):
        header = {"alg": alg, "typ": "at+jwt"}
        unsigned = f"{_segment(header)}.{_segment(_claims(clock))}."
        assert sessions.verify(unsigned) is None
        assert sessions.verify(unsigned + "AAAA") is None


def test_refuses_hs256_keyed_with_the_public_key(
    key: SessionKey, sessions: Sessions, clock: Clock
) -> None:
    public = key.public_key
    secrets_an_attacker_knows = [
        key.public.raw,
        key.public.text.encode(),
        public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
        public.public_bytes(
            serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
        ),
    ]
    for secret in secrets_an_attacker_knows:
        assert sessions.verify(_hs256(_claims(clock), secret)) is None


def test_refuses_a_token_signed_by_another_key_under_our_kid(
    key: SessionKey, sessions: Sessions, clock: Clock
) -> None:
    other = SessionKey.generate()
    forged = _signed(other, _claims(clock), kid=key.fingerprint)
    assert sessions.verify(forged) is None


def test_refuses_a_token_whose_payload_was_changed(
    sessions: Sessions, clock: Clock
) -> None:
    header, _, signature = sessions.issue(PLAYER, SIGN_IN).token.split(".")
    someone_else = _segment(_claims(clock, sub=str(uuid.uuid4())))
    assert sessions.verify(f"{header}.{someone_else}.{signature}") is None


def _signer(algorithm: str) -> ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | bytes:
    if algorithm == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    if algorithm == "RS256":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return secrets.token_bytes(32)


@pytest.mark.parametrize("algorithm", ["ES256", "RS256", "HS256"])
def test_refuses_every_other_algorithm(
    sessions: Sessions, clock: Clock, algorithm: str
) -> None:
    token = jwt.encode(
        _claims(clock), _signer(algorithm), algorithm, headers={"typ": "at+jwt"}
    )
    assert sessions.verify(token) is None


def test_refuses_an_expired_token_past_the_leeway(
    sessions: Sessions, clock: Clock
) -> None:
    token = sessions.issue(PLAYER, SIGN_IN).token
    clock.advance(3600 + 29)
    assert sessions.verify(token) is not None  # within the 30 s of skew
    fresh = Sessions(sessions._key, clock=clock).issue(PLAYER, SIGN_IN).token
    clock.advance(3600 + 30)
    assert sessions.verify(fresh) is None


def test_refuses_a_token_issued_in_the_future(key: SessionKey, clock: Clock) -> None:
    ahead = Clock()
    ahead.now = clock.now + timedelta(seconds=31)
    token = Sessions(key, clock=ahead).issue(PLAYER, SIGN_IN).token
    assert Sessions(key, clock=clock).verify(token) is None
    ahead.now = clock.now + timedelta(seconds=29)
    token = Sessions(key, clock=ahead).issue(PLAYER, SIGN_IN).token
    assert Sessions(key, clock=clock).verify(token) is not None


@pytest.mark.parametrize("claim", ["iss", "aud", "sub", "sid", "iat", "exp", "jti"])
def test_refuses_a_token_missing_a_claim(
    key: SessionKey, sessions: Sessions, clock: Clock, claim: str
) -> None:
    assert sessions.verify(_signed(key, _claims(clock))) is not None
    assert sessions.verify(_signed(key, _claims(clock, **{claim: None}))) is None


@pytest.mark.parametrize(
    "changes",
    [
        {"sub": "not-a-uuid"},
        {"sub": str(PLAYER).upper()},
        {"sub": PLAYER.hex},
        {"sub": 7},
        {"sid": ""},
        {"sid": f"urn:uuid:{SIGN_IN}"},
        {"sid": [str(SIGN_IN)]},
        {"aud": "someone-else"},
        {"aud": ["tabletop", "someone-else"]},
        {"iss": "https://evil.example"},
        {"exp": "4102444800"},
        {"exp": True},
        {"iat": True},
        {"iat": 1.5},
        {"exp": 10**30},
        {"jti": 12},
    ],
    ids=repr,
)
def test_refuses_a_token_with_a_wrong_claim(
    key: SessionKey, sessions: Sessions, clock: Clock, changes: dict[str, Any]
) -> None:
    assert sessions.verify(_signed(key, _claims(clock, **changes))) is None


@pytest.mark.parametrize(
    "header", [{"typ": "JWT"}, {"typ": None}, {"typ": "at+JWT"}], ids=repr
)
def test_refuses_a_token_of_another_type(
    key: SessionKey, sessions: Sessions, clock: Clock, header: dict[str, Any]
) -> None:
    headers = {"typ": "at+jwt", "kid": key.fingerprint, **header}
    claims = _claims(clock)
    token = jwt.encode(claims, key.private_bytes(), "EdDSA", headers=headers)
    assert sessions.verify(token) is None


def test_refuses_a_token_of_another_issuer(key: SessionKey, clock: Clock) -> None:
    token = Sessions(key, issuer="staging", clock=clock).issue(PLAYER, SIGN_IN).token
    assert Sessions(key, clock=clock).verify(token) is None
    assert Sessions(key, issuer="staging", clock=clock).verify(token) is not None


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        ".",
        "..",
        "a.b.c",
        "a.b.c.d.e",
        "not a token",
        "nL3kXwQRUTV5Ln9Ht_T6nt1_fiARYfVsD83xXK31Ywo",  # a seat token
        "eyJhbGciOiJFZERTQSJ9.e30.",
        f"{_segment([1, 2])}.{_segment({})}.AAAA",
        f"{_segment({'alg': 'EdDSA', 'crit': ['x']})}.{_segment({})}.AAAA",
        f"{_segment({'alg': {'EdDSA': 1}})}.{_segment({})}.AAAA",
        "é.é.é",
        "\ud800.a.b",
    ],
    ids=repr,
)
def test_refuses_garbage(sessions: Sessions, garbage: str) -> None:
    assert sessions.verify(garbage) is None


def test_refuses_an_over_long_token_before_reading_it(
    key: SessionKey, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_issuer = "x" * MAX_TOKEN_CHARS
    sessions = Sessions(key, issuer=long_issuer, clock=clock)
    token = sessions.issue(PLAYER, SIGN_IN).token
    assert len(token) > MAX_TOKEN_CHARS

    def must_not_decode(*args: object, **kwargs: object) -> None:
        raise AssertionError

    monkeypatch.setattr(jwt, "decode_complete", must_not_decode)
    assert sessions.verify(token) is None


# --- The happy path ---


def test_an_issued_token_verifies_to_its_player_and_sign_in(
    sessions: Sessions, clock: Clock
) -> None:
    issued = sessions.issue(PLAYER, SIGN_IN)
    assert issued.expires_at == clock.now + timedelta(hours=1)
    assert sessions.verify(issued.token) == SessionClaims(
        PLAYER, SIGN_IN, issued.expires_at, clock.now
    )


def _unverified(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def test_a_token_carries_the_claims_and_header_of_an_access_token(
    key: SessionKey, clock: Clock
) -> None:
    sessions = Sessions(key, lifetime=timedelta(minutes=5), clock=clock)
    token = sessions.issue(PLAYER, SIGN_IN).token
    header = jwt.get_unverified_header(token)
    claims = _unverified(token)
    now = int(clock.now.timestamp())
    assert header == {"alg": "EdDSA", "typ": "at+jwt", "kid": key.fingerprint}
    assert (
        claims.pop("jti") != _unverified(sessions.issue(PLAYER, SIGN_IN).token)["jti"]
    )
    assert claims == {
        "iss": "tabletop",
        "aud": "tabletop",
        "sub": str(PLAYER),
        "sid": str(SIGN_IN),
        "iat": now,
        "exp": now + 300,
    }


def test_a_jti_carries_128_random_bits(sessions: Sessions) -> None:
    claims = _unverified(sessions.issue(PLAYER, SIGN_IN).token)
    assert len(base64.urlsafe_b64decode(claims["jti"] + "==")) == 16


def test_another_process_given_the_key_verifies_the_tokens(
    key: SessionKey, sessions: Sessions, clock: Clock
) -> None:
    handed = SessionKey.from_bytes(key.private_bytes(), ephemeral=True)
    assert handed.fingerprint == key.fingerprint
    assert handed.ephemeral is True
    assert Sessions(handed, clock=clock).verify(sessions.issue(PLAYER, SIGN_IN).token)


def test_a_lifetime_under_a_second_is_refused(key: SessionKey) -> None:
    with pytest.raises(ValueError, match="a second or more"):
        Sessions(key, lifetime=timedelta(milliseconds=500))


@pytest.mark.parametrize(
    ("token", "shaped"),
    [
        ("eyJh.eyJz.c2ln", True),
        ("a-_b.C.9", True),
        ("nL3kXwQRUTV5Ln9Ht_T6nt1_fiARYfVsD83xXK31Ywo", False),  # a seat token
        ("", False),
        ("a.b", False),
        ("a..c", False),
        ("a.b.c.d", False),
        ("a.b.c\n", False),
        ("a.b.c=", False),
        ("a b.c.d", False),
    ],
)
def test_looks_like_session_tells_a_jwt_from_a_seat_token(
    token: str, shaped: bool
) -> None:
    assert looks_like_session(token) is shaped


def test_an_issued_token_looks_like_a_session(sessions: Sessions) -> None:
    assert looks_like_session(sessions.issue(PLAYER, SIGN_IN).token)


# --- Keys ---


def test_a_key_file_written_by_keygen_reads_as_a_session_key(tmp_path: Path) -> None:
    path = tmp_path / "session.pem"
    SigningKey.generate(ephemeral=False).write(path)
    key = SessionKey.from_file(path)
    assert key.ephemeral is False
    assert key.fingerprint == SigningKey.from_file(path).public.fingerprint
    assert key.fingerprint.startswith("SHA256:")
    assert SessionKey.from_bytes(key.private_bytes(), ephemeral=False).private_bytes()
    assert key.private_bytes() == path.read_bytes()


def test_a_missing_or_wrong_key_file_is_refused_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    with pytest.raises(KeyFileError, match=r"missing\.pem"):
        SessionKey.from_file(missing)
    wrong = tmp_path / "rsa.pem"
    wrong.write_bytes(
        rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(KeyFileError, match=r"rsa\.pem"):
        SessionKey.from_file(wrong)


@pytest.mark.parametrize(
    "pem", [b"", b"garbage", b"-----BEGIN PRIVATE KEY-----\n" + b"A" * 5000]
)
def test_bytes_that_are_no_ed25519_key_are_refused(pem: bytes) -> None:
    with pytest.raises(KeyFileError, match="Ed25519"):
        SessionKey.from_bytes(pem, ephemeral=True)


def test_a_key_never_shows_itself(key: SessionKey) -> None:
    text = repr(key)
    assert text == f"SessionKey({key.fingerprint}, ephemeral=True)"
    assert key.private_bytes().decode() not in text
    assert SessionKey.generate(ephemeral=False).ephemeral is False


# --- The cache ---


def _count_decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    decode = jwt.decode_complete

    def counting(token: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(token)
        return decode(token, *args, **kwargs)

    monkeypatch.setattr(jwt, "decode_complete", counting)
    return calls


def test_a_verified_token_is_checked_once(
    sessions: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = sessions.issue(PLAYER, SIGN_IN).token
    decodes = _count_decodes(monkeypatch)
    first = sessions.verify(token)
    assert first is not None
    assert [sessions.verify(token) for _ in range(5)] == [first] * 5
    assert decodes == [token]


def test_a_cached_token_stops_verifying_when_it_expires(
    sessions: Sessions, clock: Clock
) -> None:
    token = sessions.issue(PLAYER, SIGN_IN).token
    assert sessions.verify(token) is not None
    clock.advance(3600 + 30)
    assert sessions.verify(token) is None
    assert sessions.verify(token) is None


def test_a_refused_token_is_not_cached(
    key: SessionKey, sessions: Sessions, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    forged = _signed(SessionKey.generate(), _claims(clock), kid=key.fingerprint)
    decodes = _count_decodes(monkeypatch)
    assert sessions.verify(forged) is None
    assert sessions.verify(forged) is None
    assert len(decodes) == 2


def test_the_cache_forgets_the_least_recently_used_token(
    key: SessionKey, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = Sessions(key, clock=clock, cache_entries=2)
    first, second, third = (sessions.issue(PLAYER, SIGN_IN).token for _ in range(3))
    decodes = _count_decodes(monkeypatch)
    for token in (first, second, first, third, first, second):
        assert sessions.verify(token) is not None
    assert decodes == [first, second, third, second]


def test_many_threads_verify_at_once(sessions: Sessions) -> None:
    tokens = [sessions.issue(uuid.uuid4(), SIGN_IN).token for _ in range(50)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(sessions.verify, tokens * 20))
    assert all(result is not None for result in results)
    players = {result.player_id for result in results if result is not None}
    assert len(players) == 50
