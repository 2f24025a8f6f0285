"""The event store of games: load, authenticate, decide, append, de-duplicate.

Every mutation is one atomic append of the events a decision produced; the
appends of concurrent commands share one transaction (``services/commits.py``).
When two writers race for the same revision the store refuses the second append;
the loser re-loads and re-decides unless the client pinned ``expected_revision``.
A request id the game has already seen returns what that request stored.

Folds of recently used games are kept in memory (``services/kept.py``): the
latest, and one every 100 revisions. Loading a game reads only the events stored
after the kept revision (by any process), and a past revision folds at most 99
events onto the checkpoint below it, so a game's length no longer costs a full
replay; the database stays the only source of truth.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import Enum
from itertools import takewhile
from typing import Any, TypeAlias
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError

from domain.common import commands
from domain.common.commands import JoinTable, TableCommand
from domain.common.decision import Rejected, RejectionKind, reject
from domain.common.seats import Seat, Spectator, Viewer
from domain.common.table import not_seated
from domain.common.table_state import GameCreated
from services.calls import Call
from services.commits import GroupCommit
from services.kept import KEEP_MEMORY, KeptGames
from services.records import (
    GameRecord,
    RecordedEvent,
    StoredEvent,
    advance,
    digested,
    known_event,
    unwrap,
    wrap,
)
from services.sessions import Sessions, looks_like_session
from services.snapshots import Snapshots
from services.tokens import token_hash

MAX_ATTEMPTS = 5
# Builds the command of a request once its game is loaded and its caller's seat
# known (None if unseated), or refuses a request that does not fit the game.
CommandFor: TypeAlias = Callable[[GameRecord, int | None], TableCommand | Rejected]


class DecidedFor(Enum):
    """Whom a request is decided for."""

    # No seat, and no credentials asked: a join (its seat is not taken yet)
    # and the server's own commands (expiry, timeouts, resigned seats' moves).
    NOBODY = "nobody"
    # The seat the call's token acts for; a call without one is refused.
    CALLERS_SEAT = "callers_seat"


@dataclass(frozen=True, slots=True)
class Batch:
    """What one decision stores: its events, the command, who, which move, when."""

    events: tuple[Any, ...]
    command: Any
    actor: int | None
    move_number: int
    at: datetime


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A request refused before the rules: it is no command of the game's type.

    ``CommandFor`` refuses only what the game's type and the caller's seat
    decide, which no later revision changes, so the refusal is never decided
    again on a reloaded game.
    """

    refusal: Rejected


@dataclass(frozen=True, slots=True)
class Applied:
    """A game after a command, with the events that command appended."""

    record: GameRecord
    events: tuple[RecordedEvent, ...]


class GameStore(Application[UUID]):
    """The event-sourced application holding every game's event stream."""

    name = "tabletop"  # fixes the stored table names: do not change

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # The library names each subclass after its class (GamesApp would store
        # in gamesapp_events); every store of games shares the tabletop tables.
        super().__init_subclass__(**kwargs)
        cls.name = GameStore.name

    def __init__(
        self,
        env: dict[str, str] | None = None,
        clock: Callable[[], datetime] | None = None,
        keep_memory: int = KEEP_MEMORY,
    ) -> None:
        # Snapshots are on unless the environment turns them off (S3).
        snapshotting = os.environ.get("IS_SNAPSHOTTING_ENABLED", "y")
        super().__init__({"IS_SNAPSHOTTING_ENABLED": snapshotting, **(env or {})})
        # The time of events and of undo deadlines; tests inject their own.
        self.clock = clock or (lambda: datetime.now(UTC))
        # Called after every successful append, with the game and its new events
        # (the live feed uses it to wake streams of this process at once).
        self.appended: list[Callable[[UUID, tuple[RecordedEvent, ...]], None]] = []
        # Called with the hash of every token issued for a seat or found to act
        # for one (the rate limiter gives only such tokens a bucket of their own).
        self.authenticated: list[Callable[[str], None]] = []
        stored = Snapshots(self.snapshots) if self.snapshots else None
        # Folds of recent games, within ``keep_memory`` bytes (--keep-memory).
        self.kept = KeptGames(keep_memory, snapshots=stored)
        # Verifies signed-in players' access tokens (None: nobody signs in).
        self.sessions: Sessions | None = None
        # Appends of concurrent commands share transactions (services/commits.py).
        self.commits = GroupCommit(lambda events: self.save(*events))

    def get_game(self, game_id: UUID, revision: int | None = None) -> GameRecord | None:
        """Returns the game, at ``revision`` when given, or None if unknown.

        A revision past the latest gives the latest game: callers compare.
        A past revision is folded from the nearest kept or stored fold below it
        without loading the latest game: the events up to ``revision`` are all
        there is to read, and they end early only if the game does.
        """
        if revision is None:
            return self._latest_fold(game_id)
        kept = self.kept.latest(game_id)
        if kept is not None and revision >= kept.revision:
            latest = self._latest_fold(game_id)
            if latest is None or revision >= latest.revision:
                return latest
        base = self.kept.checkpoint(game_id, revision)
        since = self._stored_events(
            game_id, gt=base.revision if base else None, lte=revision
        )
        if base is None and not _a_game(since):
            return None
        record = base
        for item in since:
            record = advance(record, game_id, item)
        return record

    def _latest_fold(self, game_id: UUID) -> GameRecord | None:
        """Returns the kept fold advanced by the events stored since, and keeps it.

        A game this process does not keep starts from its newest stored
        snapshot; snapshots it then passes were missing or unreadable, so they
        are stored. Passing those of moves made by other processes stores none.
        """
        record = self.kept.latest(game_id)
        cold = record is None
        if cold:
            record = self.kept.stored(game_id)
        newer = self._stored_events(game_id, gt=record.revision if record else None)
        if not newer and not cold:
            return record
        if record is None and not _a_game(newer):
            return None  # nothing stored, or another kind's stream (a player's)
        return self.kept.advance(record, game_id, newer, store=cold)

    def recorded_events(
        self, game_id: UUID, *, gt: int | None = None, lte: int | None = None
    ) -> list[RecordedEvent]:
        """Returns the game's decoded events in revision order, with their digests.

        Events stored before digests were stored get theirs from the fold of
        the game up to the revision before them.
        """
        events = self._stored_events(game_id, gt=gt, lte=lte)
        if all(item.digest for item in events):
            return events
        first = events[0].revision
        before = self.get_game(game_id, first - 1) if first > 1 else None
        return digested(before, game_id, events)

    def _stored_events(
        self, game_id: UUID, *, gt: int | None = None, lte: int | None = None
    ) -> list[RecordedEvent]:
        """Returns the game's decoded events, without digests where none is stored.

        For folds, which compute the digests stored events lack.
        """
        stored = self.events.get(game_id, gt=gt, lte=lte)
        return [unwrap(event) for event in stored if isinstance(event, StoredEvent)]

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
        if isinstance(viewer, Spectator):  # a signed-in player without a seat here
            return not_seated()
        return viewer.index if isinstance(viewer, Seat) else _invalid(record, token)

    def caller(self, record: GameRecord, token: str | None) -> Viewer | Rejected:
        """Returns who a call is: its seat, or a spectator when it sends no token.

        A token that is none of this game's seats is refused rather than taken
        for a spectator (decision T6).
        """
        viewer = self.viewer_for(record, token)
        return _invalid(record, token or "") if viewer is None else viewer

    def viewer_for(self, record: GameRecord, token: str | None) -> Viewer | None:
        """Returns who a bearer token identifies in this game; None if nobody.

        A seat token acts for its seat. A signed-in player's access token acts
        for the seat the player holds, and watches any other game as a
        spectator; one that does not verify identifies nobody.
        """
        if token is None:
            return Spectator()
        if looks_like_session(token):
            claims = self.sessions.verify(token) if self.sessions else None
            return None if claims is None else _seat_of(record, claims.player_id)
        hashed = token_hash(token)
        found: int | None = None
        for index, holder in enumerate(record.table.seats):
            # Compare every seat in constant time, so timing tells nothing.
            if hmac.compare_digest(holder.token_hash, hashed):
                found = index
        if found is None:
            return None
        for listener in self.authenticated:
            listener(hashed)
        return Seat(found)

    def game_ids(self, after: int, limit: int) -> Sequence[tuple[int, UUID]]:
        """Returns (position, id) of the games created after ``after``, oldest first."""
        notifications = self.recorder.select_notifications(
            start=after,
            limit=limit,
            topics=["table.GameCreated"],
            inclusive_of_start=False,
        )
        return [(n.id, UUID(str(n.originator_id))) for n in notifications]

    def _applied_again(self, record: GameRecord, call: Call) -> Applied | Rejected:
        """Returns what an earlier request with this id stored, if it is the same."""
        entry = record.requests[call.request_key]
        if entry.request_hash != call.request_hash:
            return reused()
        later = self.recorded_events(record.game_id, gt=entry.first_revision - 1)
        events = tuple(takewhile(lambda e: e.request_key == call.request_key, later))
        return Applied(record, events)

    def _execute(
        self,
        game_id: UUID,
        command_for: CommandFor,
        call: Call,
        decided_for: DecidedFor,
    ) -> Applied | Rejected:
        """Loads, authenticates, decides and appends; re-decides on a lost race.

        The decision starts from the game this process keeps, without asking
        the database what is newer: if another process moved meanwhile, the
        append collides with its events and the command is decided again on
        the latest game. A refusal is only ever given from the latest game,
        except for a request that does not read as a command of the game
        (``Unreadable``), which no newer revision would change. A pinned
        command that loses the append gets the first answer if the game it
        lost to already holds its request id.
        """
        revision, fresh = 0, False
        for _ in range(MAX_ATTEMPTS):
            record, fresh = self._to_decide_on(game_id, fresh=fresh)
            if record is None:
                return game_not_found(game_id)
            revision = record.revision
            decided = self._decide(record, command_for, call, decided_for)
            if isinstance(decided, Unreadable):
                return decided.refusal  # no newer game reads it otherwise
            if isinstance(decided, Rejected) and not fresh:
                fresh = True
                continue
            if not isinstance(decided, Batch):
                return decided
            try:
                return self._append(record, game_id, decided, call)
            except IntegrityError:
                fresh = True
                if call.expected_revision:
                    return self._pinned_and_lost(game_id, call)
        return _stale("CONCURRENT_UPDATE", revision)

    def _to_decide_on(
        self, game_id: UUID, *, fresh: bool
    ) -> tuple[GameRecord | None, bool]:
        """Returns the game to decide on, and whether it was read from the store.

        That is the game this process keeps, unless ``fresh`` asks for the
        latest stored game or none is kept.
        """
        kept = None if fresh else self.kept.latest(game_id)
        if kept is not None:
            return kept, False
        return self.get_game(game_id), True

    def _pinned_and_lost(self, game_id: UUID, call: Call) -> Applied | Rejected:
        """Answers a command with ``expected_revision`` whose append collided."""
        latest = self.get_game(game_id)
        if latest is not None and call.request_key in latest.requests:
            # The collision was this request's own earlier attempt, stored
            # (through another process) without an answer.
            return self._applied_again(latest, call)
        return _stale("CONCURRENT_UPDATE", latest.revision if latest else 0)

    def _decide(
        self,
        record: GameRecord,
        command_for: CommandFor,
        call: Call,
        decided_for: DecidedFor,
    ) -> Batch | Applied | Rejected | Unreadable:
        """Returns what to append for a request on ``record``, or its answer.

        ``decided_for`` says whether the call's token must act for a seat, the
        one the command is decided for. Who the events are credited to and
        whether they are a numbered move follow from the command (``_batch``).
        """
        seat = (
            self.authenticate(record, call.token)
            if decided_for is DecidedFor.CALLERS_SEAT
            else None
        )
        if call.request_key in record.requests:
            # Before the seat's check: a retry of LeaveGame finds its seat gone.
            # The request's fingerprint covers its token, so only the same
            # call gets the first answer.
            return self._applied_again(record, call)
        if isinstance(seat, Rejected):
            return seat
        if call.expected_revision and call.expected_revision != record.revision:
            return _stale("REVISION_MISMATCH", record.revision)
        command = command_for(record, seat)
        if isinstance(command, Rejected):
            return Unreadable(command)
        now = self.clock()
        decision = commands.decide(record.table, record.rules, seat, command, now)
        if isinstance(decision, Rejected):
            return decision
        return _batch(record, decision.events, command, seat, now)

    def _append(
        self, record: GameRecord | None, game_id: UUID, batch: Batch, call: Call
    ) -> Applied:
        """Stores a decision's events atomically, the command with the first."""
        base = record.revision if record else 0
        envelopes = [
            wrap(
                game_id,
                base + offset,
                event,
                timestamp=batch.at,
                actor=batch.actor,
                move_number=batch.move_number,
                request_key=call.request_key,
                request_hash=call.request_hash,
                command=batch.command if offset == 1 else None,
            )
            for offset, event in enumerate(batch.events, start=1)
        ]
        known = [
            known_event(envelope, event, batch.command if offset == 1 else None)
            for offset, (envelope, event) in enumerate(
                zip(envelopes, batch.events, strict=True), start=1
            )
        ]
        recorded = tuple(digested(record, game_id, known))
        envelopes = [
            replace(envelope, digest=item.digest)
            for envelope, item in zip(envelopes, recorded, strict=True)
        ]
        self.commits.commit(game_id, envelopes)
        record = self.kept.advance(record, game_id, recorded)
        if record is None:
            msg = "an append must store at least one event"
            raise ValueError(msg)
        for listener in self.appended:
            listener(game_id, recorded)
        return Applied(record, recorded)


def _batch(
    record: GameRecord,
    events: tuple[Any, ...],
    command: TableCommand,
    seat: int | None,
    now: datetime,
) -> Batch:
    """Returns what an accepted command stores: who it is credited to, which move.

    The same rules as the audit checks (``services/audit/replay.py``): a join
    is credited to the seat it takes, the bot's move to the seat it plays for,
    anything else to the seat it was decided for; moves are numbered in order.
    """
    if isinstance(command, JoinTable):
        actor: int | None = len(record.table.seats)
    else:
        actor = commands.acting_seat(command, seat)
    is_move = isinstance(command, commands.MOVE_COMMANDS)
    return Batch(events, command, actor, record.move_count + 1 if is_move else 0, now)


def _a_game(events: Sequence[RecordedEvent]) -> bool:
    """Tells whether a stream's events from its start are a game's."""
    return bool(events) and isinstance(events[0].event, GameCreated)


def _seat_of(record: GameRecord, player_id: UUID) -> Seat | Spectator:
    """Returns the seat a signed-in player holds in a game, else a spectator."""
    account = str(player_id)
    for index, holder in enumerate(record.table.seats):
        if holder.player_id == account:
            return Seat(index)
    return Spectator()


def _invalid(record: GameRecord, token: str) -> Rejected:
    message = (
        "The access token has expired or is not valid: refresh the session "
        "(AuthService.RefreshSession) or sign in again."
        if looks_like_session(token)
        else f"The seat token is not valid for games/{record.game_id}."
    )
    return reject(
        "INVALID_CREDENTIALS",
        message,
        "table/credentials",
        RejectionKind.UNAUTHENTICATED,
        game=f"games/{record.game_id}",
    )


def reused() -> Rejected:
    """Returns the refusal of a request id reused for another request.

    It does not quote the id: no answer ever carries one (DESIGN §8).
    """
    return reject(
        "REQUEST_ID_REUSED",
        "This request_id was already used for a different request; "
        "use a new id for every new request.",
        "table/request_id",
    )


def seat_or_fail(seat: int | None) -> int:
    """Returns the seat a seated call decided for."""
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


def revision_not_found(record: GameRecord, revision: int) -> Rejected:
    """Returns the refusal for a revision the game has not reached."""
    game = f"games/{record.game_id}"
    return reject(
        "REVISION_NOT_FOUND",
        f"{game} has no revision {revision} yet; its current revision is "
        f"{record.revision}.",
        "table/revision_exists",
        RejectionKind.NOT_FOUND,
        game=game,
        revision=revision,
        currentRevision=record.revision,
    )


def _stale(reason: str, current: int) -> Rejected:
    return reject(
        reason,
        f"The game has moved on to revision {current}; reload it and try again.",
        "table/expected_revision",
        RejectionKind.STALE,
        currentRevision=current,
    )
