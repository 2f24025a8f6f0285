"""The players' projection on PostgreSQL and SQLite: each change applied once,
from where the view left off, whichever process gets there first."""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Callable

from domain.common.decision import Rejected
from domain.common.seats import Seat
from services.calls import Call, CreateGame, JoinGame, SeatRequest
from services.games import GamesApp, Seated
from services.my_games import MY_TURN, OTHERS, WAITING
from services.players_view import players_view_for
from services.projection import NAME, PlayersProjection
from services.records import GameRecord

Start = Callable[[], GamesApp]


def _seated(result: Seated | object) -> Seated:
    assert isinstance(result, Seated), result
    return result


def _table(app: GamesApp, host: uuid.UUID, guest: uuid.UUID | None) -> GameRecord:
    """Opens a Qwirkle table for ``host`` and, with a guest, starts it."""
    opened = _seated(
        app.create_game(CreateGame("qwirkle", None, 0, "", player_id=str(host)))
    )
    game_id = opened.record.game_id
    if guest is None:
        return opened.record
    _seated(app.join_game(JoinGame(game_id, "", player_id=str(guest))))
    started = app.start_game(SeatRequest(game_id, Call(opened.token)))
    assert not isinstance(started, Rejected), started
    record = app.get_game(game_id)
    assert record is not None
    return record


def test_the_view_follows_the_log_and_resumes_where_it_left_off(
    process: Start,
) -> None:
    app = process()
    ana, ben = uuid.uuid4(), uuid.uuid4()
    waiting = _table(app, ana, None)
    started = _table(app, ana, ben)
    projection = PlayersProjection(app, players_view_for(app))
    assert projection.tick() > 0
    assert projection.position() == app.recorder.max_notification_id()
    rows = {row.game_id: row for row in projection.view.page(ana, None, 10)}
    assert rows[waiting.game_id].rank == WAITING
    to_move = started.rules.to_move(started.table.game)
    assert rows[started.game_id].rank == (MY_TURN if 0 in to_move else OTHERS)
    assert [row.game_id for row in projection.view.page(ben, None, 10)] == [
        started.game_id
    ]
    # A restart (a new process) resumes from the recorded position.
    again = process()
    later = _table(again, ben, None)
    resumed = PlayersProjection(again, players_view_for(again))
    assert resumed.position() == projection.position()
    assert resumed.tick() > 0  # only what was stored since
    assert later.game_id in {row.game_id for row in resumed.view.page(ben, None, 10)}
    assert resumed.tick() == 0


def test_two_processes_apply_each_notification_once(process: Start) -> None:
    apps = [process(), process()]
    players = [uuid.uuid4() for _ in range(4)]
    seated = dict.fromkeys(players, 0)
    for index in range(6):
        pair = players[index % 4], players[(index + 1) % 4]
        _table(apps[index % 2], *pair)
        for player in pair:
            seated[player] += 1
    projections = [PlayersProjection(app, players_view_for(app)) for app in apps]
    applied: list[int] = []
    lock = threading.Lock()

    def run(projection: PlayersProjection) -> None:
        count = projection.tick()
        with lock:
            applied.append(count)

    threads = [threading.Thread(target=run, args=(p,)) for p in projections * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    newest = apps[0].recorder.max_notification_id()
    # Every notification was applied by exactly one of the ticks.
    assert sum(applied) == newest
    assert projections[0].view.tracking.max_tracking_id(NAME) == newest
    for player in players:
        assert len(projections[1].view.page(player, None, 50)) == seated[player]


def test_a_seat_token_caller_is_no_player(process: Start) -> None:
    app = process()
    guest = _seated(app.create_game(CreateGame("qwirkle", None, 0, "Guest")))
    projection = PlayersProjection(app, players_view_for(app))
    projection.tick()
    record = app.get_game(guest.record.game_id)
    assert record is not None
    assert isinstance(app.viewer_for(record, guest.token), Seat)
    assert projection.view.page(uuid.uuid4(), None, 10) == []


_OPEN_VIEW = """
import sys
from infra.event_store import create_app
from infra.settings import Settings
from services.players_view import players_view_for
app = create_app(Settings(database=sys.argv[1], dev_mode=True))
players_view_for(app)
app.close()
"""


def test_processes_starting_together_create_the_view_once(database: str) -> None:
    """Server processes of a group start at once on a new schema: each opens
    the view, and none fails on another's creating it."""
    if not database.startswith("postgresql"):
        return  # a SQLite file has one server process
    command = [sys.executable, "-c", _OPEN_VIEW, database]
    started = [
        subprocess.Popen(command, stderr=subprocess.PIPE, text=True)  # noqa: S603
        for _ in range(4)
    ]
    errors = [process.communicate(timeout=60)[1] for process in started]
    assert [process.returncode for process in started] == [0, 0, 0, 0], errors
