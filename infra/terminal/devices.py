"""The device id the client signs in with, one per server, kept on disk (mode 0600).

The device id is the player's credential: whoever has it signs in as the
player, so it is made from 16 random bytes, written only to its file, and never
printed or logged. The file holds nothing else secret: sessions live in memory
only (see ``infra/terminal/account.py``).
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
from pathlib import Path

from infra.terminal.connection import ClientError
from infra.terminal.seats import state_dir

DEVICE_BYTES = 16  # 128 random bits, 22 characters in unpadded URL-safe base64
# What the server accepts (auth_service.proto, SignInWithDeviceRequest.device_id).
_DEVICE_ID = re.compile(r"^[A-Za-z0-9._-]{22,200}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9.-]")


def device_path(server: str) -> Path:
    """Returns where the device id for a server address is kept.

    ``127.0.0.1:50051`` is kept in ``accounts/127.0.0.1_50051.json``.
    """
    return state_dir() / "accounts" / f"{_UNSAFE.sub('_', server.strip())}.json"


def new_device_id() -> str:
    """Returns a fresh device id: 16 random bytes, unpadded URL-safe base64."""
    raw = base64.urlsafe_b64encode(secrets.token_bytes(DEVICE_BYTES))
    return raw.decode("ascii").rstrip("=")


def load_device_id(server: str, *, make: bool) -> str | None:
    """Returns the device id kept for ``server``; makes and keeps one first when
    there is none and ``make`` is set (else returns None).

    Two clients starting at once keep one id: the one that loses the race to
    create the file reads the winner's.
    """
    path = device_path(server)
    if not path.exists():
        if not make:
            return None
        _create(path, server)
    return _read(path, server)


def _create(path: Path, server: str) -> None:
    """Keeps a new device id at ``path`` unless another client just did.

    The id is written in full to a file of its own, then linked into place:
    a client never reads a half-written id.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    draft = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump({"server": server, "device_id": new_device_id()}, file)
        draft.chmod(0o600)
        os.link(draft, path)
    except FileExistsError:
        pass  # another client made one first: both use it
    finally:
        draft.unlink(missing_ok=True)


def _read(path: Path, server: str) -> str:
    """Returns the device id in ``path``; refuses a file that holds none.

    A damaged file is not replaced: a new id would be a new player, and the
    games of the old one would be lost to this machine.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    device_id = data.get("device_id") if isinstance(data, dict) else None
    if not isinstance(device_id, str) or not _DEVICE_ID.match(device_id):
        msg = f"{path} holds no device id; move it away to sign in as a new player"
        raise ClientError(msg)
    if data is not None and data.get("server") not in (None, server):
        msg = f"{path} keeps the device id of another server, {data.get('server')}"
        raise ClientError(msg)
    return device_id
