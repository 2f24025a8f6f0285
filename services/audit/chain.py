"""The ``tabletop-audit/v1`` record format: canonical JSON and the hash chain.

A record is JSON Lines: a header, one line per stored event in revision order,
then a trailer. Every line is canonical JSON: keys sorted, no spaces, UTF-8
(``canonical``). Each event line is chained to the one before it:

* the ``prev`` of the first event line is the *genesis* hash,
  ``sha256("tabletop-audit/v1\\n" + game resource name)``, so a record cannot be
  passed off as another game's;
* ``hash = sha256(prev + "\\n" + canonical(line without its "hash" key))``,
  hex digests in lower case, the text encoded as UTF-8;
* the trailer's ``chain`` is the last event line's hash.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

FORMAT = "tabletop-audit/v1"

HEADER_KEYS = frozenset(
    {"format", "game", "game_type", "revision", "finished", "exported_at"}
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
        "prev",
        "hash",
    }
)
TRAILER_KEYS = frozenset({"chain", "events", "seed"})


def canonical(value: Any) -> str:
    """Returns the one JSON spelling of ``value``: sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def genesis(game: str) -> str:
    """Returns the ``prev`` of a game's first event line."""
    return _sha256(f"{FORMAT}\n{game}")


def line_hash(line: dict[str, Any]) -> str:
    """Returns the hash of an event line: its ``prev`` and its content."""
    content = {key: value for key, value in line.items() if key != "hash"}
    return _sha256(f"{line['prev']}\n{canonical(content)}")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
