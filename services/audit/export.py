"""Export of a game's whole stored record as signed JSON Lines (``chain``).

The export is for operators and disputes: every event unredacted, with the
command of each request, who made it and when, and the record digest of every
revision. One secret stays out while the game is in progress: the seed in
``table.GameCreated`` is blanked (DESIGN §4, an export may travel); the trailer
reveals it once the game has finished.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from domain.common import table as tables
from domain.common.decision import Rejected
from services.audit.chain import FORMAT, canonical, signed_message
from services.records import RecordedEvent
from services.signing import SigningKey
from services.store import GameStore, game_not_found


def export_game(app: GameStore, game_id: UUID, key: SigningKey) -> str | Rejected:
    """Returns the signed record of a stored game, or the refusal for an unknown one."""
    recorded = app.recorded_events(game_id)
    if not recorded:
        return game_not_found(game_id)
    return export_records(f"games/{game_id}", recorded, app.clock(), key)


def export_records(
    game: str,
    recorded: Sequence[RecordedEvent],
    exported_at: datetime,
    key: SigningKey,
) -> str:
    """Returns the JSON Lines record of a game's events (revision order, digested)."""
    finished = next(
        (e.event for e in recorded if isinstance(e.event, tables.GameFinished)), None
    )
    header = {
        "format": FORMAT,
        "game": game,
        "game_type": getattr(recorded[0].event, "game_type", ""),
        "revision": recorded[-1].revision,
        "finished": finished is not None,
        "exported_at": exported_at.isoformat(),
        "key": key.public.fingerprint,
    }
    lines = [header]
    lines += [_event_line(item, hide_seed=finished is None) for item in recorded]
    lines.append(
        {
            "chain": recorded[-1].digest,
            "events": len(recorded),
            "seed": finished.seed if finished is not None else None,
        }
    )
    signed = [
        canonical({**line, "signature": key.sign(signed_message(game, line))})
        for line in lines
    ]
    return "\n".join(signed) + "\n"


def _event_line(item: RecordedEvent, *, hide_seed: bool) -> dict[str, Any]:
    if not item.digest:
        msg = f"revision {item.revision} has no record digest"
        raise ValueError(msg)
    line = item.entry()
    if hide_seed and isinstance(item.event, tables.GameCreated):
        line["event"] = {**line["event"], "seed": ""}
    line["digest"] = item.digest
    return line
