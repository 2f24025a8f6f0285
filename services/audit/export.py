"""Export of a game's whole stored record as hash-chained JSON Lines.

The export is for operators and disputes: every event unredacted, with the
command of each request, who made it and when. One secret stays out while the
game is in progress: the seed in ``table.GameCreated`` is blanked (DESIGN §4,
an export may travel); the trailer reveals it once the game has finished.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any
from uuid import UUID

from domain.common import table as tables
from domain.common.decision import Rejected
from services.audit.chain import FORMAT, canonical, genesis, line_hash
from services.records import CODEC, RecordedEvent
from services.store import GameStore, game_not_found


def export_game(app: GameStore, game_id: UUID) -> str | Rejected:
    """Returns the record of a stored game, or the refusal for an unknown one."""
    recorded = app.recorded_events(game_id)
    if not recorded:
        return game_not_found(game_id)
    return export_records(f"games/{game_id}", recorded, app.clock())


def export_records(
    game: str, recorded: Sequence[RecordedEvent], exported_at: datetime
) -> str:
    """Returns the JSON Lines record of a game's events (revision order)."""
    finished = next(
        (e.event for e in recorded if isinstance(e.event, tables.GameFinished)), None
    )
    created = recorded[0].event
    header = {
        "format": FORMAT,
        "game": game,
        "game_type": getattr(created, "game_type", ""),
        "revision": recorded[-1].revision,
        "finished": finished is not None,
        "exported_at": exported_at.isoformat(),
    }
    lines = [canonical(header)]
    prev = genesis(game)
    for item in recorded:
        line = _event_line(item, prev, hide_seed=finished is None)
        lines.append(canonical(line))
        prev = line["hash"]
    trailer = {
        "chain": prev,
        "events": len(recorded),
        "seed": finished.seed if finished is not None else None,
    }
    lines.append(canonical(trailer))
    return "\n".join(lines) + "\n"


def _event_line(item: RecordedEvent, prev: str, *, hide_seed: bool) -> dict[str, Any]:
    event = item.event
    if hide_seed and isinstance(event, tables.GameCreated):
        event = replace(event, seed="")
    line: dict[str, Any] = {
        "revision": item.revision,
        "time": item.timestamp.isoformat(),
        "actor": item.actor,
        "move_number": item.move_number,
        "request_id": item.request_key,
        "type": CODEC.name_of(event),
        "event": CODEC.encode(event),
        "command": None if item.command is None else CODEC.encode(item.command),
        "prev": prev,
    }
    line["hash"] = line_hash(line)
    return line
