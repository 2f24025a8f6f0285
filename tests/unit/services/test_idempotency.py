"""A retried request returns what it did the first time and stores nothing new."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tabletop.v1 import game_service_pb2 as api

from domain.common.decision import Rejected
from domain.games.qwirkle import QwirkleConfig
from infra.event_store import create_app
from infra.settings import Settings
from services.api.requests import identify
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp, Seated
from tests.playing import sent_move

SEED = bytes(range(32))


@pytest.fixture
def app() -> GamesApp:
    """Returns a development-mode application on the in-memory store."""
    return GamesApp(
        {"PERSISTENCE_MODULE": "eventsourcing.popo"}, allow_client_seed=True
    )


def _create(app: GamesApp, name: str = "Ana", request_id: str = "c-1") -> Seated:
    created = app.create_game(
        CreateGame(
            "qwirkle", QwirkleConfig(), 0, name, SEED, request_id, f"create:{name}"
        )
    )
    assert isinstance(created, Seated), created
    return created


def _started(app: GamesApp) -> tuple[Seated, Seated]:
    ana = _create(app)
    ben = app.join_game(JoinGame(ana.record.game_id, "Ben", "j-1", "join:Ben"))
    assert isinstance(ben, Seated)
    assert isinstance(
        app.start_game(SeatRequest(ana.record.game_id, Call(ana.token, "s-1", "s"))),
        Applied,
    )
    return ana, ben


def test_a_retried_create_returns_the_same_game_and_a_working_token(
    app: GamesApp,
) -> None:
    first = _create(app)
    again = _create(app)
    assert again.record.game_id == first.record.game_id
    assert again.token == first.token
    assert again.record.revision == first.record.revision == 2
    assert app.authenticate(again.record, again.token) == 0


def test_a_create_id_reused_for_another_request_is_refused(app: GamesApp) -> None:
    _create(app)
    reused = app.create_game(
        CreateGame("qwirkle", QwirkleConfig(), 0, "Cy", SEED, "c-1", "create:Cy")
    )
    assert isinstance(reused, Rejected)
    assert reused.reason == "REQUEST_ID_REUSED"


def test_a_retried_join_returns_the_same_seat_and_token(app: GamesApp) -> None:
    ana = _create(app)
    first = app.join_game(JoinGame(ana.record.game_id, "Ben", "j-1", "join:Ben"))
    again = app.join_game(JoinGame(ana.record.game_id, "Ben", "j-1", "join:Ben"))
    assert isinstance(first, Seated)
    assert isinstance(again, Seated)
    assert (again.seat, again.token) == (first.seat, first.token) == (1, first.token)
    assert len(again.record.table.seats) == 2
    assert app.authenticate(again.record, again.token) == 1


def test_joins_without_request_ids_take_new_seats(app: GamesApp) -> None:
    ana = _create(app)
    seats = [app.join_game(JoinGame(ana.record.game_id, "Ben")) for _ in range(2)]
    assert [s.seat for s in seats if isinstance(s, Seated)] == [1, 2]


def test_a_retried_move_returns_the_same_events_and_stores_nothing(
    app: GamesApp,
) -> None:
    ana, ben = _started(app)
    record = app.get_game(ana.record.game_id)
    assert record is not None
    (seat,) = record.rules.to_move(record.table.game)
    token = (ana, ben)[seat].token
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    first = app.submit_move(
        SubmitMove(
            record.game_id,
            sent_move(move),
            Call(token, "m-1", "move-1", record.revision),
        )
    )
    again = app.submit_move(
        SubmitMove(
            record.game_id,
            sent_move(move),
            Call(token, "m-1", "move-1", record.revision),
        )
    )
    assert isinstance(first, Applied)
    assert isinstance(again, Applied)
    assert again.events == first.events
    assert again.record.revision == first.record.revision


def test_a_move_id_reused_for_another_move_is_refused(app: GamesApp) -> None:
    ana, ben = _started(app)
    record = app.get_game(ana.record.game_id)
    assert record is not None
    (seat,) = record.rules.to_move(record.table.game)
    token = (ana, ben)[seat].token
    moves = list(record.rules.legal_moves(record.table.game, seat))
    assert isinstance(
        app.submit_move(
            SubmitMove(record.game_id, sent_move(moves[0]), Call(token, "m-1", "a"))
        ),
        Applied,
    )
    reused = app.submit_move(
        SubmitMove(record.game_id, sent_move(moves[1]), Call(token, "m-1", "b"))
    )
    assert isinstance(reused, Rejected)
    assert reused.reason == "REQUEST_ID_REUSED"
    after = app.get_game(record.game_id)
    assert after is not None
    assert after.move_count == 1


def test_a_retry_reaching_another_process_returns_the_original_result(
    tmp_path: Path,
) -> None:
    database = f"sqlite:///{tmp_path}/games.sqlite3"
    first_process = create_app(Settings(database=database, dev_mode=True))
    second_process = create_app(Settings(database=database, dev_mode=True))
    ana, ben = _started(first_process)
    record = first_process.get_game(ana.record.game_id)
    assert record is not None
    (seat,) = record.rules.to_move(record.table.game)
    token = (ana, ben)[seat].token
    move = next(iter(record.rules.legal_moves(record.table.game, seat)))
    first = first_process.submit_move(
        SubmitMove(record.game_id, sent_move(move), Call(token, "m", "h"))
    )
    again = second_process.submit_move(
        SubmitMove(record.game_id, sent_move(move), Call(token, "m", "h"))
    )
    assert isinstance(first, Applied)
    assert isinstance(again, Applied)
    assert again.events == first.events
    assert len(second_process.recorded_events(record.game_id)) == first.record.revision
    first_process.close()
    second_process.close()


def test_a_retry_that_asks_for_another_view_is_the_same_request() -> None:
    """``SubmitMoveRequest.view`` shapes only the answer: it is not fingerprinted.

    A client whose full SubmitMove timed out may retry the same move with the
    same request_id asking for GAME_VIEW_BASIC (or the reverse) and gets the
    first result, not REQUEST_ID_REUSED.
    """
    name = f"games/{uuid.uuid4()}"
    full = api.SubmitMoveRequest(name=name, expected_revision=7, request_id="r-1")
    basic = api.SubmitMoveRequest()
    basic.CopyFrom(full)
    basic.view = api.GAME_VIEW_BASIC
    assert identify(full, "SubmitMove", "token") == identify(
        basic, "SubmitMove", "token"
    )
