"""The terminal client shows other players' names as they are: a display name is
any printable text, so one that looks like console markup (``[/x]``, ``[link=...]``)
neither breaks ``tabletop games`` or a table's screen nor styles them."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.table import Table
from tabletop.v1 import game_pb2, game_service_pb2, split_pb2

from infra.terminal.games import Catalogue
from infra.terminal.my_games import my_games_table
from infra.terminal.render_common import short
from infra.terminal.render_split import _matches
from infra.terminal.seats import Seat
from infra.terminal.tables import _open_table, _own_table

GAME = "games/abc"
HOSTILE = ["[/oops]", "[link=https://example.com/x]click me", "[bold red]Ann"]


def _shown(table: Table) -> str:
    out = io.StringIO()
    Console(file=out, width=300, color_system=None).print(table)
    return out.getvalue()


def _players(name: str) -> list[game_pb2.Player]:
    return [
        game_pb2.Player(name=f"{GAME}/players/0", display_name=name),
        game_pb2.Player(name=f"{GAME}/players/1", display_name="Bea"),
    ]


@pytest.mark.parametrize("name", HOSTILE)
def test_an_open_tables_host_is_shown_as_named(name: str) -> None:
    game = game_pb2.Game(
        name=GAME,
        game_type=game_pb2.GAME_TYPE_QWIRKLE,
        host=f"{GAME}/players/0",
        players=_players(name),
        max_players=4,
    )
    assert name in _shown(_open_table([game], Catalogue()))


@pytest.mark.parametrize("name", HOSTILE)
def test_the_players_of_your_games_are_shown_as_named(name: str) -> None:
    waiting = game_service_pb2.MyGame(
        game=GAME,
        game_type=game_pb2.GAME_TYPE_QWIRKLE,
        state=game_pb2.GAME_STATE_WAITING_FOR_PLAYERS,
        player=f"{GAME}/players/1",
        players=_players(name),
    )
    playing = game_service_pb2.MyGame(
        game=GAME,
        game_type=game_pb2.GAME_TYPE_QWIRKLE,
        state=game_pb2.GAME_STATE_IN_PROGRESS,
        player=f"{GAME}/players/1",
        players=_players(name),
        players_to_act=[f"{GAME}/players/0"],
    )
    shown = _shown(my_games_table([waiting, playing], Catalogue()))
    assert shown.count(name) >= 2  # the players, and who is to play


@pytest.mark.parametrize("name", HOSTILE)
def test_the_name_a_seat_is_kept_under_is_shown_as_named(name: str) -> None:
    game = game_pb2.Game(
        name=GAME,
        game_type=game_pb2.GAME_TYPE_QWIRKLE,
        host=f"{GAME}/players/0",
        caller=f"{GAME}/players/1",
        players=_players("Ann"),
        max_players=4,
    )
    seat = Seat(GAME, f"{GAME}/players/1", "t", "h:1", name=name)
    assert name in _shown(_own_table([(game, seat)], Catalogue()))


@pytest.mark.parametrize("name", HOSTILE)
def test_a_split_matchs_owner_is_shown_as_named(name: str) -> None:
    game = game_pb2.Game(name=GAME, players=_players(name))
    public = split_pb2.SplitPublicState(
        matches=[split_pb2.SplitMatch(id=1, owner=f"{GAME}/players/0", rank="7")]
    )
    assert short(name) in _shown(_matches(game, public))
