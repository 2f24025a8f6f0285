"""Which notifications the players' projection makes of a game, in memory."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import pytest

from domain.common.decision import Rejected
from domain.common.undo import UndoProposed
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SentMove, SubmitMove
from services.games import GamesApp, Seated
from services.notifications import Kind, event_notices
from services.players_view import PlayersView, players_view_for
from services.projection import PlayersProjection
from services.records import RecordedEvent
from tests.playing import Clock

ANA, BEN = uuid.uuid4(), uuid.uuid4()


@pytest.fixture
def app() -> GamesApp:
    return GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())


@pytest.fixture
def view(app: GamesApp) -> PlayersView:
    return players_view_for(app)


def ok(result: Any) -> Any:
    assert not isinstance(result, Rejected), result
    return result


def made(app: GamesApp, view: PlayersView) -> Counter[tuple[uuid.UUID, Kind]]:
    """Runs the projection and counts what it made, by player and kind."""
    PlayersProjection(app, view).tick()
    return Counter((s.notice.player_id, s.notice.kind) for s in view.since(0, 10_000))


def table(app: GamesApp, guest: bool = False) -> tuple[uuid.UUID, list[str]]:
    """Opens a Qwirkle table of Ana's, Ben (or a guest) joins; returns tokens."""
    opened: Seated = ok(
        app.create_game(CreateGame("qwirkle", None, 2, "", player_id=str(ANA)))
    )
    game_id = opened.record.game_id
    other = (
        JoinGame(game_id, "Guest")
        if guest
        else JoinGame(game_id, "", player_id=str(BEN))
    )
    joined: Seated = ok(app.join_game(other))
    return game_id, [opened.token, joined.token]


def play(app: GamesApp, game_id: uuid.UUID, tokens: list[str], moves: int) -> list[int]:
    """Plays the first legal moves; returns the seat to move before each, and after."""
    movers = []
    for _ in range(moves):
        record = app.get_game(game_id)
        assert record is not None
        seat = record.rules.to_move(record.table.game)[0]
        movers.append(seat)
        move = next(iter(record.rules.legal_moves(record.table.game, seat)))
        ok(
            app.submit_move(
                SubmitMove(game_id, SentMove("qwirkle", move), Call(tokens[seat]))
            )
        )
    record = app.get_game(game_id)
    assert record is not None
    return [*movers, record.rules.to_move(record.table.game)[0]]


def test_each_turn_notifies_the_player_to_move_once(
    app: GamesApp, view: PlayersView
) -> None:
    game_id, tokens = table(app)
    ok(app.start_game(SeatRequest(game_id, Call(tokens[0]))))
    seats = play(app, game_id, tokens, 6)
    turns = Counter(
        seats[i] for i in range(len(seats)) if i == 0 or seats[i] != seats[i - 1]
    )
    counted = made(app, view)
    assert counted[ANA, Kind.YOUR_TURN] == turns[0]
    assert counted[BEN, Kind.YOUR_TURN] == turns[1]
    assert counted[ANA, Kind.PLAYER_JOINED] == 1
    assert counted[BEN, Kind.PLAYER_JOINED] == 0  # not of one's own join


def test_a_guest_is_told_nothing_and_a_resigned_seat_is_not_asked(
    app: GamesApp, view: PlayersView
) -> None:
    game_id, tokens = table(app, guest=True)
    ok(app.start_game(SeatRequest(game_id, Call(tokens[0]))))
    if play(app, game_id, tokens, 0)[-1] == 0:  # Ana moves: the guest's turn
        play(app, game_id, tokens, 1)
    asked = made(app, view)[ANA, Kind.YOUR_TURN]
    ok(app.resign(SeatRequest(game_id, Call(tokens[0]))))
    assert play(app, game_id, tokens, 1)[-1] == 0  # Ana's seat is to move now
    assert made(app, view)[ANA, Kind.YOUR_TURN] == asked
    assert {s.notice.player_id for s in view.since(0, 10_000)} == {ANA}


def test_a_takeback_proposal_asks_the_others(app: GamesApp) -> None:
    game_id, tokens = table(app)
    ok(app.start_game(SeatRequest(game_id, Call(tokens[0]))))
    record = app.get_game(game_id)
    assert record is not None
    proposal = UndoProposed(1, 0, record.revision, record.updated_at)
    recorded = RecordedEvent(record.revision + 1, 1, 0, record.updated_at, "", proposal)
    told = event_notices(record, recorded)
    assert [(n.player_id, n.kind) for n in told] == [(BEN, Kind.TAKEBACK_PROPOSED)]


def test_the_end_tells_everyone_and_hands_no_turn_on(
    app: GamesApp, view: PlayersView
) -> None:
    game_id, tokens = table(app)
    ok(app.start_game(SeatRequest(game_id, Call(tokens[0]))))
    for token in tokens:  # both resign: the game ends as abandoned
        ok(app.resign(SeatRequest(game_id, Call(token))))
    counted = made(app, view)
    assert counted[ANA, Kind.GAME_FINISHED] == counted[BEN, Kind.GAME_FINISHED] == 1
    keys = [s.notice.key for s in view.since(0, 10_000)]
    assert len(keys) == len(set(keys))


def test_a_player_joining_a_guests_table_is_seen(
    app: GamesApp, view: PlayersView
) -> None:
    """The projection leaves guests' games alone until a signed-in player sits."""
    opened: Seated = ok(app.create_game(CreateGame("qwirkle", None, 3, "Guest")))
    game_id = opened.record.game_id
    projection = PlayersProjection(app, view)
    projection.tick()
    assert view.page(BEN, None, 10) == []
    ok(app.join_game(JoinGame(game_id, "", player_id=str(BEN))))
    ok(app.join_game(JoinGame(game_id, "Other guest")))
    projection.tick()
    assert [row.game_id for row in view.page(BEN, None, 10)] == [game_id]
    assert made(app, view)[BEN, Kind.PLAYER_JOINED] == 1
