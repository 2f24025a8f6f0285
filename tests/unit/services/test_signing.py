"""The key that signs audit exports, its files, and the public keys that check them."""

from __future__ import annotations

import base64
import hashlib
import re
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from infra.cli import main
from services.signing import (
    MAX_KEY_FILE_BYTES,
    KeyFileError,
    PublicKey,
    SigningKey,
    parse_public_key,
)

MESSAGE = b"tabletop-audit/v2\ngames/x\n{}"


def _pem_public(key: SigningKey) -> str:
    public = Ed25519PrivateKey.from_private_bytes(key.private_bytes()).public_key()
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


# --- Key files ---


def test_a_written_key_reads_back_and_only_its_owner_may_read_it(
    tmp_path: Path,
) -> None:
    key = SigningKey.generate(ephemeral=False)
    path = tmp_path / "signing.pem"
    key.write(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    read = SigningKey.from_file(path)
    assert read.public == key.public
    assert read.private_bytes() == key.private_bytes()
    assert read.ephemeral is False
    assert read.public.verifies(key.sign(MESSAGE), MESSAGE)
    assert SigningKey.from_file(str(path)).public == key.public


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "signing.pem"
    path.write_bytes(b"keep me")
    with pytest.raises(FileExistsError):
        SigningKey.generate(ephemeral=False).write(path)
    assert path.read_bytes() == b"keep me"
    first = SigningKey.generate(ephemeral=False)
    other = tmp_path / "other.pem"
    first.write(other)
    with pytest.raises(FileExistsError):
        SigningKey.generate(ephemeral=False).write(other)
    assert SigningKey.from_file(other).public == first.public


def _encrypted() -> bytes:
    return Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"passphrase"),
    )


def _rsa() -> bytes:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _oversized() -> bytes:
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem + b"\n" * (MAX_KEY_FILE_BYTES + 1 - len(pem))


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("text", lambda: b"not a key\n"),
        ("empty", lambda: b""),
        ("binary", lambda: bytes(range(256))),
        ("public", lambda: _pem_public(SigningKey.generate()).encode()),
        ("raw", lambda: SigningKey.generate().private_bytes()),
        ("encrypted", _encrypted),
        ("rsa", _rsa),
        ("oversized", _oversized),
    ],
)
def test_a_file_that_is_not_an_ed25519_key_is_refused_naming_it(
    tmp_path: Path, name: str, content: Callable[[], bytes]
) -> None:
    path = tmp_path / f"{name}.pem"
    path.write_bytes(content())
    with pytest.raises(KeyFileError) as refused:
        SigningKey.from_file(path)
    assert str(path) in str(refused.value)
    assert "is not an unencrypted Ed25519 private key" in str(refused.value)


def test_an_oversized_file_is_refused_though_it_holds_a_key(tmp_path: Path) -> None:
    data = _oversized()
    assert len(data) == MAX_KEY_FILE_BYTES + 1
    # The same key at the limit is read: only the size refuses it.
    path = tmp_path / "at-limit.pem"
    path.write_bytes(data[:-1])
    SigningKey.from_file(path)


def test_a_missing_file_or_a_directory_is_refused_naming_it(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.pem", tmp_path):
        with pytest.raises(KeyFileError, match="cannot read the signing key file") as e:
            SigningKey.from_file(path)
        assert str(path) in str(e.value)


# --- Public keys ---


def test_a_public_key_is_read_from_its_text_or_pem() -> None:
    key = SigningKey.generate()
    text = key.public.text
    assert text.startswith("ed25519:")
    assert base64.b64decode(text.removeprefix("ed25519:")) == key.public.raw
    assert parse_public_key(text) == key.public
    assert parse_public_key(f"  {text}\n") == key.public
    assert parse_public_key(_pem_public(key)) == key.public
    assert parse_public_key("\n" + _pem_public(key) + "\n") == key.public


@pytest.mark.parametrize(
    "text",
    [
        "",
        "AAAA",
        "ed25519:",
        "ed25519:" + base64.b64encode(bytes(31)).decode(),
        "ed25519:" + base64.b64encode(bytes(33)).decode(),
        "ed25519:" + base64.b64encode(bytes(32)).decode().rstrip("="),
        "ed25519:" + base64.urlsafe_b64encode(b"\xff" * 32).decode(),
        "ed25519:" + "A" * 43 + "é",
        "ED25519:" + base64.b64encode(bytes(32)).decode(),
        "ssh-ed25519 " + base64.b64encode(bytes(32)).decode(),
        "rsa:" + base64.b64encode(bytes(32)).decode(),
        "-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\né\n-----END PUBLIC KEY-----\n",
    ],
)
def test_a_malformed_public_key_is_refused(text: str) -> None:
    with pytest.raises(KeyFileError):
        parse_public_key(text)


def test_an_rsa_public_key_in_pem_is_refused() -> None:
    pem = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        .public_key()
        .public_bytes(
            serialization.Encoding.PEM,
            serialization.PublicFormat.SubjectPublicKeyInfo,
        )
        .decode()
    )
    with pytest.raises(KeyFileError, match="not an Ed25519 public key"):
        parse_public_key(pem)


def test_a_signature_holds_only_for_its_message_and_its_key() -> None:
    key, other = SigningKey.generate(), SigningKey.generate()
    signature = key.sign(MESSAGE)
    assert len(base64.b64decode(signature, validate=True)) == 64
    assert key.public.verifies(signature, MESSAGE)
    assert not key.public.verifies(signature, MESSAGE + b" ")
    assert not key.public.verifies(signature, MESSAGE.replace(b"v2", b"v1"))
    assert not other.public.verifies(signature, MESSAGE)
    raw = bytearray(base64.b64decode(signature))
    raw[10] ^= 1
    garbage = [
        "",
        "not base64!",
        "é",
        base64.b64encode(bytes(64)).decode(),
        base64.b64encode(bytes(raw)).decode(),
        base64.b64encode(bytes(raw[:63])).decode(),
        signature.rstrip("="),
        signature + "AAAA",
    ]
    for bad in garbage:
        assert not key.public.verifies(bad, MESSAGE), bad
    # A key of the wrong length verifies nothing (and raises nothing).
    assert not PublicKey(b"\x00" * 31).verifies(signature, MESSAGE)


def test_the_fingerprint_is_the_unpadded_base64_of_the_sha256() -> None:
    key = SigningKey.generate()
    fingerprint = key.public.fingerprint
    assert re.fullmatch(r"SHA256:[A-Za-z0-9+/]{43}", fingerprint), fingerprint
    digest = hashlib.sha256(key.public.raw).digest()
    assert fingerprint == "SHA256:" + base64.b64encode(digest).decode().rstrip("=")
    assert SigningKey.generate().public.fingerprint != fingerprint


def test_the_private_key_is_never_shown() -> None:
    key = SigningKey.generate()
    raw = key.private_bytes()
    assert len(raw) == 32
    shown = {repr(key), str(key), f"{key!r}", repr([key])}
    secrets = {raw.hex(), raw.hex().upper(), base64.b64encode(raw).decode()}
    for text in shown:
        assert key.public.fingerprint in text
        assert "ephemeral=True" in text
        assert not any(secret in text for secret in secrets)
        assert "PRIVATE" not in text


def test_a_key_passes_between_processes_as_its_raw_bytes() -> None:
    key = SigningKey.generate()
    assert key.ephemeral is True
    again = SigningKey.from_private_bytes(key.private_bytes(), ephemeral=False)
    assert again.public == key.public
    assert again.ephemeral is False
    assert key.public.verifies(again.sign(MESSAGE), MESSAGE)


# --- tabletop keygen ---


def test_keygen_writes_a_key_and_prints_its_public_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "signing.pem"
    assert main(["keygen", str(path)]) == 0
    out = capsys.readouterr().out
    key = SigningKey.from_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f"public key:  {key.public.text}" in out
    assert f"fingerprint: {key.public.fingerprint}" in out
    assert parse_public_key(out.split("public key:", 1)[1].split()[0]) == key.public
    before = path.read_bytes()
    assert main(["keygen", str(path)]) == 2
    assert "exists" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert main(["keygen", str(tmp_path / "missing" / "key.pem")]) == 2
    assert "cannot write" in capsys.readouterr().err
