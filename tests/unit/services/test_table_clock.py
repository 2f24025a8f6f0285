"""The table clock through the use cases: waiting tables expire, resigned seats move."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import OperationalError

from domain.common.decision import Rejected
from domain.common.table_state import (
    ClosedBecause,
    PlayerResigned,
    ResignedSeatPlayed,
    TableClosed,
    TableStatus,
)
from domain.common.undo import MovePlayed
from domain.games.qwirkle import QwirkleConfig
from services import table_clock
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp, Seated
from services.records import GameRecord, RecordedEvent
from services.table_clock import TableClock
from tests.helpers import SEED
from tests.playing import TABLE_WAIT as WAIT
from tests.playing import Clock, make_app, sent_move

A_DECADE = 10 * 365 * 24 * 3600.0  # seconds
WAIT_FOR_BOT = 5.0  # seconds a test waits for something that takes milliseconds
STOPPING = 1.0  # seconds a cancelled clock may take to stop (it takes milliseconds)


@pytest.fixture
def app(clock: Clock) -> GamesApp:
    """Returns an application whose tables wait ``WAIT`` for players."""
    return make_app(clock)


def open_table(app: GamesApp, players: int = 0) -> Seated:
    seated = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), players, "Ana", SEED)
    )
    assert isinstance(seated, Seated), seated
    return seated


def start(app: GamesApp, players: int = 2) -> tuple[UUID, list[str]]:
    """Opens, fills and starts a Qwirkle table; returns its id and seat tokens."""
    host = open_table(app, players)
    game_id = host.record.game_id
    tokens = [host.token]
    for name in ["Ben", "Cy", "Di"][: players - 1]:
        joined = app.join_game(JoinGame(game_id, name))
        assert isinstance(joined, Seated), joined
        tokens.append(joined.token)
    assert isinstance(app.start_game(SeatRequest(game_id, Call(host.token))), Applied)
    return game_id, tokens


def game(app: GamesApp, game_id: UUID) -> GameRecord:
    record = app.get_game(game_id)
    assert record is not None
    return record


def to_move(app: GamesApp, game_id: UUID) -> tuple[int, ...]:
    record = game(app, game_id)
    return tuple(record.rules.to_move(record.table.game))


def play_first_legal_move(app: GamesApp, game_id: UUID, tokens: list[str]) -> int:
    """Plays a legal move for the (human) seat to move; returns that seat."""
    record = game(app, game_id)
    (seat,) = record.rules.to_move(record.table.game)
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    assert isinstance(
        app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat]))),
        Applied,
    )
    return seat


def closings(app: GamesApp, game_id: UUID) -> list[RecordedEvent]:
    return [
        item
        for item in app.recorded_events(game_id)
        if isinstance(item.event, TableClosed)
    ]


def since(app: GamesApp, game_id: UUID, revision: int) -> list[RecordedEvent]:
    return app.recorded_events(game_id, gt=revision)


def bot_moves(events: list[RecordedEvent]) -> list[int]:
    """Returns the seats the bot moved for among ``events``, in order."""
    return [e.event.seat for e in events if isinstance(e.event, ResignedSeatPlayed)]


# --- Waiting tables expire ---


def closes_after_wait(app: GamesApp, clock: Clock, game_id: UUID) -> TableClock:
    """Checks that a new clock closes the table after ``WAIT``, not a second before."""
    tables = TableClock(app)
    assert tables.tick() == 0
    assert tables.waiting() == 1
    clock.advance(WAIT.total_seconds() - 1)
    assert tables.tick() == 0
    assert game(app, game_id).table.status is TableStatus.WAITING_FOR_PLAYERS
    clock.advance(1)
    assert tables.tick() == 1
    return tables


def test_a_table_closes_at_its_expiry_and_not_a_second_before(
    app: GamesApp, clock: Clock
) -> None:
    ana = open_table(app)
    game_id = ana.record.game_id
    expires_at = clock.now + WAIT
    assert ana.record.table.expires_at == expires_at
    tables = closes_after_wait(app, clock, game_id)
    record = game(app, game_id)
    assert record.table.status is TableStatus.CLOSED
    assert record.table.closed is ClosedBecause.EXPIRED
    (closed,) = closings(app, game_id)
    assert closed.event == TableClosed(ClosedBecause.EXPIRED)
    assert closed.timestamp == expires_at
    assert closed.actor is None  # the server closed it, no seat
    assert tables.waiting() == 0
    clock.advance(A_DECADE)
    assert tables.tick() == 0
    assert len(closings(app, game_id)) == 1


def test_a_closed_table_takes_no_more_players(app: GamesApp, clock: Clock) -> None:
    ana = open_table(app)
    tables = TableClock(app)
    clock.advance(WAIT.total_seconds())
    assert tables.tick() == 1
    refused = app.join_game(JoinGame(ana.record.game_id, "Ben"))
    assert isinstance(refused, Rejected)
    assert refused.reason == "TABLE_CLOSED"


@pytest.mark.parametrize("learned_first", [True, False])
def test_a_started_table_is_never_closed(
    app: GamesApp, clock: Clock, *, learned_first: bool
) -> None:
    tables = TableClock(app)
    ana = open_table(app)
    game_id = ana.record.game_id
    if learned_first:
        assert tables.tick() == 0
        assert tables.waiting() == 1
    assert isinstance(app.join_game(JoinGame(game_id, "Ben")), Seated)
    assert isinstance(app.start_game(SeatRequest(game_id, Call(ana.token))), Applied)
    for _ in range(3):
        clock.advance(A_DECADE)
        assert tables.tick() == 0
    assert tables.waiting() == 0
    assert game(app, game_id).table.status is TableStatus.IN_PROGRESS
    assert closings(app, game_id) == []


@pytest.mark.parametrize("change", ["started", "emptied"])
def test_a_table_that_started_or_closed_before_its_expiry_is_dropped_quietly(
    app: GamesApp, clock: Clock, caplog: pytest.LogCaptureFixture, change: str
) -> None:
    ana = open_table(app)
    game_id = ana.record.game_id
    tables = TableClock(app)
    assert tables.tick() == 0  # it learns the table, and when it expires
    assert tables.waiting() == 1
    if change == "started":
        assert isinstance(app.join_game(JoinGame(game_id, "Ben")), Seated)
        assert isinstance(
            app.start_game(SeatRequest(game_id, Call(ana.token))), Applied
        )
    else:  # its only player leaves: it closes as empty
        assert isinstance(
            app.leave_game(SeatRequest(game_id, Call(ana.token))), Applied
        )
    revision = game(app, game_id).revision
    clock.advance(WAIT.total_seconds())
    with caplog.at_level(logging.INFO, logger=table_clock.__name__):
        assert tables.tick() == 0
    assert tables.waiting() == 0
    assert game(app, game_id).revision == revision
    assert [r for r in caplog.records if r.levelno >= logging.INFO] == []
    closed = [item.event for item in closings(app, game_id)]
    assert closed == ([] if change == "started" else [TableClosed(ClosedBecause.EMPTY)])


def test_a_legacy_table_closes_its_wait_after_it_was_opened(clock: Clock) -> None:
    app = make_app(clock, table_wait=None)  # a server from before tables expired
    ana = open_table(app)
    game_id = ana.record.game_id
    opened = clock.now
    assert ana.record.table.expires_at is None
    app.table_wait = WAIT  # the server now makes tables expire
    tables = closes_after_wait(app, clock, game_id)
    (closed,) = closings(app, game_id)
    assert closed.event == TableClosed(ClosedBecause.EXPIRED)
    assert closed.timestamp == opened + WAIT
    assert tables.waiting() == 0


def test_with_no_wait_configured_a_legacy_table_never_closes(clock: Clock) -> None:
    app = make_app(clock, table_wait=None)
    ana = open_table(app)
    game_id = ana.record.game_id
    tables = TableClock(app)
    assert tables.tick() == 0
    assert tables.waiting() == 0
    for _ in range(3):
        clock.advance(A_DECADE)
        assert tables.tick() == 0
    assert game(app, game_id).table.status is TableStatus.WAITING_FOR_PLAYERS
    refused = app.expire(game_id)
    assert isinstance(refused, Rejected)
    assert refused.reason == "TABLE_NOT_EXPIRED"
    assert isinstance(app.join_game(JoinGame(game_id, "Ben")), Seated)


@pytest.mark.parametrize("clock_first", [True, False])
def test_a_clock_in_another_process_closes_a_table_it_did_not_open(
    processes: tuple[GamesApp, GamesApp], clock: Clock, *, clock_first: bool
) -> None:
    first, second = processes
    tables = TableClock(second)
    if clock_first:  # it already read the (empty) log: it learns from the rest
        assert tables.tick() == 0
    ana = open_table(first)
    game_id = ana.record.game_id
    assert tables.tick() == 0
    assert tables.waiting() == 1
    clock.advance(WAIT.total_seconds() - 1)
    assert tables.tick() == 0
    clock.advance(1)
    assert tables.tick() == 1
    record = game(first, game_id)  # the process that opened it sees it closed
    assert record.table.status is TableStatus.CLOSED
    assert record.table.closed is ClosedBecause.EXPIRED
    refused = first.join_game(JoinGame(game_id, "Ben"))
    assert isinstance(refused, Rejected)
    assert refused.reason == "TABLE_CLOSED"


def test_a_clock_in_another_process_closes_a_legacy_table_after_its_wait(
    clock: Clock, tmp_path: Path
) -> None:
    database = tmp_path / "games.sqlite3"
    old = make_app(clock, table_wait=None, database=database)  # before expiry
    new = make_app(clock, table_wait=WAIT, database=database)
    try:
        ana = open_table(old)
        assert ana.record.table.expires_at is None
        tables = TableClock(new)
        clock.advance(WAIT.total_seconds() - 1)
        assert tables.tick() == 0
        clock.advance(1)
        assert tables.tick() == 1
        assert game(old, ana.record.game_id).table.closed is ClosedBecause.EXPIRED
    finally:
        old.close()
        new.close()


def test_a_clock_in_another_process_drops_a_table_started_there(
    processes: tuple[GamesApp, GamesApp], clock: Clock
) -> None:
    first, second = processes
    ana = open_table(first)
    game_id = ana.record.game_id
    tables = TableClock(second)
    assert tables.tick() == 0
    assert tables.waiting() == 1
    assert isinstance(first.join_game(JoinGame(game_id, "Ben")), Seated)
    assert isinstance(first.start_game(SeatRequest(game_id, Call(ana.token))), Applied)
    clock.advance(WAIT.total_seconds())
    assert tables.tick() == 0
    assert tables.waiting() == 0
    assert game(first, game_id).table.status is TableStatus.IN_PROGRESS


def store_down(game_id: UUID) -> Applied | Rejected:
    """Stands in for a use case while the store is down."""
    del game_id
    msg = "the store is down"
    raise OperationalError(msg)


def test_a_store_failure_while_closing_keeps_every_table_that_was_due(
    app: GamesApp, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_ids = [open_table(app).record.game_id for _ in range(3)]
    tables = TableClock(app)
    assert tables.tick() == 0
    clock.advance(WAIT.total_seconds())
    real_expire = app.expire
    monkeypatch.setattr(app, "expire", store_down)
    with pytest.raises(OperationalError):
        tables.tick()
    monkeypatch.setattr(app, "expire", real_expire)
    assert tables.tick() == 3  # the store is back: every table that was due
    statuses = [game(app, game_id).table.status for game_id in game_ids]
    assert statuses == [TableStatus.CLOSED] * 3


# --- Resigned seats are played by the bot ---


def test_the_bot_moves_for_the_resigned_seat_and_never_for_the_other(
    app: GamesApp, clock: Clock
) -> None:
    game_id, tokens = start(app)
    (resigned,) = to_move(app, game_id)  # it resigns on its turn: the bot must move
    human = 1 - resigned
    tables = TableClock(app)
    assert tables.tick() == 0
    assert isinstance(app.resign(SeatRequest(game_id, Call(tokens[resigned]))), Applied)
    human_moves = 0
    for _ in range(4):
        revision = game(app, game_id).revision
        stored = tables.tick()
        events = since(app, game_id, revision)
        assert stored == len(events) > 0
        assert {item.actor for item in events} == {resigned}
        assert bot_moves(events) == [resigned]
        played = [e.event.seat for e in events if isinstance(e.event, MovePlayed)]
        assert played == [resigned]
        assert to_move(app, game_id) == (human,)
        clock.advance(A_DECADE)  # however long the human thinks
        assert tables.tick() == 0
        assert play_first_legal_move(app, game_id, tokens) == human
        human_moves += 1
    moved = [
        (item.actor, item.event.seat)
        for item in app.recorded_events(game_id)
        if isinstance(item.event, MovePlayed)
    ]
    assert moved.count((human, human)) == human_moves
    assert moved.count((resigned, resigned)) == 4
    assert len(moved) == human_moves + 4  # no move by one seat credited to another


def test_the_bot_waits_while_the_seat_that_resigned_is_not_to_move(
    app: GamesApp,
) -> None:
    game_id, tokens = start(app)
    (human,) = to_move(app, game_id)
    resigned = 1 - human
    tables = TableClock(app)
    assert isinstance(app.resign(SeatRequest(game_id, Call(tokens[resigned]))), Applied)
    revision = game(app, game_id).revision
    assert tables.tick() == 0
    assert game(app, game_id).revision == revision
    assert play_first_legal_move(app, game_id, tokens) == human
    revision = game(app, game_id).revision
    assert tables.tick() > 0
    assert bot_moves(since(app, game_id, revision)) == [resigned]
    assert to_move(app, game_id) == (human,)


def test_the_resigned_seat_itself_can_no_longer_move(app: GamesApp) -> None:
    game_id, tokens = start(app)
    (seat,) = to_move(app, game_id)
    assert isinstance(app.resign(SeatRequest(game_id, Call(tokens[seat]))), Applied)
    record = game(app, game_id)
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    refused = app.submit_move(SubmitMove(game_id, sent_move(move), Call(tokens[seat])))
    assert isinstance(refused, Rejected)
    assert refused.reason == "SEAT_RESIGNED"


def test_a_clock_in_another_process_moves_for_a_seat_resigned_there(
    processes: tuple[GamesApp, GamesApp],
) -> None:
    first, second = processes
    game_id, tokens = start(first)
    (resigned,) = to_move(first, game_id)
    tables = TableClock(second)
    assert tables.tick() == 0
    assert isinstance(
        first.resign(SeatRequest(game_id, Call(tokens[resigned]))), Applied
    )
    revision = game(first, game_id).revision
    assert tables.tick() > 0
    events = since(first, game_id, revision)
    assert bot_moves(events) == [resigned]
    assert {item.actor for item in events} == {resigned}
    # The human's move in the first process puts the resigned seat to move again.
    human = play_first_legal_move(first, game_id, tokens)
    assert human != resigned
    revision = game(first, game_id).revision
    assert tables.tick() > 0
    assert bot_moves(since(first, game_id, revision)) == [resigned]


def test_a_store_failure_while_the_bot_moves_keeps_the_game_due(
    app: GamesApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, tokens = start(app)
    (resigned,) = to_move(app, game_id)
    tables = TableClock(app)
    assert isinstance(app.resign(SeatRequest(game_id, Call(tokens[resigned]))), Applied)
    real_play = app.play_resigned
    monkeypatch.setattr(app, "play_resigned", store_down)
    with pytest.raises(OperationalError):
        tables.tick()
    monkeypatch.setattr(app, "play_resigned", real_play)
    revision = game(app, game_id).revision
    assert tables.tick() > 0  # the store is back: the move still due is played
    assert bot_moves(since(app, game_id, revision)) == [resigned]


def resign_all_but_the_seat_to_move(
    app: GamesApp, game_id: UUID, tokens: list[str]
) -> tuple[int, list[int]]:
    """Resigns every seat but the one to move; returns it and the others."""
    (human,) = to_move(app, game_id)
    others = [seat for seat in range(len(tokens)) if seat != human]
    for seat in others:
        assert isinstance(app.resign(SeatRequest(game_id, Call(tokens[seat]))), Applied)
    return human, others


def test_one_tick_plays_at_most_moves_per_tick_for_a_game(
    app: GamesApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_clock, "MOVES_PER_TICK", 2)
    game_id, tokens = start(app, players=4)
    human, resigned = resign_all_but_the_seat_to_move(app, game_id, tokens)
    tables = TableClock(app)
    assert tables.tick() == 0  # the human is to move
    assert play_first_legal_move(app, game_id, tokens) == human
    revision = game(app, game_id).revision
    tables.tick()
    assert bot_moves(since(app, game_id, revision)) == resigned[:2]
    revision = game(app, game_id).revision
    tables.tick()  # the rest is left for the next tick
    assert bot_moves(since(app, game_id, revision)) == resigned[2:]
    assert to_move(app, game_id) == (human,)
    assert tables.tick() == 0


def test_one_tick_plays_every_resigned_seat_to_move_within_the_bound(
    app: GamesApp,
) -> None:
    assert table_clock.MOVES_PER_TICK >= 3
    game_id, tokens = start(app, players=4)
    human, resigned = resign_all_but_the_seat_to_move(app, game_id, tokens)
    tables = TableClock(app)
    assert play_first_legal_move(app, game_id, tokens) == human
    revision = game(app, game_id).revision
    tables.tick()
    events = since(app, game_id, revision)
    assert bot_moves(events) == resigned
    assert human not in {item.actor for item in events}
    assert to_move(app, game_id) == (human,)


async def stop(running: asyncio.Task[None]) -> bool:
    """Cancels a running clock; returns whether the first cancellation ended it.

    A cancellation the clock lost is repeated, so that the test ends either way.
    """
    running.cancel()
    await asyncio.wait({running}, timeout=STOPPING)
    ended = running.done()
    while not running.done():
        running.cancel()
        await asyncio.wait({running}, timeout=STOPPING)
    return ended


async def test_a_running_clock_is_woken_at_once_by_a_move_of_this_process(
    app: GamesApp,
) -> None:
    game_id, tokens = start(app)
    (resigned,) = to_move(app, game_id)
    loop = asyncio.get_running_loop()
    played: asyncio.Queue[int] = asyncio.Queue()

    def watch(moved: UUID, events: tuple[RecordedEvent, ...]) -> None:
        for seat in bot_moves(list(events)):
            if moved == game_id:
                loop.call_soon_threadsafe(played.put_nowait, seat)

    app.appended.append(watch)
    tables = TableClock(app)
    running = asyncio.create_task(tables.run(period=3600))  # no tick by the period
    try:
        for _ in range(3):  # let it start waiting
            await asyncio.sleep(0)
        assert isinstance(
            app.resign(SeatRequest(game_id, Call(tokens[resigned]))), Applied
        )
        seat = await asyncio.wait_for(played.get(), WAIT_FOR_BOT)
        assert seat == resigned
        assert (await asyncio.to_thread(to_move, app, game_id)) != (resigned,)
        await asyncio.to_thread(play_first_legal_move, app, game_id, tokens)
        seat = await asyncio.wait_for(played.get(), WAIT_FOR_BOT)
        assert seat == resigned
    finally:
        await stop(running)


def test_a_finished_game_is_no_longer_played(app: GamesApp) -> None:
    game_id, tokens = start(app)
    tables = TableClock(app)
    for token in tokens:  # everyone resigns: play stops, abandoned
        assert isinstance(app.resign(SeatRequest(game_id, Call(token))), Applied)
    record = game(app, game_id)
    assert record.table.status is TableStatus.FINISHED
    assert tables.tick() == 0
    assert game(app, game_id).revision == record.revision
    resigned = [
        item.event.seat
        for item in app.recorded_events(game_id)
        if isinstance(item.event, PlayerResigned)
    ]
    assert sorted(resigned) == [0, 1]


async def test_a_clock_cancelled_just_after_a_wake_up_stops(clock: Clock) -> None:
    lost = []
    for turns in range(6):  # the event loop's turns between the wake-up and stop
        app = make_app(clock)
        game_id, tokens = start(app)
        (human,) = to_move(app, game_id)
        running = asyncio.create_task(TableClock(app).run(period=3600))
        for _ in range(3):  # let it start waiting
            await asyncio.sleep(0)
        # A seat that is not to move resigns: the clock is woken, with no move due.
        assert isinstance(
            app.resign(SeatRequest(game_id, Call(tokens[1 - human]))), Applied
        )
        for _ in range(turns):
            await asyncio.sleep(0)
        if not await stop(running):
            lost.append(turns)
    assert lost == []


# --- Bounded work ---


def test_one_tick_closes_at_most_expiries_per_tick_tables(
    app: GamesApp, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_clock, "EXPIRIES_PER_TICK", 2)
    ids = [open_table(app).record.game_id for _ in range(3)]
    tables = TableClock(app)
    tables.tick()
    clock.advance(WAIT.total_seconds())
    assert tables.tick() == 2
    assert tables.waiting() == 1  # the third waits for the next tick
    assert tables.tick() == 1
    assert all(game(app, i).table.status is TableStatus.CLOSED for i in ids)


def test_starting_up_reads_no_moves_yet_plays_every_resigned_seat_due(
    app: GamesApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, tokens = start(app)
    human = to_move(app, game_id)[0]
    other = 1 - human
    resigned = app.resign(SeatRequest(game_id, Call(tokens[other])))
    assert isinstance(resigned, Applied)
    play_first_legal_move(app, game_id, tokens)  # the resigned seat is to move
    read: list[tuple[str, ...]] = []
    select = app.recorder.select_notifications

    def recording(*args: Any, **kwargs: Any) -> Any:
        read.append(tuple(kwargs.get("topics") or ()))
        return select(*args, **kwargs)

    monkeypatch.setattr(app.recorder, "select_notifications", recording)
    revision = game(app, game_id).revision
    tables = TableClock(app)  # a process started after the resignation
    tables.tick()
    assert read
    assert all("table.MovePlayed" not in topics for topics in read)
    assert bot_moves(since(app, game_id, revision)) == [other]
