"""Record digests: a keyed hash chain over a game's stored events (docs/audit.md).

The digest at revision r commits to the whole record up to and including r.
Each answer that shows a game carries the digest of the revision it shows, so a
client that keeps the last one it saw holds a receipt that any later export of
the game must contain.

A digest must not let anyone test a guess about hidden content (another seat's
rack, the bag), so the chain is an HMAC-SHA256 keyed by a secret derived from
the game's 256-bit seed, which no seat holds until the game ends and which the
end reveals, so that then anyone can recompute every digest:

* ``key = HMAC-SHA256(seed, "tabletop/record-digest/v1")``;
* ``digest(0) = hex(HMAC-SHA256(key, "tabletop-record/v1\\n" + game))``, the
  game's resource name ``games/{uuid}``;
* ``digest(r) = hex(HMAC-SHA256(key, digest(r-1) + "\\n" + canonical(entry(r))))``.

An entry is what the store holds for revision r, as stored: its event and
command exactly as written (before any upcaster, docs/events.md), so a change
of the code never changes a stored game's digests.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime
from typing import Any

KEY_LABEL = b"tabletop/record-digest/v1"
GENESIS_LABEL = "tabletop-record/v1"


def canonical(value: Any) -> str:
    """Returns the one JSON spelling of ``value``: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_key(seed_hex: str) -> bytes:
    """Returns the key of a game's digests, from its seed (hex)."""
    return hmac.digest(bytes.fromhex(seed_hex), KEY_LABEL, hashlib.sha256)


def genesis(key: bytes, game: str) -> str:
    """Returns the digest before the first event of ``game`` (``games/{uuid}``)."""
    return _mac(key, f"{GENESIS_LABEL}\n{game}")


def entry(
    *,
    revision: int,
    time: datetime,
    actor: int | None,
    move_number: int,
    request_key: str,
    event: dict[str, Any],
    command: dict[str, Any] | None,
) -> dict[str, Any]:
    """Returns the entry of one revision: the stored event and what came with it."""
    return {
        "revision": revision,
        "time": time.isoformat(),
        "actor": actor,
        "move_number": move_number,
        "request_id": request_key,
        "type": event["_type"],
        "event": event,
        "command": command,
    }


def next_digest(key: bytes, previous: str, content: dict[str, Any]) -> str:
    """Returns the digest after one more entry."""
    return _mac(key, f"{previous}\n{canonical(content)}")


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()
