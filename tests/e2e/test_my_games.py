"""ListMyGames through a real server: the signed-in player's games, to act first.

The view behind it follows the log, so a test waits (briefly) for a change to
show rather than expecting it in the very next call.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc, game_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, expect_error, legal_moves
from tests.e2e.conftest import Server, start_server
from tests.pg import fresh_schema

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 10


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    with fresh_schema() as url:
        running = start_server(url, dev=True, options=["--sign-in-rate-limit", "0"])
        yield running
        assert running.stop() == 0


def _sign_in(served: Server, name: str) -> Any:
    stub = auth_service_pb2_grpc.AuthServiceStub(served.channel)
    device = base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")
    request = auth_api.SignInWithDeviceRequest(device_id=device, display_name=name)
    return stub.SignInWithDevice(request, timeout=10).session


def _open(served: Server, token: str) -> str:
    created = served.stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE), display_name="x"
        ),
        metadata=auth(token),
        timeout=10,
    )
    return created.game.name


def _join_and_start(served: Server, game: str, host: str, guest: str) -> None:
    served.stub.JoinGame(
        api.JoinGameRequest(name=game, display_name="x"),
        metadata=auth(guest),
        timeout=10,
    )
    served.stub.StartGame(
        api.StartGameRequest(name=game), metadata=auth(host), timeout=10
    )


def _mine(served: Server, token: str, size: int = 0) -> list[api.MyGame]:
    games: list[api.MyGame] = []
    page = ""
    while True:
        reply = served.stub.ListMyGames(
            api.ListMyGamesRequest(page_size=size, page_token=page),
            metadata=auth(token),
            timeout=10,
        )
        games += reply.games
        page = reply.next_page_token
        if not page:
            return games


def _eventually(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, "the view did not follow the log"
        time.sleep(0.05)


def _to_move(served: Server, game: str, token: str) -> int:
    current = served.stub.GetGame(
        api.GetGameRequest(name=game), metadata=auth(token), timeout=10
    ).game.current_player
    return int(current.rsplit("/", 1)[1])


def test_my_games_lists_my_turn_first_then_waiting_tables_then_the_rest(
    served: Server,
) -> None:
    ana, ben = _sign_in(served, "Ana"), _sign_in(served, "Ben")
    a, b = ana.access_token, ben.access_token
    games = [_open(served, a) for _ in range(3)]
    waiting, first, second = games
    for game in (first, second):
        _join_and_start(served, game, a, b)
    # Make it Ana's turn in ``first`` and Ben's in ``second``.
    for game, wanted in ((first, 0), (second, 1)):
        while _to_move(served, game, a) != wanted:
            mover = a if _to_move(served, game, a) == 0 else b
            _, moves = legal_moves(served.stub, game, mover)
            served.stub.SubmitMove(
                api.SubmitMoveRequest(name=game, move=moves[0]),
                metadata=auth(mover),
                timeout=10,
            )

    def listed() -> list[str]:
        return [g.game for g in _mine(served, a)]

    _eventually(lambda: listed()[:2] == [first, waiting])
    mine = {g.game: g for g in _mine(served, a)}
    assert set(mine) == {waiting, first, second}
    assert mine[first].my_turn
    assert not mine[second].my_turn
    assert list(mine[second].players_to_act) == [f"{second}/players/1"]
    assert mine[waiting].state == game_pb2.GAME_STATE_WAITING_FOR_PLAYERS
    assert mine[first].player == f"{first}/players/0"
    assert [p.display_name for p in mine[first].players] == ["Ana", "Ben"]
    revision = served.stub.GetGame(api.GetGameRequest(name=first)).game.revision
    assert mine[first].revision == revision
    # Ben sees the same games from his side.
    _eventually(lambda: next(g.game for g in _mine(served, b)) == second)
    # Ana moves: ``first`` joins the rest, most recent first.
    _, moves = legal_moves(served.stub, first, a)
    served.stub.SubmitMove(
        api.SubmitMoveRequest(name=first, move=moves[0]), metadata=auth(a), timeout=10
    )
    _eventually(lambda: listed() == [waiting, first, second])


def test_pages_resume_in_order_and_belong_to_their_player(served: Server) -> None:
    ana, ben = _sign_in(served, "Ana"), _sign_in(served, "Ben")
    opened = [_open(served, ana.access_token) for _ in range(5)]
    _eventually(lambda: len(_mine(served, ana.access_token)) == len(opened))
    whole = [g.game for g in _mine(served, ana.access_token)]
    assert whole == list(reversed(opened))  # all waiting: the latest first
    assert [g.game for g in _mine(served, ana.access_token, size=2)] == whole
    reply = served.stub.ListMyGames(
        api.ListMyGamesRequest(page_size=2), metadata=auth(ana.access_token)
    )
    code, reason, _ = expect_error(
        served.stub.ListMyGames,
        api.ListMyGamesRequest(page_token=reply.next_page_token),
        metadata=auth(ben.access_token),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


def test_a_table_left_leaves_the_list(served: Server) -> None:
    ana, ben = _sign_in(served, "Ana"), _sign_in(served, "Ben")
    game = _open(served, ana.access_token)
    served.stub.JoinGame(
        api.JoinGameRequest(name=game, display_name="x"),
        metadata=auth(ben.access_token),
        timeout=10,
    )
    _eventually(lambda: [g.game for g in _mine(served, ben.access_token)] == [game])
    served.stub.LeaveGame(
        api.LeaveGameRequest(name=game), metadata=auth(ben.access_token), timeout=10
    )
    _eventually(lambda: _mine(served, ben.access_token) == [])
    assert [g.game for g in _mine(served, ana.access_token)] == [game]


@pytest.mark.parametrize("token", [None, "a-seat-token-is-no-player"])
def test_my_games_needs_a_signed_in_player(served: Server, token: str | None) -> None:
    code, reason, _ = expect_error(
        served.stub.ListMyGames,
        api.ListMyGamesRequest(),
        metadata=auth(token) if token else None,
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_CREDENTIALS")
