"""The ``tabletop-audit/v2`` record format: canonical JSON, digests, signatures.

A record is JSON Lines: a header, one line per stored event in revision order,
then a trailer (docs/audit.md). Every line is canonical JSON: keys sorted, no
spaces, UTF-8 (``canonical``).

* Each event line is its revision's entry (``services/record_digest.py``) with
  the record ``digest`` at that revision: a chain keyed by the game's seed, so
  it can be recomputed once the game has finished and its seed is revealed.
* The trailer's ``chain`` is the last event line's digest.
* Every line is signed: its ``signature`` is the server's Ed25519 signature,
  in base64, of ``"tabletop-audit/v2\\n" + game + "\\n" + canonical(line
  without "signature")``; the header names the key by its fingerprint.
"""

from __future__ import annotations

from typing import Any

from services.record_digest import canonical

FORMAT = "tabletop-audit/v2"

HEADER_KEYS = frozenset(
    {
        "format",
        "game",
        "game_type",
        "revision",
        "finished",
        "exported_at",
        "key",
        "signature",
    }
)
EVENT_KEYS = frozenset(
    {
        "revision",
        "time",
        "actor",
        "move_number",
        "request_id",
        "type",
        "event",
        "command",
        "digest",
        "signature",
    }
)
TRAILER_KEYS = frozenset({"chain", "events", "seed", "signature"})


def signed_message(game: str, line: dict[str, Any]) -> bytes:
    """Returns the bytes a line's signature signs."""
    content = {key: value for key, value in line.items() if key != "signature"}
    return f"{FORMAT}\n{game}\n{canonical(content)}".encode()


__all__ = ["EVENT_KEYS", "FORMAT", "HEADER_KEYS", "TRAILER_KEYS", "canonical"]
