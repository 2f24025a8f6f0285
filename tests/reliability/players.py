"""Client threads that play through a list of servers and fail over between them.

A player is what a mobile app does on a flaky network: a call that gets no
answer (``UNAVAILABLE``, or the deadline passes) is sent again, unchanged, to
the next server, until one answers. For ``SubmitMove`` that is the same request
with the same ``request_id``, so the server must apply it exactly once.

A player may also lose replies: some of its moves are sent with a deadline
shorter than the server needs, so the server goes on and stores the move while
the client hears nothing, the case a kill only rarely hits. The retry goes to
the next server, and the player returns to its own server afterwards (only a
server that is down, ``UNAVAILABLE``, is left for good).
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Sequence
from typing import TypeVar

import grpc
from tabletop.v1 import game_pb2, move_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from tests.e2e.client import auth, error_of, seat_of
from tests.reliability.ledger import Ledger, Submission

T = TypeVar("T")
CALL_SECONDS = 10.0  # deadline of one call
GIVE_UP_SECONDS = 60.0  # a request with no answer by then is a hang
NO_ANSWER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class NoServerAnsweredError(RuntimeError):
    """Every server stayed silent for ``GIVE_UP_SECONDS``: the request hangs."""


class Player:
    """Plays through ``stubs[route]``, moving to the next stub when one is silent."""

    def __init__(
        self, stubs: Sequence[GameServiceStub], lose_replies: float = 0.0, seed: int = 0
    ) -> None:
        self.stubs = stubs
        self.route = 0
        # Share of moves whose first call gets a deadline too short for a reply.
        self.lose_replies = lose_replies
        self._dice = random.Random(seed)
        # When a call first got an answer after one got none (time.monotonic()).
        self.recovered_at: list[float] = []
        self.answered_by = -1  # the index of the stub that gave the last answer

    def call(
        self,
        send: Callable[[GameServiceStub, float], T],
        deadline: float = CALL_SECONDS,
    ) -> tuple[T, int, bool]:
        """Returns the answer, the calls that got none, and whether it failed over.

        ``send`` gets the stub and the deadline of the call (``deadline`` for the
        first, ``CALL_SECONDS`` for retries). Raises the ``grpc.RpcError`` of a
        refusal (an answer that is not a reply).
        """
        down = False
        failed = 0
        first = self.route
        give_up = time.monotonic() + GIVE_UP_SECONDS
        while True:
            try:
                answer = send(self.stubs[self.route], deadline)
            except grpc.RpcError as error:
                if error.code() not in NO_ANSWER:
                    self._note(failed)
                    raise
                failed += 1
                if time.monotonic() > give_up:
                    raise NoServerAnsweredError from error
                down = error.code() == grpc.StatusCode.UNAVAILABLE
                self.route = (self.route + 1) % len(self.stubs)
                deadline = CALL_SECONDS
                time.sleep(0.02 * min(failed, 10))
                continue
            self._note(failed)
            self.answered_by = self.route
            over = self.route != first
            if over and not down:
                self.route = first
            return answer, failed, over

    def _note(self, failed: int) -> None:
        if failed:
            self.recovered_at.append(time.monotonic())

    def game(self, name: str) -> game_pb2.Game:
        """Returns the game as a spectator sees it."""
        request = api.GetGameRequest(name=name)
        reply, _, _ = self.call(lambda s, t: s.GetGame(request, timeout=t))
        return reply.game

    def legal_move(
        self, name: str, token: str, chooser: random.Random
    ) -> tuple[int, move_pb2.Move | None]:
        """Returns the revision and one legal move of the token's seat (None: none)."""
        request = api.ListLegalMovesRequest(name=name, page_size=8)
        reply, _, _ = self.call(
            lambda s, t: s.ListLegalMoves(request, metadata=auth(token), timeout=t)
        )
        moves = list(reply.moves)
        return reply.revision, chooser.choice(moves) if moves else None

    def submit(
        self,
        ledger: Ledger,
        name: str,
        token: str,
        move: move_pb2.Move,
        expected_revision: int = 0,
    ) -> api.SubmitMoveResponse | None:
        """Submits a move under a new request id until a server answers.

        Returns the reply, or None after a refusal; both go in ``ledger``.
        """
        request = api.SubmitMoveRequest(
            name=name,
            move=move,
            expected_revision=expected_revision,
            request_id=str(uuid.uuid4()),
        )
        submission = Submission(request.request_id, name, expected_revision)
        submission.sent_at = time.monotonic()
        ledger.add(submission)
        deadline = CALL_SECONDS
        if self._dice.random() < self.lose_replies:
            deadline = self._dice.uniform(0.002, 0.02)
        try:
            reply, failed, over = self.call(
                lambda s, t: s.SubmitMove(request, metadata=auth(token), timeout=t),
                deadline,
            )
        except grpc.RpcError as error:
            code, reason, metadata = error_of(error)
            submission.refused = (code, reason)
            submission.refusal_metadata = metadata
            return None
        submission.failed_calls = failed
        submission.failed_over = over
        submission.answered_at = time.monotonic()
        submission.answered_by = self.answered_by
        submission.replied = tuple(event.revision for event in reply.events)
        return reply


def play_turns(
    player: Player,
    ledger: Ledger,
    name: str,
    tokens: list[str],
    turns: int,
    *,
    pin: bool,
    seed: int,
) -> None:
    """Submits up to ``turns`` moves of whichever seat is to move, or till the end.

    With ``pin`` each move carries the revision its legal moves were listed at.
    """
    chooser = random.Random(seed)
    for _ in range(turns):
        game = player.game(name)
        if game.state != game_pb2.GAME_STATE_IN_PROGRESS:
            return
        token = tokens[seat_of(game.current_player)]
        revision, move = player.legal_move(name, token, chooser)
        if move is not None:
            player.submit(ledger, name, token, move, revision if pin else 0)
