"""Turn timers through the use cases: the clock fires, the bot takes the turn."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

import pytest

from domain.common.decision import Rejected
from domain.common.table_state import (
    MISSED_TURNS_GONE,
    Table,
    TableStatus,
    TurnTimedOut,
    TurnTimerStarted,
)
from domain.common.undo import MovePlayed
from domain.games.gnoming_a_round import GnomingARoundConfig
from domain.games.hues_and_cues import HuesAndCuesConfig
from domain.games.qwirkle import QwirkleConfig
from services.audit import export_game, verify
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RespondUndo,
    SeatRequest,
    SubmitMove,
)
from services.games import Applied, GamesApp, Seated
from services.signing import SigningKey
from services.turns import TurnClock
from tests.playing import Clock, sent_move

SEED = bytes(range(32))
LIMIT = 30  # seconds a turn may take


@pytest.fixture
def app(clocked_app: GamesApp) -> GamesApp:
    """Returns an application on the in-memory store with the test's clock."""
    return clocked_app


def start(app: GamesApp, turn_seconds: int = LIMIT) -> tuple[Seated, list[str]]:
    ana = app.create_game(
        CreateGame(
            "qwirkle", QwirkleConfig(), 0, "Ana", SEED, turn_seconds=turn_seconds
        )
    )
    assert isinstance(ana, Seated)
    ben = app.join_game(JoinGame(ana.record.game_id, "Ben"))
    assert isinstance(ben, Seated)
    assert isinstance(
        app.start_game(SeatRequest(ana.record.game_id, Call(ana.token))), Applied
    )
    return ana, [ana.token, ben.token]


def table_of(app: GamesApp, game_id: UUID) -> Table:
    record = app.get_game(game_id)
    assert record is not None
    return record.table


def to_move(app: GamesApp, ana: Seated) -> int:
    record = app.get_game(ana.record.game_id)
    assert record is not None
    (seat,) = record.rules.to_move(record.table.game)
    return seat


def test_starting_a_timed_game_starts_the_timer(app: GamesApp, clock: Clock) -> None:
    ana, _ = start(app)
    record = app.get_game(ana.record.game_id)
    assert record is not None
    assert record.table.turn_deadline == clock.now + timedelta(seconds=LIMIT)
    events = app.recorded_events(ana.record.game_id)
    assert isinstance(events[-1].event, TurnTimerStarted)


def test_nothing_times_out_before_the_deadline(app: GamesApp, clock: Clock) -> None:
    ana, _ = start(app)
    turns = TurnClock(app)
    clock.advance(LIMIT - 1)
    assert turns.tick() == []
    assert turns.pending() == 1
    record = app.get_game(ana.record.game_id)
    assert record is not None
    assert record.table.turn_deadline is not None
    refused = app.time_out(ana.record.game_id, record.table.turn_deadline)
    assert isinstance(refused, Rejected)
    assert refused.reason == "TURN_NOT_EXPIRED"


def test_after_the_deadline_the_bot_plays_for_the_seat_to_move(
    app: GamesApp, clock: Clock
) -> None:
    ana, _ = start(app)
    seat = to_move(app, ana)
    turns = TurnClock(app)
    clock.advance(LIMIT)
    (applied,) = turns.tick()
    kinds = [type(item.event) for item in applied.events]
    assert kinds[:2] == [TurnTimedOut, MovePlayed]
    assert kinds[-1] is TurnTimerStarted
    assert applied.events[0].event == TurnTimedOut(seat)
    played = applied.events[1].event
    assert isinstance(played, MovePlayed)
    assert (played.seat, played.undoable) == (seat, False)
    assert {item.actor for item in applied.events} == {seat}
    assert applied.record.move_count == 1
    # The next seat's timer runs from the timeout.
    assert applied.record.table.turn_deadline == clock.now + timedelta(seconds=LIMIT)
    assert to_move(app, ana) != seat


def test_a_move_in_time_restarts_the_timer_and_the_old_one_never_fires(
    app: GamesApp, clock: Clock
) -> None:
    ana, tokens = start(app)
    turns = TurnClock(app)
    turns.tick()
    clock.advance(LIMIT - 5)
    record = app.get_game(ana.record.game_id)
    assert record is not None
    seat = to_move(app, ana)
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    assert isinstance(
        app.submit_move(
            SubmitMove(ana.record.game_id, sent_move(move), Call(tokens[seat]))
        ),
        Applied,
    )
    clock.advance(10)  # past the first deadline, not the second
    assert turns.tick() == []
    clock.advance(LIMIT)
    (applied,) = turns.tick()
    assert applied.events[0].event == TurnTimedOut(1 - seat)


def test_a_clock_started_later_finds_the_timers_already_running(
    app: GamesApp, clock: Clock
) -> None:
    ana, _ = start(app)
    clock.advance(LIMIT + 1)
    (applied,) = TurnClock(app).tick()  # a new process, after a restart
    assert applied.record.game_id == ana.record.game_id


def test_a_timeout_fired_twice_is_applied_once(app: GamesApp, clock: Clock) -> None:
    start(app)
    first, second = TurnClock(app), TurnClock(app)  # two server processes
    first.tick()
    second.tick()
    clock.advance(LIMIT)
    assert len(first.tick()) == 1
    assert second.tick() == []


def test_games_without_a_limit_have_no_timer(app: GamesApp, clock: Clock) -> None:
    ana, _ = start(app, turn_seconds=0)
    record = app.get_game(ana.record.game_id)
    assert record is not None
    assert record.table.turn_deadline is None
    clock.advance(10**6)
    assert TurnClock(app).tick() == []


@pytest.mark.parametrize("seconds", [-1, 1, 5, 9, 7 * 24 * 3600 + 1])
def test_a_limit_out_of_range_is_refused(app: GamesApp, seconds: int) -> None:
    refused = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), 0, "Ana", SEED, turn_seconds=seconds)
    )
    assert isinstance(refused, Rejected)
    assert refused.reason == "INVALID_TURN_TIME_LIMIT"


def test_a_game_nobody_plays_is_abandoned_after_three_missed_turns_each(
    app: GamesApp, clock: Clock
) -> None:
    ana, _ = start(app)
    turns = TurnClock(app)
    timeouts = 0
    while True:
        record = app.get_game(ana.record.game_id)
        assert record is not None
        if record.table.status is TableStatus.FINISHED:
            break
        clock.advance(LIMIT)
        assert len(turns.tick()) == 1
        timeouts += 1
    # Each of the two seats missed MISSED_TURNS_GONE turns in a row (T24).
    assert timeouts == 2 * MISSED_TURNS_GONE
    final = record.table.final
    assert final is not None
    assert final.abandoned
    assert final.resigned == ()
    outcome = record.rules.outcome(record.table.game)
    assert final.scores == outcome.scores
    assert final.winners == record.rules.leaders(record.table.game, (0, 1))
    assert record.table.turn_deadline is None
    assert turns.tick() == []
    key = SigningKey.generate()
    exported = export_game(app, ana.record.game_id, key)
    assert isinstance(exported, str)
    report = verify(exported, public_keys=[key.public])
    assert report.ok, report.render()


def test_a_seat_that_moves_between_timeouts_keeps_the_game_going(
    app: GamesApp, clock: Clock
) -> None:
    ana, tokens = start(app)
    game_id = ana.record.game_id
    turns = TurnClock(app)
    for _ in range(3 * MISSED_TURNS_GONE):
        seat = to_move(app, ana)
        if seat == 0:  # Ana plays her own turns; Ben lets every one time out
            suggested = app.suggest_move(game_id, tokens[0])
            assert not isinstance(suggested, Rejected)
            _, move = suggested
            played = app.submit_move(
                SubmitMove(game_id, sent_move(move), Call(tokens[0]))
            )
            assert isinstance(played, Applied)
        else:
            clock.advance(LIMIT)
            assert len(turns.tick()) == 1
    table = table_of(app, game_id)
    assert table.status is TableStatus.IN_PROGRESS
    assert table.missed[1] >= MISSED_TURNS_GONE
    assert table.missed[0] == 0


def test_a_declined_takeback_leaves_the_timer_running_and_it_still_fires(
    app: GamesApp, clock: Clock
) -> None:
    ana, tokens = start(app)
    turns = TurnClock(app)
    game_id = ana.record.game_id
    seat = to_move(app, ana)
    record = app.get_game(game_id)
    assert record is not None
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    assert isinstance(
        app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat]))),
        Applied,
    )
    deadline = table_of(app, game_id).turn_deadline
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
    assert declined.record.table.turn_deadline == deadline  # not restarted
    clock.advance(LIMIT)
    (applied,) = turns.tick()
    assert applied.events[0].event == TurnTimedOut(1 - seat)


def test_taking_ones_move_back_alone_restores_the_deadline_it_was_made_under(
    app: GamesApp, clock: Clock
) -> None:
    giver = app.create_game(
        CreateGame(
            "hues_and_cues", HuesAndCuesConfig(), 3, "Ana", SEED, turn_seconds=LIMIT
        )
    )
    assert isinstance(giver, Seated)
    game_id = giver.record.game_id
    tokens = [giver.token]
    for name in ("Ben", "Cy"):
        joined = app.join_game(JoinGame(game_id, name))
        assert isinstance(joined, Seated)
        tokens.append(joined.token)
    assert isinstance(app.start_game(SeatRequest(game_id, Call(giver.token))), Applied)
    record = app.get_game(game_id)
    assert record is not None
    (seat,) = record.rules.to_move(record.table.game)
    before = record.table.turn_deadline
    cue = next(iter(record.rules.legal_moves(record.table.game, seat)))
    clock.advance(LIMIT - 2)
    played = app.submit_move(SubmitMove(game_id, sent_move(cue), Call(tokens[seat])))
    assert isinstance(played, Applied)
    assert played.record.table.turn_deadline == clock.now + timedelta(seconds=LIMIT)
    undone = app.undo_move(
        SeatRequest(game_id, Call(tokens[seat]))
    )  # a cue is undoable alone
    assert isinstance(undone, Applied), undone
    assert undone.record.table.turn_deadline == before  # 2 s left, not 30


def test_where_several_seats_act_at_once_each_late_one_is_timed_out(
    app: GamesApp, clock: Clock
) -> None:
    first = app.create_game(
        CreateGame(
            "gnoming_a_round", GnomingARoundConfig(), 3, "Ana", SEED, turn_seconds=LIMIT
        )
    )
    assert isinstance(first, Seated)
    game_id = first.record.game_id
    for name in ("Ben", "Cy"):
        assert isinstance(app.join_game(JoinGame(game_id, name)), Seated)
    assert isinstance(app.start_game(SeatRequest(game_id, Call(first.token))), Applied)
    record = app.get_game(game_id)
    assert record is not None
    assert set(record.rules.to_move(record.table.game)) == {0, 1, 2}  # first flips
    deadline = record.table.turn_deadline
    turns = TurnClock(app)
    clock.advance(LIMIT)
    late = []
    for _ in range(3):
        (applied,) = turns.tick()
        late.append(applied.events[0].event.seat)
        if len(late) < 3:  # the others keep the deadline that passed
            assert applied.record.table.turn_deadline == deadline
    assert sorted(late) == [0, 1, 2]
    restarted = table_of(app, game_id).turn_deadline
    assert restarted is not None
    assert restarted > clock.now


def test_a_restarted_clock_skips_the_timers_of_finished_games(
    app: GamesApp, clock: Clock
) -> None:
    ana, _ = start(app)
    turns = TurnClock(app)
    while table_of(app, ana.record.game_id).status is not TableStatus.FINISHED:
        clock.advance(LIMIT)
        turns.tick()
    fresh = TurnClock(app)
    fresh.tick()
    assert fresh.pending() == 0
