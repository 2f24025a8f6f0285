"""Stored rows written by older code (tests/fixtures/records), put into a store.

The rows go in verbatim, through the recorder, as the older code wrote them:
no upcaster or codec of today's code touches them on the way in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import UUID

from eventsourcing.persistence import AggregateRecorder
from eventsourcing.persistence import StoredEvent as StoredRow

RECORDS = Path(__file__).parent / "fixtures" / "records"
QWIRKLE_9EF3ADB = RECORDS / "qwirkle-9ef3adb.json"


def load_records(path: Path) -> dict[str, Any]:
    """Returns a fixture file of stored rows, as written."""
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def insert_rows(recorder: AggregateRecorder, records: dict[str, Any]) -> UUID:
    """Inserts a fixture's rows verbatim into a store; returns the game's id."""
    rows = [
        StoredRow(
            originator_id=UUID(row["originator_id"]),
            originator_version=row["originator_version"],
            topic=row["topic"],
            state=row["state"].encode("utf-8"),
        )
        for row in records["rows"]
    ]
    recorder.insert_events(rows)
    return UUID(records["game_id"])
