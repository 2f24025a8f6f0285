"""ID tokens: forgeries refused, keys from files and URLs, the providers file."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

from services.identities import (
    ID_TOKEN_EXPIRED,
    ID_TOKEN_INVALID,
    ID_TOKEN_MALFORMED,
    ISSUER_NOT_TRUSTED,
    JWKS_UNAVAILABLE,
    MAX_ID_TOKEN_CHARS,
    IdTokenRefused,
    IdTokenVerifier,
    Provider,
    ProviderConfigError,
    VerifiedIdentity,
    load_providers,
)
from tests.playing import Clock

ISSUER = "https://accounts.example"
OTHER_ISSUER = "https://login.other.example"
CLIENT = "tabletop-android"
SUBJECT = "248289761001"

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey


@dataclass(frozen=True)
class Signer:
    """A provider's private key, the algorithm it signs with and its key id."""

    key: PrivateKey
    algorithm: str
    kid: str

    def jwk(self) -> dict[str, Any]:
        public = self.key.public_key()
        if isinstance(public, rsa.RSAPublicKey):
            jwk = RSAAlgorithm.to_jwk(public, as_dict=True)
        elif isinstance(public, ec.EllipticCurvePublicKey):
            jwk = ECAlgorithm.to_jwk(public, as_dict=True)
        else:
            jwk = OKPAlgorithm.to_jwk(public, as_dict=True)
        return {**jwk, "kid": self.kid, "use": "sig"}

    def sign(self, claims: dict[str, Any], **header: Any) -> str:
        headers = {"kid": self.kid, **header}
        return jwt.encode(claims, self.key, self.algorithm, headers=headers)


def _rsa(kid: str = "rsa-1", size: int = 2048) -> Signer:
    key = rsa.generate_private_key(public_exponent=65537, key_size=size)
    return Signer(key, "RS256", kid)


def _ec(kid: str = "ec-1") -> Signer:
    return Signer(ec.generate_private_key(ec.SECP256R1()), "ES256", kid)


def _ed25519(kid: str = "ed-1") -> Signer:
    return Signer(ed25519.Ed25519PrivateKey.generate(), "EdDSA", kid)


@pytest.fixture(scope="module")
def signer() -> Signer:
    return _rsa()


def _claims(clock: Clock, **changes: Any) -> dict[str, Any]:
    """Returns the claims of a valid ID token now, changed (None removes a claim)."""
    now = int(clock.now.timestamp())
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": CLIENT,
        "sub": SUBJECT,
        "iat": now,
        "exp": now + 3600,
        "name": "Ada",
        "email": "ada@example.com",
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def _jwks_file(path: Path, *signers: Signer) -> str:
    path.write_text(json.dumps({"keys": [signer.jwk() for signer in signers]}))
    return str(path)


def _verifier(tmp_path: Path, clock: Clock, *signers: Signer) -> IdTokenVerifier:
    jwks = _jwks_file(tmp_path / "jwks.json", *signers)
    provider = Provider(ISSUER, (CLIENT, "tabletop-ios"), jwks)
    return IdTokenVerifier([provider], clock=clock)


@pytest.fixture
def verifier(tmp_path: Path, clock: Clock, signer: Signer) -> IdTokenVerifier:
    return _verifier(tmp_path, clock, signer)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _segment(value: object) -> str:
    return _b64(json.dumps(value).encode())


def _reason(result: VerifiedIdentity | IdTokenRefused) -> str:
    assert isinstance(result, IdTokenRefused), result
    return result.reason


# --- Forgeries ---


def test_refuses_a_token_with_alg_none(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    for header in ({"alg": "none", "kid": signer.kid}, {"alg": "none"}):
        unsigned = f"{_segment(header)}.{_segment(_claims(clock))}."
        assert _reason(verifier.verify(unsigned)) == ID_TOKEN_INVALID


def test_refuses_hs256_keyed_with_the_providers_public_key(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    pem = signer.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    for secret in (pem, json.dumps(signer.jwk()).encode()):
        header = {"alg": "HS256", "kid": signer.kid, "typ": "JWT"}
        signing_input = f"{_segment(header)}.{_segment(_claims(clock))}"
        mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
        forged = f"{signing_input}.{_b64(mac)}"
        assert _reason(verifier.verify(forged)) == ID_TOKEN_INVALID


def test_refuses_a_token_signed_by_another_key_under_the_providers_kid(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    impostor = _rsa(kid=signer.kid)
    assert _reason(verifier.verify(impostor.sign(_claims(clock)))) == ID_TOKEN_INVALID


def test_refuses_a_token_whose_payload_was_changed(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    header, _, signature = signer.sign(_claims(clock)).split(".")
    changed = _segment(_claims(clock, sub="someone-else"))
    assert _reason(verifier.verify(f"{header}.{changed}.{signature}")) == (
        ID_TOKEN_INVALID
    )


@pytest.mark.parametrize("algorithm", ["RS384", "RS512", "PS256"])
def test_refuses_another_algorithm_with_the_providers_own_key(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock, algorithm: str
) -> None:
    token = jwt.encode(
        _claims(clock), signer.key, algorithm, headers={"kid": signer.kid}
    )
    assert _reason(verifier.verify(token)) == ID_TOKEN_INVALID


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
def test_refuses_a_token_signed_with_a_short_rsa_key(
    tmp_path: Path, clock: Clock
) -> None:
    weak = _rsa(kid="weak", size=1024)
    verifier = _verifier(tmp_path, clock, weak)
    assert _reason(verifier.verify(weak.sign(_claims(clock)))) == ID_TOKEN_INVALID


def test_refuses_an_expired_token_past_the_leeway(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    now = int(clock.now.timestamp())
    late = signer.sign(_claims(clock, iat=now - 3600, exp=now - 59))
    assert isinstance(verifier.verify(late), VerifiedIdentity)
    expired = signer.sign(_claims(clock, iat=now - 3600, exp=now - 60))
    assert _reason(verifier.verify(expired)) == ID_TOKEN_EXPIRED


@pytest.mark.parametrize("claim", ["iat", "nbf"])
def test_refuses_a_token_not_valid_yet(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock, claim: str
) -> None:
    now = int(clock.now.timestamp())
    soon = signer.sign(_claims(clock, **{claim: now + 60}))
    assert isinstance(verifier.verify(soon), VerifiedIdentity)
    future = signer.sign(_claims(clock, **{claim: now + 61}))
    assert _reason(verifier.verify(future)) == ID_TOKEN_INVALID


@pytest.mark.parametrize(
    "changes",
    [
        {"aud": "someone-elses-client"},
        {"aud": ["someone-elses-client", "another"]},
        {"aud": None},
        {"exp": None},
        {"iat": None},
        {"sub": None},
        {"sub": ""},
        {"sub": "x" * 256},
        {"sub": 42},
        {"exp": "4102444800"},
        {"exp": True},
        {"iat": [0]},
        {"nbf": "soon"},
    ],
    ids=repr,
)
def test_refuses_a_token_with_a_wrong_or_missing_claim(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock, changes: dict[str, Any]
) -> None:
    token = signer.sign(_claims(clock, **changes))
    assert _reason(verifier.verify(token)) == ID_TOKEN_INVALID


def test_refuses_a_token_from_an_issuer_not_trusted(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    token = signer.sign(_claims(clock, iss="https://evil.example"))
    assert _reason(verifier.verify(token)) == ISSUER_NOT_TRUSTED
    trailing_slash = signer.sign(_claims(clock, iss=ISSUER + "/"))
    assert _reason(verifier.verify(trailing_slash)) == ISSUER_NOT_TRUSTED


def test_refuses_one_providers_token_presented_as_anothers(
    tmp_path: Path, clock: Clock
) -> None:
    ours, theirs = _rsa(kid="shared-name"), _ec(kid="shared-name")
    verifier = IdTokenVerifier(
        [
            Provider(ISSUER, (CLIENT,), _jwks_file(tmp_path / "a.json", ours)),
            Provider(OTHER_ISSUER, (CLIENT,), _jwks_file(tmp_path / "b.json", theirs)),
        ],
        clock=clock,
    )
    as_other = _claims(clock, iss=OTHER_ISSUER)
    assert _reason(verifier.verify(ours.sign(as_other))) == ID_TOKEN_INVALID
    renamed = Signer(ours.key, "RS256", kid="not-in-their-set")
    assert _reason(verifier.verify(renamed.sign(as_other))) == ID_TOKEN_INVALID
    assert isinstance(verifier.verify(theirs.sign(as_other)), VerifiedIdentity)


def test_refuses_a_token_whose_kid_the_provider_does_not_publish(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    stranger = Signer(signer.key, "RS256", kid="rsa-2")
    assert _reason(verifier.verify(stranger.sign(_claims(clock)))) == ID_TOKEN_INVALID


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "a.b.c",
        "not a token",
        "eyJhbGciOiJSUzI1NiJ9.e30.",
        f"{_segment([1])}.{_segment({'iss': ISSUER})}.AAAA",
        f"{_segment({'alg': 'RS256'})}.{_segment([ISSUER])}.AAAA",
        f"{_segment({'alg': 'RS256', 'kid': 7})}.{_segment({'iss': ISSUER})}.AAAA",
        f"{_segment({'alg': 'RS256'})}.{_segment({'iss': 7})}.AAAA",
        f"{_segment({'alg': 'RS256'})}.{_segment({'sub': 'x'})}.AAAA",
        "é.é.é",
        "\ud800.a.b",
    ],
    ids=repr,
)
def test_refuses_garbage_as_malformed(verifier: IdTokenVerifier, garbage: str) -> None:
    assert _reason(verifier.verify(garbage)) == ID_TOKEN_MALFORMED


def test_refuses_an_over_long_token_before_reading_it(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    token = signer.sign(_claims(clock, name="x" * MAX_ID_TOKEN_CHARS))
    assert _reason(verifier.verify(token)) == ID_TOKEN_MALFORMED


def test_a_refusal_never_repeats_the_token(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    tokens = [
        signer.sign(_claims(clock, iss="https://evil.example", sub="secret-sub")),
        signer.sign(_claims(clock, exp=0, sub="secret-sub")),
        _rsa(kid=signer.kid).sign(_claims(clock, sub="secret-sub")),
        "secret-sub",
    ]
    for token in tokens:
        refused = verifier.verify(token)
        assert isinstance(refused, IdTokenRefused)
        assert "secret-sub" not in refused.message
        assert token not in refused.message
        assert refused.message


# --- The happy path ---


@pytest.mark.parametrize("make", [_rsa, _ec, _ed25519])
def test_accepts_a_providers_token_for_each_algorithm(
    tmp_path: Path, clock: Clock, make: Any
) -> None:
    provider_key: Signer = make()
    verifier = _verifier(tmp_path, clock, provider_key, _rsa(kid="spare"))
    result = verifier.verify(provider_key.sign(_claims(clock)))
    assert result == VerifiedIdentity(ISSUER, SUBJECT, "Ada")


def test_keeps_no_email() -> None:
    assert [f.name for f in fields(VerifiedIdentity)] == ["issuer", "subject", "name"]


def test_accepts_any_of_the_providers_client_ids(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    for audience in ("tabletop-ios", [CLIENT, "someone-else"]):
        token = signer.sign(_claims(clock, aud=audience))
        assert isinstance(verifier.verify(token), VerifiedIdentity)


def test_a_token_without_a_name_or_with_an_odd_one_gives_an_empty_name(
    verifier: IdTokenVerifier, signer: Signer, clock: Clock
) -> None:
    for name in (None, 42, ""):
        result = verifier.verify(signer.sign(_claims(clock, name=name)))
        assert result == VerifiedIdentity(ISSUER, SUBJECT, "")


def test_refuses_a_token_signed_by_an_encryption_key(
    tmp_path: Path, clock: Clock
) -> None:
    encryption = _rsa(kid="enc-1")
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [{**encryption.jwk(), "use": "enc"}]}))
    with pytest.raises(ProviderConfigError, match="is not a JWKS"):
        IdTokenVerifier([Provider(ISSUER, (CLIENT,), str(jwks))])
    spare = _ec()
    jwks.write_text(
        json.dumps({"keys": [{**encryption.jwk(), "use": "enc"}, spare.jwk()]})
    )
    verifier = IdTokenVerifier([Provider(ISSUER, (CLIENT,), str(jwks))], clock=clock)
    token = encryption.sign(_claims(clock))
    assert _reason(verifier.verify(token)) == ID_TOKEN_INVALID


def test_a_token_without_a_kid_uses_the_only_key(
    tmp_path: Path, signer: Signer, clock: Clock
) -> None:
    bare = jwt.encode(_claims(clock), signer.key, "RS256")
    assert isinstance(_verifier(tmp_path, clock, signer).verify(bare), VerifiedIdentity)
    two_keys = _verifier(tmp_path, clock, signer, _ec())
    assert _reason(two_keys.verify(bare)) == ID_TOKEN_INVALID


def test_a_jwks_file_that_is_missing_or_has_no_usable_key_is_refused(
    tmp_path: Path,
) -> None:
    missing = Provider(ISSUER, (CLIENT,), str(tmp_path / "absent.json"))
    with pytest.raises(ProviderConfigError, match=r"absent\.json"):
        IdTokenVerifier([missing])
    only_hmac = tmp_path / "oct.json"
    only_hmac.write_text(json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}))
    with pytest.raises(ProviderConfigError, match=r"oct\.json is not a JWKS"):
        IdTokenVerifier([Provider(ISSUER, (CLIENT,), str(only_hmac))])


# --- Keys at a URL ---


@dataclass
class JwksServer:
    """A JWKS endpoint on 127.0.0.1 that counts its requests."""

    url: str
    keys: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    requests: int = 0


@pytest.fixture
def jwks_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JwksServer]:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    state = JwksServer(url="")
    counting = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with counting:
                state.requests += 1
            body = json.dumps({"keys": state.keys}).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
    thread.join()


def _url_verifier(server: JwksServer, clock: Clock) -> IdTokenVerifier:
    return IdTokenVerifier([Provider(ISSUER, (CLIENT,), server.url)], clock=clock)


def test_keys_at_a_url_are_fetched_once_and_kept(
    jwks_server: JwksServer, signer: Signer, clock: Clock
) -> None:
    jwks_server.keys = [signer.jwk()]
    verifier = _url_verifier(jwks_server, clock)
    assert jwks_server.requests == 0
    for _ in range(3):
        clock.advance(3000)
        result = verifier.verify(signer.sign(_claims(clock)))
        assert result == VerifiedIdentity(ISSUER, SUBJECT, "Ada")
    assert jwks_server.requests == 1


def test_a_flood_of_made_up_kids_fetches_at_most_once_a_minute(
    jwks_server: JwksServer, signer: Signer, clock: Clock
) -> None:
    jwks_server.keys = [signer.jwk()]
    verifier = _url_verifier(jwks_server, clock)
    made_up = [Signer(signer.key, "RS256", kid=f"made-up-{n}") for n in range(40)]
    for forger in made_up[:20]:
        clock.advance(1)
        assert _reason(verifier.verify(forger.sign(_claims(clock)))) == (
            ID_TOKEN_INVALID
        )
    assert jwks_server.requests == 1
    clock.advance(60)
    for forger in made_up[20:]:
        assert _reason(verifier.verify(forger.sign(_claims(clock)))) == (
            ID_TOKEN_INVALID
        )
    assert jwks_server.requests == 2
    assert isinstance(verifier.verify(signer.sign(_claims(clock))), VerifiedIdentity)
    assert jwks_server.requests == 2


def test_a_flood_from_many_threads_fetches_once(
    jwks_server: JwksServer, signer: Signer, clock: Clock
) -> None:
    jwks_server.keys = [signer.jwk()]
    verifier = _url_verifier(jwks_server, clock)
    genuine = signer.sign(_claims(clock))
    tokens = [
        token
        for n in range(64)
        for token in (
            genuine,
            Signer(signer.key, "RS256", kid=f"made-up-{n}").sign(_claims(clock)),
        )
    ]
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(verifier.verify, tokens))
    assert jwks_server.requests == 1
    assert sum(isinstance(result, VerifiedIdentity) for result in results) == 64


def test_a_new_key_is_fetched_a_minute_after_the_last_fetch(
    jwks_server: JwksServer, signer: Signer, clock: Clock
) -> None:
    jwks_server.keys = [signer.jwk()]
    verifier = _url_verifier(jwks_server, clock)
    assert isinstance(verifier.verify(signer.sign(_claims(clock))), VerifiedIdentity)
    rotated = _ec(kid="ec-2")
    jwks_server.keys.append(rotated.jwk())
    assert _reason(verifier.verify(rotated.sign(_claims(clock)))) == ID_TOKEN_INVALID
    clock.advance(60)
    result = verifier.verify(rotated.sign(_claims(clock)))
    assert result == VerifiedIdentity(ISSUER, SUBJECT, "Ada")
    assert jwks_server.requests == 2


def test_a_jwks_url_that_is_down_gives_unavailable(
    signer: Signer, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    closed = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    url = f"http://127.0.0.1:{closed.server_address[1]}/jwks.json"
    closed.server_close()  # nothing listens there any more
    verifier = IdTokenVerifier([Provider(ISSUER, (CLIENT,), url)], clock=clock)
    assert _reason(verifier.verify(signer.sign(_claims(clock)))) == JWKS_UNAVAILABLE


@pytest.mark.parametrize("status", [500, 404])
def test_a_failing_jwks_url_is_retried_at_most_once_a_minute(
    jwks_server: JwksServer, signer: Signer, clock: Clock, status: int
) -> None:
    jwks_server.status = status
    verifier = _url_verifier(jwks_server, clock)
    for _ in range(10):
        assert _reason(verifier.verify(signer.sign(_claims(clock)))) == (
            JWKS_UNAVAILABLE
        )
    assert jwks_server.requests == 1
    jwks_server.status, jwks_server.keys = 200, [signer.jwk()]
    clock.advance(60)
    assert isinstance(verifier.verify(signer.sign(_claims(clock))), VerifiedIdentity)
    assert jwks_server.requests == 2


def test_a_jwks_url_answering_no_key_set_gives_unavailable(
    jwks_server: JwksServer, signer: Signer, clock: Clock
) -> None:
    jwks_server.keys = [{"kty": "nonsense"}]
    verifier = _url_verifier(jwks_server, clock)
    assert _reason(verifier.verify(signer.sign(_claims(clock)))) == JWKS_UNAVAILABLE


# --- The providers file ---


def _config(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "providers.json"
    path.write_text(json.dumps(document))
    return path


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "issuer": ISSUER,
        "audiences": [CLIENT],
        "jwks": "https://accounts.example/jwks",
    }
    entry.update(changes)
    return {name: value for name, value in entry.items() if value is not None}


def test_load_providers_reads_every_provider(tmp_path: Path) -> None:
    path = _config(
        tmp_path,
        {
            "providers": [
                _entry(audiences=[CLIENT, "tabletop-ios"]),
                _entry(issuer=OTHER_ISSUER, jwks="keys/other.json"),
                _entry(issuer="https://third.example", jwks="/etc/jwks.json"),
            ]
        },
    )
    assert load_providers(path) == (
        Provider(ISSUER, (CLIENT, "tabletop-ios"), "https://accounts.example/jwks"),
        Provider(OTHER_ISSUER, (CLIENT,), str(tmp_path / "keys" / "other.json")),
        Provider("https://third.example", (CLIENT,), "/etc/jwks.json"),
    )


def test_a_relative_jwks_path_is_taken_from_the_config_files_folder(
    tmp_path: Path, signer: Signer, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "config"
    folder.mkdir()
    _jwks_file(folder / "jwks.json", signer)
    _config(folder, {"providers": [_entry(jwks="jwks.json")]})
    monkeypatch.chdir(tmp_path)
    providers = load_providers(Path("config/providers.json"))
    assert providers[0].jwks == str(folder / "jwks.json")
    monkeypatch.chdir(folder)  # the path stays right wherever the server runs
    verifier = IdTokenVerifier(providers, clock=clock)
    assert isinstance(verifier.verify(signer.sign(_claims(clock))), VerifiedIdentity)


@pytest.mark.parametrize(
    ("document", "complaint"),
    [
        ([], "must hold one object"),
        ({}, "must hold one object"),
        ({"providers": [], "extra": 1}, "must hold one object"),
        ({"providers": {}}, "at least one provider"),
        ({"providers": []}, "at least one provider"),
        ({"providers": ["x"]}, r"providers\[0\] must be an object"),
        ({"providers": [_entry(jwks=None)]}, r"providers\[0\] lacks jwks"),
        ({"providers": [_entry(audience=[CLIENT])]}, "unknown keys audience"),
        ({"providers": [_entry(issuer="")]}, "issuer must be a non-empty string"),
        ({"providers": [_entry(issuer=7)]}, "issuer must be a non-empty string"),
        ({"providers": [_entry(audiences=CLIENT)]}, "audiences must be a list"),
        ({"providers": [_entry(audiences=[CLIENT, 3])]}, "audiences must be a list"),
        ({"providers": [_entry(audiences=[""])]}, "audiences must be a list"),
        ({"providers": [_entry(audiences=[])]}, "audiences is empty"),
        ({"providers": [_entry(jwks="")]}, "jwks must be"),
        ({"providers": [_entry(jwks=["x"])]}, "jwks must be"),
        ({"providers": [_entry(jwks="ftp://keys.example/jwks")]}, "neither"),
        (
            {"providers": [_entry(), _entry(audiences=["other"])]},
            r"two providers have the issuer 'https://accounts\.example'",
        ),
    ],
    ids=repr,
)
def test_a_mistake_in_the_providers_file_is_named(
    tmp_path: Path, document: object, complaint: str
) -> None:
    path = _config(tmp_path, document)
    with pytest.raises(ProviderConfigError, match=complaint) as raised:
        load_providers(path)
    assert str(path) in str(raised.value)


def test_a_providers_file_that_is_missing_or_not_json_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    with pytest.raises(ProviderConfigError, match=r"cannot read .*absent\.json"):
        load_providers(missing)
    broken = tmp_path / "broken.json"
    broken.write_text('{"providers": [')
    with pytest.raises(ProviderConfigError, match=r"broken\.json is not JSON"):
        load_providers(broken)
    assert issubclass(ProviderConfigError, ValueError)


def test_two_providers_with_one_issuer_are_refused_by_the_verifier(
    tmp_path: Path, signer: Signer
) -> None:
    jwks = _jwks_file(tmp_path / "jwks.json", signer)
    same = Provider(ISSUER, (CLIENT,), jwks)
    with pytest.raises(ProviderConfigError, match="two providers"):
        IdTokenVerifier([same, same])
