"""Use cases of the game service: open, join, start and play games.

Each use case takes one call object (``services/calls.py``), which the servicer
builds from the request, and hands the store the command it asks for (built on
the loaded game where the game decides it); ``GameStore`` loads, authenticates,
de-duplicates, decides with the table's and the game's rules, and appends.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from domain.bots import choose_move
from domain.common import commands
from domain.common import table as tables
from domain.common.commands import (
    AnswerTakeback,
    CreateTable,
    ExpireTable,
    JoinTable,
    LeaveTable,
    PlayMove,
    ProposeTakeback,
    RemoveSeat,
    Resign,
    RotateInvite,
    StartTable,
    TableCommand,
    UndoLastMove,
)
from domain.common.decision import Rejected, RejectionKind, malformed, reject
from domain.common.rng import SEED_BYTES
from domain.common.seats import Seat
from domain.games.registry import rules_for
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RemovePlayer,
    RespondUndo,
    RotateInviteCode,
    SeatRequest,
    SentMove,
    SubmitMove,
)
from services.kept import KEEP_MEMORY
from services.listings import Listings
from services.records import GameRecord
from services.request_ids import request_key
from services.stand_ins import resigned_to_move, timeout_for
from services.store import (
    Applied,
    Batch,
    CommandFor,
    DecidedFor,
    GameStore,
    game_not_found,
    reused,
    seat_or_fail,
)
from services.tokens import (
    game_id_for,
    invite_code,
    invite_hash,
    new_token,
    seat_token,
    token_hash,
)

# How long a table waits for players before it closes, unless configured.
DEFAULT_TABLE_WAIT = timedelta(hours=24)

__all__ = ["Applied", "Call", "GamesApp", "Seated", "game_not_found"]


@dataclass(frozen=True, slots=True)
class Seated:
    """A game together with a seat and its secret token, shown only once."""

    record: GameRecord
    seat: int
    token: str
    # A private table's invite code, for the host who opened it; "" otherwise.
    invite_code: str = ""


@dataclass(frozen=True, slots=True)
class Invited:
    """A private table and its new invite code, shown only to its host."""

    applied: Applied
    invite_code: str


@dataclass(frozen=True, slots=True)
class LegalMoves:
    """A seat's legal moves in a game, listed a page at a time."""

    record: GameRecord
    seat: int | None  # None while play is not on: no moves
    listings: Listings

    def page(self, start: int, size: int) -> tuple[tuple[Any, ...], bool]:
        """Returns up to ``size`` moves from ``start`` on, and whether more follow."""
        record, seat = self.record, self.seat
        if seat is None:
            return (), False
        game, rules = record.table.game, record.rules
        key = (record.game_id, record.revision, seat, start)
        page, more = self.listings.page(
            key, size, lambda: rules.legal_moves(game, seat)
        )
        return tuple(page), more


class GamesApp(GameStore):
    """The games application: every use case of the game service."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        allow_client_seed: bool = False,
        clock: Callable[[], datetime] | None = None,
        table_wait: timedelta | None = DEFAULT_TABLE_WAIT,
        keep_memory: int = KEEP_MEMORY,
    ) -> None:
        super().__init__(env, clock, keep_memory)
        self.allow_client_seed = allow_client_seed
        # How long a new table waits for players before it closes (None: ever).
        self.table_wait = table_wait
        self.listings = Listings()

    def create_game(self, request: CreateGame) -> Seated | Rejected:
        """Opens a table of the request's game type and seats its creator, the host.

        With a request id, a retry returns the game the first attempt created
        (and the same seat token and invite code) and stores nothing new.
        """
        rules = rules_for(request.game_type)
        if rules is None:
            return reject(
                "UNKNOWN_GAME_TYPE",
                f"No game of type {request.game_type!r} is played here.",
                "table/game_type",
                RejectionKind.MALFORMED,
                gameType=request.game_type,
            )
        seed = self._seed(request.seed)
        if isinstance(seed, Rejected):
            return seed
        call = Call(
            request_key=request_key(request.request_id),
            request_hash=request.request_hash,
        )
        game_id = game_id_for(request.request_id)
        earlier = self.get_game(game_id) if request.request_id else None
        if earlier is not None:
            return self._seated_again(earlier, call, request.request_id)
        return self._open(request, rules, seed, game_id, call)

    def _open(
        self,
        request: CreateGame,
        rules: tables.Rules,
        seed: bytes,
        game_id: UUID,
        call: Call,
    ) -> Seated | Rejected:
        """Stores the opening of a new table with its host in seat 0."""
        request_id = request.request_id
        token = (
            seat_token(seed.hex(), game_id, 0, request_id)
            if request_id
            else new_token()
        )
        private = request.private
        code = invite_code(seed.hex(), game_id, "open", request_id) if private else ""
        now = self.clock()
        command = CreateTable(
            request.game_type,
            request.config,
            request.max_players,
            "" if request.player_id else request.display_name,
            token_hash(token),
            request.turn_seconds,
            invite_hash(code),
            None if self.table_wait is None else now + self.table_wait,
            request.player_id,
        )
        decision = commands.create(rules, command, seed)
        if isinstance(decision, Rejected):
            return decision
        batch = Batch(decision.events, command, 0, 0, now)
        try:
            applied = self._append(None, game_id, batch, call)
        except IntegrityError:  # the same request, in flight elsewhere, won
            return self._seated_again(self.get_game(game_id), call, request_id)
        return self._issued(Seated(applied.record, 0, token, code))

    def join_game(self, request: JoinGame) -> Seated | Rejected:
        """Seats the caller in the game's next free seat (a private table's
        only with its invite code).

        As with ``create_game``, a retry with the same raw request id gets the
        same seat token, derived from the id, which only its key records.
        """
        request_id = request.request_id
        random_token = new_token()

        def join(record: GameRecord, _: int | None) -> JoinTable:
            token = _token_for(record, len(record.table.seats), request_id)
            # A public table records no code, whatever the request carried.
            code = request.invite_code
            shown = invite_hash(code) if record.table.private else ""
            hashed = token_hash(token or random_token)
            # A signed-in player is shown under the account's name, kept sealed
            # outside this log (services/player_names.py), never this one.
            name = "" if request.player_id else request.display_name
            return JoinTable(name, hashed, shown, request.player_id)

        call = Call(
            request_key=request_key(request_id), request_hash=request.request_hash
        )
        result = self._execute(request.game_id, join, call, DecidedFor.NOBODY)
        if isinstance(result, Rejected):
            return result
        taken = result.events[0].actor
        if taken is None:
            msg = "a join is always credited to the seat it takes"
            raise ValueError(msg)
        token = _token_for(result.record, taken, request_id) or random_token
        # Seats move down when someone leaves: the token tells where it is now.
        seat = self.viewer_for(result.record, token)
        if not isinstance(seat, Seat):
            return _seat_given_up()
        return self._issued(Seated(result.record, seat.index, token))

    def start_game(self, request: SeatRequest) -> Applied | Rejected:
        """Starts the game for a seated caller: deals and opens play."""
        return self._for_seat(request.game_id, StartTable(), request.call)

    def leave_game(self, request: SeatRequest) -> Applied | Rejected:
        """Gives up the caller's seat before play begins."""
        return self._for_seat(request.game_id, LeaveTable(), request.call)

    def remove_player(self, request: RemovePlayer) -> Applied | Rejected:
        """The host's removal of a seat before play begins."""
        command = RemoveSeat(request.seat)
        return self._for_seat(request.game_id, command, request.call)

    def rotate_invite(self, request: RotateInviteCode) -> Invited | Rejected:
        """Gives a private table a new invite code, at its host's request.

        A retry with the same raw request id gets the same code back.
        """
        game_id, request_id = request.game_id, request.request_id
        random_code = invite_code("", game_id, "rotate", "")

        def code_for(record: GameRecord) -> str:
            seed = record.table.seed
            derived = request_id and invite_code(seed, game_id, "rotate", request_id)
            return derived or random_code

        def rotate(record: GameRecord, _: int | None) -> RotateInvite:
            return RotateInvite(invite_hash(code_for(record)))

        call = Call(request.token, request_key(request_id), request.request_hash)
        result = self._execute(game_id, rotate, call, DecidedFor.CALLERS_SEAT)
        if isinstance(result, Rejected):
            return result
        return Invited(result, code_for(result.record))

    def resign(self, request: SeatRequest) -> Applied | Rejected:
        """Resigns the caller's seat: the server's bot plays it from now on."""
        return self._for_seat(request.game_id, Resign(), request.call)

    def expire(self, game_id: UUID) -> Applied | Rejected:
        """Closes a table that waited for players past its expiry time."""
        return self._execute(game_id, self._expiry, Call(), DecidedFor.NOBODY)

    def play_resigned(self, game_id: UUID) -> Applied | Rejected:
        """Plays the bot's move for a resigned seat that is to move.

        The game is read from the store first: another process may have moved
        it, and a refusal here is not decided again.
        """
        if self.get_game(game_id) is None:
            return game_not_found(game_id)
        return self._execute(game_id, resigned_to_move, Call(), DecidedFor.NOBODY)

    def _for_seat(
        self, game_id: UUID, command: TableCommand, call: Call
    ) -> Applied | Rejected:
        """Decides ``command``, which needs no game to build, for the caller's seat."""
        return self._execute(game_id, _always(command), call, DecidedFor.CALLERS_SEAT)

    def _expiry(self, record: GameRecord, _: int | None) -> ExpireTable | Rejected:
        """Returns the closing of a table, if it has waited long enough.

        A table opened before tables expired has no expiry time of its own:
        it is closed once it has waited the configured time since it opened.
        """
        waited = self.clock() - record.created_at
        if record.table.expires_at is None and (
            self.table_wait is None or waited < self.table_wait
        ):
            return reject(
                "TABLE_NOT_EXPIRED",
                "The table has not waited for players long enough to close.",
                "table/expiry",
            )
        return ExpireTable()

    def submit_move(self, request: SubmitMove) -> Applied | Rejected:
        """Applies the caller's move, for the caller's seat, if the rules accept it.

        The move was read from the request before its game was loaded; a move
        of another game, or one that did not read as a command, is refused
        before the rules and not decided again on a newer game.
        """
        move = request.move

        def play(record: GameRecord, seat: int | None) -> PlayMove | Rejected:
            if move.game_type != record.table.game_type:
                return _another_game(record, move)
            if isinstance(move.command, Rejected):
                return move.command
            return PlayMove(replace(move.command, seat=seat_or_fail(seat)))

        return self._execute(
            request.game_id, play, request.call, DecidedFor.CALLERS_SEAT
        )

    def undo_move(self, request: SeatRequest) -> Applied | Rejected:
        """Takes back the caller's last move alone, where the game allows it."""
        return self._for_seat(request.game_id, UndoLastMove(), request.call)

    def propose_undo(self, request: SeatRequest) -> Applied | Rejected:
        """Asks the other players to let the caller take back their last move."""
        return self._for_seat(request.game_id, ProposeTakeback(), request.call)

    def respond_undo(self, request: RespondUndo) -> Applied | Rejected:
        """Records the caller's answer to an undo proposal."""
        answer = AnswerTakeback(request.proposal_id, request.accept)
        return self._for_seat(request.game_id, answer, request.call)

    def time_out(self, game_id: UUID, deadline: datetime) -> Applied | Rejected:
        """Plays the bot's move for a seat whose time ran out at ``deadline``.

        Stale once the timer was set again (a move made in time)."""
        return self._execute(game_id, timeout_for(deadline), Call(), DecidedFor.NOBODY)

    def suggest_move(
        self, game_id: UUID, token: str | None
    ) -> tuple[GameRecord, Any | None] | Rejected:
        """Returns the game and the bot's move for the caller's seat (None: none).

        The bot decides from the seat's own view, so it tells nothing hidden. A
        caller with no move now gets none, a spectator as a seat not to act.
        """
        found = self._playing_seat(game_id, token)
        if isinstance(found, Rejected):
            return found
        record, seat = found
        game = record.table.game
        if seat is None or seat not in record.rules.to_move(game):
            return record, None
        return record, choose_move(record.table.game_type, game, seat)

    def legal_moves(self, game_id: UUID, token: str | None) -> LegalMoves | Rejected:
        """Returns the game and the moves the caller's seat could make now.

        The moves are listed a page at a time, in the rules' fixed order; a
        page resumes the listing the previous page kept (services/listings.py).
        A spectator has none, as a seat not to act.
        """
        found = self._playing_seat(game_id, token)
        if isinstance(found, Rejected):
            return found
        record, seat = found
        return LegalMoves(record, seat, self.listings)

    def _playing_seat(
        self, game_id: UUID, token: str | None
    ) -> tuple[GameRecord, int | None] | Rejected:
        """Returns the game and the caller's seat; None while play is not on.

        A spectator (no token, or a signed-in player without a seat here) has
        no seat either: the game is public to spectators, so an empty answer
        tells them nothing, and costs no more than a refusal. A token that is
        nobody's here is refused, as by every call (decision T6).
        """
        record = self.get_game(game_id)
        if record is None:
            return game_not_found(game_id)
        viewer = self.caller(record, token)
        if isinstance(viewer, Rejected):
            return viewer
        if record.table.status is not tables.TableStatus.IN_PROGRESS:
            return record, None
        return record, viewer.index if isinstance(viewer, Seat) else None

    def _seated_again(
        self, record: GameRecord | None, call: Call, request_id: str
    ) -> Seated | Rejected:
        """Returns the seat an earlier CreateGame with this id took, if the same."""
        if record is None or call.request_key not in record.requests:
            return reused()
        again = self._applied_again(record, call)
        if isinstance(again, Rejected):
            return again
        token = _token_for(record, 0, request_id) or ""
        # The creator may have left since: a retry then shows no seat's view.
        seat = self.viewer_for(record, token)
        if not isinstance(seat, Seat):
            return _seat_given_up()
        seed = record.table.seed
        private = record.table.private
        code = invite_code(seed, record.game_id, "open", request_id) if private else ""
        return Seated(record, seat.index, token, code)

    def _issued(self, seated: Seated) -> Seated:
        """Returns ``seated``, once its listeners know its token is a seat's."""
        hashed = token_hash(seated.token)
        for listener in self.authenticated:
            listener(hashed)
        return seated

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


def _always(command: TableCommand) -> CommandFor:
    """Returns a command builder for a request whose command needs no game."""

    def command_for(record: GameRecord, seat: int | None) -> TableCommand:
        del record, seat
        return command

    return command_for


def _another_game(record: GameRecord, move: SentMove) -> Rejected:
    """Returns the refusal of a move sent for another game type (or for none).

    A game's moves are sent in the ``Move`` member named after its game type.
    """
    game_type = record.table.game_type
    sent = f"move.{move.game_type}" if move.game_type else "move"
    return malformed(
        "GAME_TYPE_MISMATCH",
        f"This game is {game_type}; the move must set move.{game_type}, not {sent}.",
        "table/game_type",
        field=sent,
        gameType=game_type,
    )


def _seat_given_up() -> Rejected:
    return reject(
        "SEAT_GIVEN_UP",
        "The seat this request took was given up since (its player left or "
        "was removed); join again with a new request_id.",
        "table/request_id",
    )


def _token_for(record: GameRecord, seat: int, request_id: str) -> str | None:
    """Returns the derived token of a seat taken by an identified request."""
    if not request_id:
        return None
    return seat_token(record.table.seed, record.game_id, seat, request_id)
