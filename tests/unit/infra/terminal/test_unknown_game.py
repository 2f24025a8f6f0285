"""A game type the server plays and this client cannot draw: listed by its
display name, drawn as its players and scores, and refused for play, never a crash."""

from __future__ import annotations

from typing import cast

import pytest
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2, move_pb2, qwirkle_pb2

from infra.terminal.connection import ClientError
from infra.terminal.games import Catalogue
from infra.terminal.lobby import game_type_of
from infra.terminal.render import describe_event, describe_move, hint, render_game
from infra.terminal.render import typed_move as typed
from infra.terminal.replay import what_happened
from infra.terminal.tables import game_types_table
from tests.unit.infra.terminal.drawing import new_game, screen

CHESS = cast("game_pb2.GameType", 42)  # a value these stubs do not define
INFO = game_type_pb2.GameTypeInfo(
    game_type=CHESS,
    display_name="Chess",
    min_players=2,
    max_players=2,
    config_field="chess_config",
)
QWIRKLE = game_type_pb2.GameTypeInfo(
    game_type=game_pb2.GAME_TYPE_QWIRKLE,
    display_name="Qwirkle",
    min_players=2,
    max_players=4,
    config_field="qwirkle_config",
)
SERVER = Catalogue((QWIRKLE, INFO))


def _chess() -> game_pb2.Game:
    game = new_game(CHESS, "Ana", "Ben")
    game.current_player = "games/g1/players/1"
    game.players[0].score = 3
    return game


def test_it_is_drawn_as_its_display_name_players_and_scores() -> None:
    text, _ = screen(render_game(_chess(), INFO, "games/g1/players/0"))
    assert text.startswith("Chess  games/g1  in progress")
    assert "Ana" in text
    assert "▶  Ben" in text
    assert "this client cannot draw Chess (a newer tabletop can)" in text


def test_without_the_catalogue_it_is_named_by_its_number() -> None:
    text, _ = screen(render_game(_chess(), None))
    assert "this client cannot draw Game type 42" in text


def test_its_moves_events_and_typed_lines_are_not_read() -> None:
    assert describe_move(move_pb2.Move()).plain == "(a move this client cannot show)"
    event = event_pb2.GameEvent(revision=3, actor="games/g1/players/0")
    event.game_started.SetInParent()
    assert describe_event(event, {}) == "the game started"
    unknown = event_pb2.GameEvent(revision=4)
    assert what_happened(unknown, {}) == "an event this client does not know"
    assert typed(_chess(), "e4", []) is None
    assert hint(_chess()) == ""


def test_a_known_games_bookkeeping_event_is_told_in_words_in_the_replay() -> None:
    event = event_pb2.GameEvent(actor="games/g1/players/0")
    event.qwirkle.tiles_drawn.CopyFrom(
        qwirkle_pb2.QwirkleTilesDrawn(player="games/g1/players/0", count=3)
    )
    names = {"games/g1/players/0": "Ana"}
    assert what_happened(event, names) == "Ana drew 3 tile(s)"


def test_the_lobby_lists_it_and_says_it_cannot_be_drawn() -> None:
    text, _ = screen(game_types_table(SERVER))
    qwirkle = next(line for line in text.splitlines() if "Qwirkle" in line)
    chess = next(line for line in text.splitlines() if "Chess" in line)
    assert qwirkle.split()[:4] == ["│", "qwirkle", "│", "Qwirkle"]
    assert "cannot draw" not in qwirkle
    assert chess.split()[:4] == ["│", "chess", "│", "Chess"]
    assert "cannot draw it" in chess
    assert "┃ this client    ┃" in text  # the note's column is named


def test_a_lobby_of_games_it_draws_has_no_note_column() -> None:
    drawn = Catalogue(tuple(i for i in SERVER.game_types if i.display_name != "Chess"))
    text, _ = screen(game_types_table(drawn))
    heading = next(line for line in text.splitlines() if line.startswith("┃"))
    assert heading.split() == ["┃", "GAME_TYPE", "┃", "game", "┃", "players", "┃"]


def test_play_refuses_it_by_name_and_an_unplayed_game_with_the_servers_list() -> None:
    assert game_type_of("Qwirkle", SERVER) == game_pb2.GAME_TYPE_QWIRKLE
    with pytest.raises(ClientError, match=r"cannot draw Chess \(a newer tabletop"):
        game_type_of("chess", SERVER)
    with pytest.raises(
        ClientError, match="plays no game 'split'; it plays: qwirkle, chess"
    ):
        game_type_of("split", SERVER)
