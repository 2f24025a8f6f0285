"""The audit record of a game: export as signed JSON Lines, and verify.

``export_game`` writes a game's whole stored record (format
``tabletop-audit/v2``, see ``chain``) with the record digest of every revision,
each line signed; ``verify`` checks one offline: signatures, receipts, and for a
finished game the digests and every request re-decided from nothing.
"""

from __future__ import annotations

from services.audit.chain import FORMAT, canonical, signed_message
from services.audit.export import export_game, export_records
from services.audit.report import Report
from services.audit.verify import verify

__all__ = [
    "FORMAT",
    "Report",
    "canonical",
    "export_game",
    "export_records",
    "signed_message",
    "verify",
]
