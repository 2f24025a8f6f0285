"""The audit record of a game: export as hash-chained JSON Lines, and verify.

``export_game`` writes a game's whole stored record (format
``tabletop-audit/v1``, see ``chain``); ``verify`` checks one offline, re-deciding
every request of a finished game from nothing.
"""

from __future__ import annotations

from services.audit.chain import FORMAT, canonical, genesis, line_hash
from services.audit.export import export_game, export_records
from services.audit.report import Report
from services.audit.verify import verify

__all__ = [
    "FORMAT",
    "Report",
    "canonical",
    "export_game",
    "export_records",
    "genesis",
    "line_hash",
    "verify",
]
