"""Turn timers through the use cases: the clock fires, the bot takes the turn."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.common.decision import Rejected
from domain.common.table_state import TableStatus, TurnTimedOut, TurnTimerStarted
from domain.common.undo import MovePlayed
from domain.games.qwirkle import QwirkleConfig
from services.audit import export_game, verify
from services.games import Applied, GamesApp, Seated
from services.turns import TurnClock
from tests.playing import Clock, always

SEED = bytes(range(32))
LIMIT = 30  # seconds a turn may take


@pytest.fixture
def clock() -> Clock:
    """Returns a hand-moved clock."""
    return Clock()


@pytest.fixture
def app(clock: Clock) -> GamesApp:
    """Returns an application on the in-memory store with the test's clock."""
    return GamesApp(
        {"PERSISTENCE_MODULE": "eventsourcing.popo"},
        allow_client_seed=True,
        clock=clock,
    )


def start(app: GamesApp, turn_seconds: int = LIMIT) -> tuple[Seated, list[str]]:
    ana = app.create_game(
        "qwirkle", QwirkleConfig(), 0, "Ana", SEED, turn_seconds=turn_seconds
    )
    assert isinstance(ana, Seated)
    ben = app.join_game(ana.record.game_id, "Ben")
    assert isinstance(ben, Seated)
    assert isinstance(app.start_game(ana.record.game_id, ana.token), Applied)
    return ana, [ana.token, ben.token]


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
    refused = app.time_out(ana.record.game_id, record.revision)
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
        app.submit_move(ana.record.game_id, tokens[seat], always(move)), Applied
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


@pytest.mark.parametrize("seconds", [-1, 7 * 24 * 3600 + 1])
def test_a_limit_out_of_range_is_refused(app: GamesApp, seconds: int) -> None:
    refused = app.create_game(
        "qwirkle", QwirkleConfig(), 0, "Ana", SEED, turn_seconds=seconds
    )
    assert isinstance(refused, Rejected)
    assert refused.reason == "INVALID_TURN_TIME_LIMIT"


def test_a_game_timed_out_to_its_end_finishes_and_its_record_verifies(
    app: GamesApp, clock: Clock
) -> None:
    ana, _ = start(app)
    turns = TurnClock(app)
    while True:
        record = app.get_game(ana.record.game_id)
        assert record is not None
        if record.table.status is TableStatus.FINISHED:
            break
        clock.advance(LIMIT)
        assert len(turns.tick()) == 1
    assert record.table.turn_deadline is None
    assert turns.tick() == []
    exported = export_game(app, ana.record.game_id)
    assert isinstance(exported, str)
    report = verify(exported)
    assert report.ok, report.render()
