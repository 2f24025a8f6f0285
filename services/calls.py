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
class CreateGame:
    """Open a table of ``game_type`` and seat its creator, the host.

    The raw ``request_id`` is the client's secret: the game id, the seat token
    and a private table's invite code derive from it (only its key is stored).
    """

    game_type: str
    config: Any
    max_players: int
    display_name: str
    seed: bytes = b""
    request_id: str = ""
    request_hash: str = ""
    turn_seconds: int = 0  # the turn time limit; 0 for none
    private: bool = False
    player_id: str = ""  # a signed-in caller's account: the seat is bound to it


@dataclass(frozen=True, slots=True)
class JoinGame:
    """Take the next free seat (a private table's only with its invite code).

    As with ``CreateGame``, the seat token derives from the raw ``request_id``.
    """

    game_id: UUID
    display_name: str
    request_id: str = ""
    request_hash: str = ""
    invite_code: str = ""
    player_id: str = ""  # a signed-in caller's account: the seat is bound to it


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """A request of a seat that names nothing but its game.

    ``StartGame``, ``LeaveGame``, ``ResignGame``, ``UndoMove`` and
    ``ProposeUndo``: the call's token says which seat asks.
    """

    game_id: UUID
    call: Call = field(default_factory=Call)


@dataclass(frozen=True, slots=True)
class RemovePlayer:
    """The host removes ``seat`` before play begins."""

    game_id: UUID
    seat: int
    call: Call = field(default_factory=Call)


@dataclass(frozen=True, slots=True)
class RotateInviteCode:
    """The host gives a private table a new invite code.

    A retry with the same raw ``request_id`` gets the same code back: the code
    derives from it.
    """

    game_id: UUID
    token: str | None
    request_id: str = ""
    request_hash: str = ""


@dataclass(frozen=True, slots=True)
class RespondUndo:
    """The caller's answer to an open undo proposal."""

    game_id: UUID
    proposal_id: int
    accept: bool
    call: Call = field(default_factory=Call)


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
