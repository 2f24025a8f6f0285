"""Use cases of the game service: load a game, let the rules decide, append.

Every mutation is one atomic append of the events a decision produced. When two
writers race for the same revision the store refuses the second append; the
loser re-loads and re-decides unless the client pinned ``expected_revision``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeAlias
from uuid import UUID, uuid4

from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError

from domain.common import table as tables
from domain.common.decision import Decision, Rejected, RejectionKind, reject
from domain.common.rng import SEED_BYTES, commitment
from domain.common.seats import Seat, Spectator, Viewer
from domain.games.registry import rules_for
from services.records import (
    GameRecord,
    RecordedEvent,
    StoredEvent,
    advance,
    fold,
    unwrap,
    wrap,
)

MAX_ATTEMPTS = 5
Decide: TypeAlias = Callable[[GameRecord, int | None], Decision[Any]]


@dataclass(frozen=True, slots=True)
class Seated:
    """A game together with a seat and its secret token, shown only once."""

    record: GameRecord
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class Applied:
    """A game after a command, with the events that command appended."""

    record: GameRecord
    events: tuple[RecordedEvent, ...]


class GamesApp(Application[UUID]):
    """The event-sourced application holding every game's event stream."""

    name = "tabletop"  # fixes the stored table names: do not change

    def __init__(
        self, env: dict[str, str] | None = None, *, allow_client_seed: bool = False
    ) -> None:
        super().__init__(env)
        self.allow_client_seed = allow_client_seed

    def create_game(
        self,
        game_type: str,
        config: Any,
        max_players: int,
        display_name: str,
        seed: bytes = b"",
        request_id: str = "",
    ) -> Seated | Rejected:
        """Opens a table of ``game_type`` and seats its creator in seat 0."""
        rules = rules_for(game_type)
        if rules is None:
            return reject(
                "UNKNOWN_GAME_TYPE",
                f"No game of type {game_type!r} is played here.",
                "table/game_type",
                RejectionKind.MALFORMED,
                gameType=game_type,
            )
        seed_or_refusal = self._seed(seed)
        if isinstance(seed_or_refusal, Rejected):
            return seed_or_refusal
        token = new_token()
        decision = tables.create(
            rules,
            config,
            max_players,
            seed_or_refusal,
            commitment(seed_or_refusal),
            display_name,
            token_hash(token),
        )
        if isinstance(decision, Rejected):
            return decision
        game_id = uuid4()
        applied = self._append(None, game_id, decision.events, 0, 0, request_id)
        return Seated(applied.record, 0, token)

    def join_game(
        self, game_id: UUID, display_name: str, request_id: str = ""
    ) -> Seated | Rejected:
        """Seats the caller in the game's next free seat."""
        token = new_token()
        hashed = token_hash(token)
        result = self._execute(
            game_id,
            lambda record, _: tables.join(record.table, display_name, hashed),
            request_id=request_id,
            joining=True,
        )
        if isinstance(result, Rejected):
            return result
        return Seated(result.record, len(result.record.table.seats) - 1, token)

    def start_game(
        self, game_id: UUID, token: str | None, request_id: str = ""
    ) -> Applied | Rejected:
        """Starts the game for a seated caller: deals and opens play."""
        return self._execute(
            game_id,
            lambda record, seat: tables.start(record.table, record.rules, _seat(seat)),
            seated=True,
            token=token,
            request_id=request_id,
        )

    def submit_move(
        self,
        game_id: UUID,
        token: str | None,
        command_for: Callable[[GameRecord, int], Any | Rejected],
        expected_revision: int = 0,
        request_id: str = "",
    ) -> Applied | Rejected:
        """Applies the caller's move if the rules accept it.

        ``command_for`` builds the command for the caller's seat once the game
        is loaded (it may refuse a move that does not fit the game).
        """

        def decide(record: GameRecord, seat: int | None) -> Decision[Any]:
            command = command_for(record, _seat(seat))
            if isinstance(command, Rejected):
                return command
            return tables.play(record.table, record.rules, _seat(seat), command)

        return self._execute(
            game_id,
            decide,
            seated=True,
            token=token,
            request_id=request_id,
            expected_revision=expected_revision,
            is_move=True,
        )

    def get_game(self, game_id: UUID, revision: int | None = None) -> GameRecord | None:
        """Returns the game, at ``revision`` when given, or None if unknown."""
        return fold(game_id, self.recorded_events(game_id, lte=revision))

    def recorded_events(
        self, game_id: UUID, *, gt: int | None = None, lte: int | None = None
    ) -> list[RecordedEvent]:
        """Returns the game's decoded events in revision order."""
        stored = self.events.get(game_id, gt=gt, lte=lte)
        return [unwrap(event) for event in stored if isinstance(event, StoredEvent)]

    def legal_moves(
        self, game_id: UUID, token: str | None
    ) -> tuple[GameRecord, list[Any]] | Rejected:
        """Returns the game and every move the caller's seat could make now."""
        record = self.get_game(game_id)
        if record is None:
            return game_not_found(game_id)
        seat = self.authenticate(record, token)
        if isinstance(seat, Rejected):
            return seat
        if record.table.status is not tables.TableStatus.IN_PROGRESS:
            return record, []
        return record, list(record.rules.legal_moves(record.table.game, seat))

    def authenticate(self, record: GameRecord, token: str | None) -> int | Rejected:
        """Returns the seat a bearer token acts for in this game."""
        if token is None:
            return reject(
                "MISSING_CREDENTIALS",
                "This call needs a seat token: send 'authorization: Bearer <token>'.",
                "table/credentials",
                RejectionKind.UNAUTHENTICATED,
            )
        viewer = self.viewer_for(record, token)
        if not isinstance(viewer, Seat):
            return reject(
                "INVALID_CREDENTIALS",
                f"The seat token is not valid for games/{record.game_id}.",
                "table/credentials",
                RejectionKind.UNAUTHENTICATED,
                game=f"games/{record.game_id}",
            )
        return viewer.index

    def viewer_for(self, record: GameRecord, token: str | None) -> Viewer | None:
        """Returns who a bearer token identifies in this game; None if nobody."""
        if token is None:
            return Spectator()
        hashed = token_hash(token)
        found: int | None = None
        for index, holder in enumerate(record.table.seats):
            # Compare every seat in constant time, so timing tells nothing.
            if hmac.compare_digest(holder.token_hash, hashed):
                found = index
        return None if found is None else Seat(found)

    def game_ids(self, after: int, limit: int) -> Sequence[tuple[int, UUID]]:
        """Returns (position, id) of the games created after ``after``, oldest first."""
        notifications = self.recorder.select_notifications(
            start=after,
            limit=limit,
            topics=["table.GameCreated"],
            inclusive_of_start=False,
        )
        return [(n.id, UUID(str(n.originator_id))) for n in notifications]

    def _seed(self, seed: bytes) -> bytes | Rejected:
        if not seed:
            return os.urandom(SEED_BYTES)
        if not self.allow_client_seed:
            return reject(
                "CLIENT_SEED_NOT_ALLOWED",
                "This server does not accept client-chosen seeds; "
                "only a development server does.",
                "table/server_seed",
            )
        if len(seed) != SEED_BYTES:
            return reject(
                "INVALID_SEED",
                f"A seed must be exactly {SEED_BYTES} bytes; got {len(seed)}.",
                "table/server_seed",
                RejectionKind.MALFORMED,
                seedLength=len(seed),
            )
        return seed

    def _execute(
        self,
        game_id: UUID,
        decide: Decide,
        *,
        request_id: str,
        seated: bool = False,
        token: str | None = None,
        expected_revision: int = 0,
        is_move: bool = False,
        joining: bool = False,
    ) -> Applied | Rejected:
        """Loads, authenticates, decides and appends; re-decides on a lost race.

        With ``seated`` the caller's token must act for a seat, which ``decide``
        receives; otherwise ``decide`` receives None. The events are credited to
        that seat, or with ``joining`` to the seat being taken.
        """
        revision = 0
        for _ in range(MAX_ATTEMPTS):
            record = self.get_game(game_id)
            if record is None:
                return game_not_found(game_id)
            revision = record.revision
            seat = self.authenticate(record, token) if seated else None
            if isinstance(seat, Rejected):
                return seat
            if expected_revision and expected_revision != record.revision:
                return _stale("REVISION_MISMATCH", record.revision)
            decision = decide(record, seat)
            if isinstance(decision, Rejected):
                return decision
            move_number = record.move_count + 1 if is_move else 0
            actor = len(record.table.seats) if joining else seat
            try:
                return self._append(
                    record, game_id, decision.events, actor, move_number, request_id
                )
            except IntegrityError:
                if expected_revision:
                    latest = self.get_game(game_id)
                    return _stale("CONCURRENT_UPDATE", latest.revision if latest else 0)
        return _stale("CONCURRENT_UPDATE", revision)

    def _append(
        self,
        record: GameRecord | None,
        game_id: UUID,
        events: tuple[Any, ...],
        actor: int | None,
        move_number: int,
        request_id: str,
    ) -> Applied:
        now = datetime.now(UTC)
        base = record.revision if record else 0
        envelopes = [
            wrap(
                game_id,
                base + offset,
                event,
                timestamp=now,
                actor=actor,
                move_number=move_number,
                request_id=request_id,
            )
            for offset, event in enumerate(events, start=1)
        ]
        self.save(*envelopes)
        recorded = tuple(unwrap(envelope) for envelope in envelopes)
        for item in recorded:
            record = advance(record, game_id, item)
        if record is None:
            msg = "an append must store at least one event"
            raise ValueError(msg)
        return Applied(record, recorded)


def _seat(seat: int | None) -> int:
    if seat is None:
        msg = "a seated call reached its decision without a seat"
        raise AssertionError(msg)
    return seat


def game_not_found(game_id: UUID) -> Rejected:
    """Returns the refusal for an unknown game."""
    return reject(
        "GAME_NOT_FOUND",
        f"There is no game games/{game_id}.",
        "table/exists",
        RejectionKind.NOT_FOUND,
        game=f"games/{game_id}",
    )


def _stale(reason: str, current: int) -> Rejected:
    return reject(
        reason,
        f"The game has moved on to revision {current}; reload it and try again.",
        "table/expected_revision",
        RejectionKind.STALE,
        currentRevision=current,
    )


def new_token() -> str:
    """Returns a fresh secret seat token (256 random bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """Returns the hash under which a seat token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
