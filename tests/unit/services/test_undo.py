"""Undo through the use cases, on Qwirkle: takebacks never re-roll luck."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

import pytest

from domain.common.decision import Rejected
from domain.common.undo import SELF_UNDO_LIMIT, MovesUndone, UndoProposed
from domain.games.fool import FoolConfig, RoundScored
from domain.games.hues_and_cues import GiveFirstCue, HuesAndCuesConfig
from domain.games.qwirkle import QwirkleConfig, TilesDrawn
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RespondUndo,
    SeatRequest,
    SubmitMove,
)
from services.games import Applied, GamesApp, Seated
from tests.playing import Clock, sent_move

SEED = bytes(range(32))


@pytest.fixture
def app(clocked_app: GamesApp) -> GamesApp:
    """Returns an application on the in-memory store with the test's clock."""
    return clocked_app


def _game(app: GamesApp) -> tuple[Seated, list[str]]:
    ana = app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ana", SEED))
    assert isinstance(ana, Seated)
    ben = app.join_game(JoinGame(ana.record.game_id, "Ben"))
    assert isinstance(ben, Seated)
    assert isinstance(
        app.start_game(SeatRequest(ana.record.game_id, Call(ana.token))), Applied
    )
    return ana, [ana.token, ben.token]


def _first_move(app: GamesApp, ana: Seated, tokens: list[str]) -> tuple[int, Applied]:
    record = app.get_game(ana.record.game_id)
    assert record is not None
    (seat,) = record.rules.to_move(record.table.game)
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    played = app.submit_move(
        SubmitMove(record.game_id, sent_move(move), Call(tokens[seat]))
    )
    assert isinstance(played, Applied)
    return seat, played


def test_a_move_that_drew_tiles_cannot_be_taken_back_alone(app: GamesApp) -> None:
    ana, tokens = _game(app)
    seat, _ = _first_move(app, ana, tokens)
    refused = app.undo_move(SeatRequest(ana.record.game_id, Call(tokens[seat])))
    assert isinstance(refused, Rejected)
    assert refused.reason == "MOVE_NOT_UNDOABLE"


def test_a_takeback_restores_the_game_and_the_same_move_draws_the_same_tiles(
    app: GamesApp,
) -> None:
    ana, tokens = _game(app)
    game_id = ana.record.game_id
    before = app.get_game(game_id)
    assert before is not None
    seat, played = _first_move(app, ana, tokens)
    drawn = [e.event for e in played.events if isinstance(e.event, TilesDrawn)]

    proposed = app.propose_undo(SeatRequest(game_id, Call(tokens[seat])))
    assert isinstance(proposed, Applied)
    (event,) = (e.event for e in proposed.events)
    assert isinstance(event, UndoProposed)
    answer = app.respond_undo(
        RespondUndo(
            game_id, event.proposal_id, accept=True, call=Call(tokens[1 - seat])
        )
    )
    assert isinstance(answer, Applied)
    assert any(isinstance(e.event, MovesUndone) for e in answer.events)
    assert answer.record.table.game == before.table.game

    record = app.get_game(game_id)
    assert record is not None
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    again = app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat])))
    assert isinstance(again, Applied)
    assert [e.event for e in again.events if isinstance(e.event, TilesDrawn)] == drawn
    history = app.recorded_events(game_id)
    assert len(history) == again.record.revision  # nothing was deleted
    assert sum(isinstance(e.event, TilesDrawn) for e in history) >= 2


def test_a_declined_takeback_makes_the_proposer_wait(
    app: GamesApp, clock: Clock
) -> None:
    ana, tokens = _game(app)
    game_id = ana.record.game_id
    seat, _ = _first_move(app, ana, tokens)
    proposed = app.propose_undo(SeatRequest(game_id, Call(tokens[seat])))
    assert isinstance(proposed, Applied)
    proposal = proposed.record.table.undo.proposal
    assert proposal is not None
    declined = app.respond_undo(
        RespondUndo(
            game_id, proposal.proposal_id, accept=False, call=Call(tokens[1 - seat])
        )
    )
    assert isinstance(declined, Applied)
    too_soon = app.propose_undo(SeatRequest(game_id, Call(tokens[seat])))
    assert isinstance(too_soon, Rejected)
    assert too_soon.reason == "UNDO_BACKOFF"
    clock.now += timedelta(seconds=30)
    assert isinstance(
        app.propose_undo(SeatRequest(game_id, Call(tokens[seat]))), Applied
    )


def test_a_stale_expected_revision_aborts_a_proposal(app: GamesApp) -> None:
    ana, tokens = _game(app)
    seat, played = _first_move(app, ana, tokens)
    stale = Call(tokens[seat], expected_revision=played.record.revision - 1)
    refused = app.propose_undo(SeatRequest(ana.record.game_id, stale))
    assert isinstance(refused, Rejected)
    assert refused.reason == "REVISION_MISMATCH"


def _seated(
    app: GamesApp, game_type: str, config: object, players: int
) -> tuple[UUID, list[str]]:
    first = app.create_game(CreateGame(game_type, config, players, "Ana", SEED))
    assert isinstance(first, Seated)
    game_id = first.record.game_id
    tokens = [first.token]
    for name in ("Ben", "Cy", "Di")[: players - 1]:
        joined = app.join_game(JoinGame(game_id, name))
        assert isinstance(joined, Seated)
        tokens.append(joined.token)
    assert isinstance(app.start_game(SeatRequest(game_id, Call(first.token))), Applied)
    return game_id, tokens


def _give_first_cue(app: GamesApp, game_id: UUID, token: str) -> Applied | Rejected:
    """Gives seat 0's first legal cue."""
    record = app.get_game(game_id)
    assert record is not None
    moves = record.rules.legal_moves(record.table.game, 0)
    cue = next(m for m in moves if isinstance(m, GiveFirstCue))
    return app.submit_move(SubmitMove(game_id, sent_move(cue), Call(token)))


def test_a_loop_of_cue_and_undo_alone_is_refused_after_the_limit(
    app: GamesApp,
) -> None:
    config = HuesAndCuesConfig(first_cue_giver=0, free_choice_variant=True)
    game_id, tokens = _seated(app, "hues_and_cues", config, 3)
    for _ in range(SELF_UNDO_LIMIT):
        assert isinstance(_give_first_cue(app, game_id, tokens[0]), Applied)
        assert isinstance(app.undo_move(SeatRequest(game_id, Call(tokens[0]))), Applied)
    played = _give_first_cue(app, game_id, tokens[0])
    assert isinstance(played, Applied)
    refused = app.undo_move(SeatRequest(game_id, Call(tokens[0])))
    assert isinstance(refused, Rejected)
    assert refused.reason == "SELF_UNDO_LIMIT_REACHED"
    assert len(app.recorded_events(game_id)) == played.record.revision


def _to_round_end(app: GamesApp, game_id: UUID, tokens: list[str]) -> int:
    """Plays legal cards until a round ends; returns the seat that ended it."""
    while True:
        record = app.get_game(game_id)
        assert record is not None
        (seat,) = record.rules.to_move(record.table.game)
        move = next(iter(record.rules.legal_moves(record.table.game, seat)))
        played = app.submit_move(
            SubmitMove(game_id, sent_move(move), Call(tokens[seat]))
        )
        assert isinstance(played, Applied), played
        if any(isinstance(item.event, RoundScored) for item in played.events):
            return seat


def test_a_takeback_across_a_fool_round_end_that_showed_every_hand_is_refused(
    app: GamesApp,
) -> None:
    game_id, tokens = _seated(app, "fool", FoolConfig(), 4)
    seat = _to_round_end(app, game_id, tokens)
    revision = len(app.recorded_events(game_id))
    refused = app.propose_undo(SeatRequest(game_id, Call(tokens[seat])))
    assert isinstance(refused, Rejected)
    assert refused.reason == "TAKEBACK_CROSSES_REVEAL"
    assert len(app.recorded_events(game_id)) == revision
