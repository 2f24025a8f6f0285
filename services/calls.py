"""What each use case is asked: one frozen value per request, built by the servicer.

``Call`` is what any request says about itself (credentials, request id,
freshness); the others add what one use case needs. The servicer reads a request
fully into one of these before it calls the use case; only what depends on the
game (the caller's seat, whether a move is one of its game) is settled once the
game is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID


@dataclass(frozen=True, slots=True)
class Call:
    """What a request says about itself: credentials, identity, freshness."""

    token: str | None = None
    # The key of the client's request id (services/request_ids.py), "" for none.
    request_key: str = ""
    # Fingerprint of the request's content: a retry has the same one.
    request_hash: str = ""
    # Revision the client based the request on; 0 skips the check.
    expected_revision: int = 0


@dataclass(frozen=True, slots=True)
class SentMove:
    """A move as a request sent it, read before its game is loaded.

    ``game_type`` is the game it is a move of (None when the request named no
    game). ``command`` is that game's command, for any seat: the use case gives
    it the caller's seat. A move that does not read as a command carries its
    refusal (a ``Rejected``) instead.
    """

    game_type: str | None
    command: Any


@dataclass(frozen=True, slots=True)
class SubmitMove:
    """Play ``move`` for the caller's seat."""

    game_id: UUID
    move: SentMove
    call: Call = field(default_factory=Call)
