"""The Ed25519 key that signs audit exports, and the public keys that check them.

A server signs with the key in ``--signing-key-file`` (``tabletop keygen``
writes one: PKCS#8 PEM, readable by its owner only) or, without one, with an
ephemeral key made at start. A public key travels as one line of text,
``ed25519:<base64 of the raw 32 bytes>``; its fingerprint,
``SHA256:<unpadded base64 of the SHA-256 of the raw key>``, names it in logs and
in every export's header. The cryptography is the ``cryptography`` package's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

TEXT_PREFIX = "ed25519:"
RAW_KEY_BYTES = 32
# A key file larger than this is not a key (a PEM Ed25519 key is 119 bytes).
MAX_KEY_FILE_BYTES = 4096


class KeyFileError(ValueError):
    """A key that cannot be read, with a message a person understands."""


@dataclass(frozen=True)
class PublicKey:
    """An Ed25519 public key that checks signatures."""

    raw: bytes

    @property
    def text(self) -> str:
        """Returns the key as one line: ``ed25519:<base64>``."""
        return TEXT_PREFIX + base64.b64encode(self.raw).decode("ascii")

    @property
    def fingerprint(self) -> str:
        """Returns ``SHA256:<unpadded base64>`` of the raw key."""
        digest = base64.b64encode(hashlib.sha256(self.raw).digest()).decode("ascii")
        return "SHA256:" + digest.rstrip("=")

    def verifies(self, signature: str, message: bytes) -> bool:
        """Tells whether ``signature`` (base64) is this key's over ``message``."""
        try:
            raw = base64.b64decode(signature, validate=True)
            Ed25519PublicKey.from_public_bytes(self.raw).verify(raw, message)
        except (InvalidSignature, binascii.Error, ValueError):
            return False
        # One spelling only: base64 with other padding bits decodes the same.
        return base64.b64encode(raw).decode("ascii") == signature


class SigningKey:
    """An Ed25519 private key; it signs, and it says where it came from."""

    def __init__(self, key: Ed25519PrivateKey, *, ephemeral: bool) -> None:
        self._key = key
        self.ephemeral = ephemeral
        raw = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public = PublicKey(raw)

    def __repr__(self) -> str:  # never the private key
        return f"SigningKey({self.public.fingerprint}, ephemeral={self.ephemeral})"

    @classmethod
    def generate(cls, *, ephemeral: bool = True) -> SigningKey:
        """Returns a new key (ephemeral unless it is to be written to a file)."""
        return cls(Ed25519PrivateKey.generate(), ephemeral=ephemeral)

    @classmethod
    def from_private_bytes(cls, raw: bytes, *, ephemeral: bool) -> SigningKey:
        """Returns the key of 32 raw private bytes (to pass a key to a process)."""
        return cls(Ed25519PrivateKey.from_private_bytes(raw), ephemeral=ephemeral)

    @classmethod
    def from_file(cls, path: str | Path) -> SigningKey:
        """Returns the key in a PKCS#8 PEM file, as ``tabletop keygen`` writes."""
        try:
            with Path(path).open("rb") as file:
                data = file.read(MAX_KEY_FILE_BYTES + 1)
        except OSError as error:
            msg = f"cannot read the signing key file {path}: {error.strerror}"
            raise KeyFileError(msg) from None
        try:
            if len(data) > MAX_KEY_FILE_BYTES:
                raise ValueError  # noqa: TRY301 (one message for every bad file)
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError):
            key = None
        if not isinstance(key, Ed25519PrivateKey):
            msg = (
                f"{path} is not an unencrypted Ed25519 private key in PEM "
                "(tabletop keygen writes one)"
            )
            raise KeyFileError(msg)
        return cls(key, ephemeral=False)

    def private_bytes(self) -> bytes:
        """Returns the 32 raw private bytes."""
        return self._key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )

    def sign(self, message: bytes) -> str:
        """Returns the signature of ``message`` in standard base64."""
        return base64.b64encode(self._key.sign(message)).decode("ascii")

    def write(self, path: str | Path) -> None:
        """Writes the key to a new file readable by its owner only (PKCS#8 PEM)."""
        pem = self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)


def parse_public_key(text: str) -> PublicKey:
    """Returns the public key of ``ed25519:<base64>`` or a PEM public key."""
    stripped = text.strip()
    if stripped.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(stripped.encode("ascii"))
        except (ValueError, UnicodeEncodeError):
            key = None
        if not isinstance(key, Ed25519PublicKey):
            msg = "not an Ed25519 public key in PEM"
            raise KeyFileError(msg)
        return PublicKey(
            key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        )
    if not stripped.startswith(TEXT_PREFIX):
        msg = f"a public key is {TEXT_PREFIX}<base64 of 32 bytes>, or a PEM file"
        raise KeyFileError(msg)
    try:
        raw = base64.b64decode(stripped.removeprefix(TEXT_PREFIX), validate=True)
    except ValueError:  # binascii.Error, or a character that is not ASCII
        raw = b""
    if len(raw) != RAW_KEY_BYTES:
        msg = f"{TEXT_PREFIX} must be followed by 32 bytes in standard base64"
        raise KeyFileError(msg)
    return PublicKey(raw)
