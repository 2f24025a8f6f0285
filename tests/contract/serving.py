"""A game served by the games application, for the contract's use-case checks.

``serve`` lets the application play a game of the tests that the registry does
not list (the example game): for one test it adds the game to the registry,
to the codec of stored events and to the stored event topics, as the
registry's import does for the games the server plays.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any, cast

import pytest

from domain.common.decision import Rejected
from domain.common.rules import GameRules
from domain.games import registry
from services import records
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RespondUndo,
    SeatRequest,
    SentMove,
    SubmitMove,
)
from services.codec import Codec
from services.games import Applied, GamesApp, Seated
from services.records import GameRecord
from tests.contract.checks import check_refusal
from tests.contract.playouts import pick
from tests.playing import Clock, make_app


def serve(
    rules: GameRules[Any, Any, Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Registers a game of the tests with the application for the current test."""
    if registry.GAMES.get(rules.name) is rules:
        return
    monkeypatch.setitem(cast("dict[str, Any]", registry.GAMES), rules.name, rules)
    monkeypatch.setattr(records, "CODEC", Codec(records._all_names()))
    for name in rules.events:
        records.envelope_type(name)


class Table:
    """A started game of the application, with every seat's token."""

    def __init__(self, game_type: str, config: Any, players: int) -> None:
        self.app: GamesApp = make_app(Clock())
        seed = hashlib.sha256(f"contract/{game_type}/app".encode()).digest()
        created = self.app.create_game(
            CreateGame(game_type, config, players, "Seat 0", seed)
        )
        assert isinstance(created, Seated), created
        self.game_type, self.game_id = game_type, created.record.game_id
        self.tokens = [created.token]
        for seat in range(1, players):
            joined = self.app.join_game(JoinGame(self.game_id, f"Seat {seat}"))
            assert isinstance(joined, Seated), joined
            self.tokens.append(joined.token)
        started = self.app.start_game(SeatRequest(self.game_id, Call(self.tokens[0])))
        assert isinstance(started, Applied), started

    def record(self) -> GameRecord:
        """Returns the game as stored now."""
        record = self.app.get_game(self.game_id)
        assert record is not None
        return record

    def play(self, seat: int, command: Any) -> Applied | Rejected:
        """Submits ``command`` with ``seat``'s token."""
        sent = SentMove(self.game_type, command)
        return self.app.submit_move(SubmitMove(self.game_id, sent, self.call(seat)))

    def undo(self, seat: int) -> Applied | Rejected:
        """Asks to take back ``seat``'s last move alone."""
        return self.app.undo_move(SeatRequest(self.game_id, self.call(seat)))

    def propose(self, seat: int) -> Applied | Rejected:
        """Proposes taking back ``seat``'s last move."""
        return self.app.propose_undo(SeatRequest(self.game_id, self.call(seat)))

    def accept(self, seat: int, proposal_id: int) -> Applied | Rejected:
        """Accepts the open proposal for ``seat``."""
        answer = RespondUndo(self.game_id, proposal_id, True, self.call(seat))
        return self.app.respond_undo(answer)

    def call(self, seat: int) -> Call:
        """Returns a call with ``seat``'s token."""
        return Call(self.tokens[seat])

    def finish(self, choose: random.Random) -> None:
        """Plays random legal moves until the game is over."""
        rules = self.record().rules
        while (state := self.record().table.game) is not None and rules.to_move(state):
            seat = choose.choice(rules.to_move(state))
            command = pick(tuple(rules.legal_moves(state, seat)), choose)
            assert isinstance(self.play(seat, command), Applied)

    def refuses(self, request: Callable[[], Applied | Rejected]) -> Rejected:
        """Asserts that ``request`` is refused, says why and stores nothing."""
        revision = self.record().revision
        events = self.app.recorded_events(self.game_id)
        refused = check_refusal(request())
        assert self.record().revision == revision
        assert self.app.recorded_events(self.game_id) == events
        return refused
