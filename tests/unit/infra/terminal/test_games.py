"""One naming rule from a game's name to its proto names, checked against the
domain's registry and the generated descriptors; the client's tables follow it."""

from __future__ import annotations

from typing import Any, cast

import grpc
import pytest
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2, game_type_pb2, move_pb2

from domain.games.registry import GAMES
from infra.cli import build_parser
from infra.terminal.connection import Connection, catalogue, game_type_info, with_token
from infra.terminal.games import (
    NAMES,
    Catalogue,
    config_member,
    enum_name,
    info_name,
    key,
    name_of,
    spelled,
    view_member,
)
from infra.terminal.my_games import my_games_table
from infra.terminal.render import RENDERERS, renderer_for
from tests.unit.infra.terminal.drawing import screen

GAME_TYPE_ENUM = game_pb2.GameType.DESCRIPTOR


def _members(message: Any, oneof: str) -> set[str]:  # a message Descriptor
    return {field.name for field in message.oneofs_by_name[oneof].fields}


def test_every_game_type_value_is_a_registered_game_and_back() -> None:
    unspecified = game_pb2.GAME_TYPE_UNSPECIFIED
    values = {v.name for v in GAME_TYPE_ENUM.values if v.number != unspecified}
    assert values == {enum_name(name) for name in GAMES}
    assert set(NAMES.values()) == set(GAMES)
    for name in GAMES:
        number = GAME_TYPE_ENUM.values_by_name[enum_name(name)].number
        assert name_of(number) == name


def test_every_game_has_its_config_view_move_and_event_member() -> None:
    game = game_pb2.Game.DESCRIPTOR
    assert _members(game, "config") == {config_member(name) for name in GAMES}
    assert _members(game, "view") == {view_member(name) for name in GAMES}
    assert _members(move_pb2.Move.DESCRIPTOR, "game") == set(GAMES)
    assert set(GAMES) <= _members(event_pb2.GameEvent.DESCRIPTOR, "event")
    for name in GAMES:  # a game's GameEvent member wraps its own event oneof
        message = event_pb2.GameEvent.DESCRIPTOR.fields_by_name[name].message_type
        assert message is not None
        assert "event" in message.oneofs_by_name


def test_only_a_games_event_member_wraps_an_event_oneof() -> None:
    """What the replay relies on to name a game's event it does not describe."""
    for field in event_pb2.GameEvent.DESCRIPTOR.oneofs_by_name["event"].fields:
        message = field.message_type
        wraps = message is not None and "event" in message.oneofs_by_name
        assert wraps == (field.name in GAMES), field.name


def test_every_registered_game_has_a_renderer() -> None:
    assert set(RENDERERS) == set(GAMES)
    for number, name in NAMES.items():
        renderer = renderer_for(number)
        assert renderer is not None
        assert renderer.game == name
    assert renderer_for(game_pb2.GAME_TYPE_UNSPECIFIED) is None


def test_the_play_help_lists_every_registered_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for name in GAMES:
        assert spelled(name) in shown


def _info(number: int, display: str, config: str = "") -> game_type_pb2.GameTypeInfo:
    return game_type_pb2.GameTypeInfo(
        game_type=cast("game_pb2.GameType", number),
        display_name=display,
        min_players=2,
        max_players=4,
        config_field=config,
    )


SERVER = Catalogue(
    (
        _info(
            game_pb2.GAME_TYPE_HUES_AND_CUES, "Hues and Cues", "hues_and_cues_config"
        ),
        _info(game_pb2.GAME_TYPE_FOOL, "Fool!", "fool_config"),
        _info(42, "Tic-Tac-Toe", "tic_tac_toe_config"),  # newer than these stubs
    )
)


def test_a_game_is_found_by_its_name_or_its_display_name() -> None:
    hues = game_pb2.GAME_TYPE_HUES_AND_CUES
    for text in ("hues-and-cues", "hues_and_cues", "Hues and Cues", " HUES AND CUES "):
        found = SERVER.find(text)
        assert found is not None
        assert found.game_type == hues
    assert key("Fool!") == "fool"
    assert SERVER.find("fool") is SERVER.game_types[1]
    assert SERVER.find("qwirkle") is None  # a game this server does not play
    assert SERVER.find("tic-tac-toe") is SERVER.game_types[2]


def test_a_game_type_newer_than_the_stubs_is_named_by_its_config_member() -> None:
    assert name_of(42) == ""
    assert info_name(SERVER.game_types[2]) == "tic_tac_toe"
    assert SERVER.spelled_names() == ["hues-and-cues", "fool", "tic-tac-toe"]
    assert SERVER.display_name(42) == "Tic-Tac-Toe"
    assert info_name(_info(43, "")) == "game_type_43"


def test_display_names_come_from_the_server() -> None:
    assert SERVER.display_name(game_pb2.GAME_TYPE_FOOL) == "Fool!"
    # Not listed by the server: a name made from the enum, or the number.
    assert Catalogue().display_name(game_pb2.GAME_TYPE_GNOMING_A_ROUND) == (
        "Gnoming A Round"
    )
    assert Catalogue().display_name(42) == "Game type 42"


class _Stub:
    """Answers ListGameTypes, counting the calls."""

    def __init__(self) -> None:
        self.calls = 0

    def ListGameTypes(
        self, request: game_service_pb2.ListGameTypesRequest, **_: Any
    ) -> game_service_pb2.ListGameTypesResponse:
        self.calls += 1
        return game_service_pb2.ListGameTypesResponse(game_types=SERVER.game_types)


def test_the_catalogue_is_asked_once_per_connection() -> None:
    stub = _Stub()
    channel = grpc.insecure_channel("127.0.0.1:1")
    connection = Connection(channel, cast("Any", stub))
    seated = with_token(connection, "secret")
    assert catalogue(connection) == SERVER
    assert game_type_info(seated, 42) == SERVER.game_types[2]
    assert game_type_info(seated, game_pb2.GAME_TYPE_QWIRKLE) is None
    assert stub.calls == 1
    channel.close()


def test_my_games_show_whole_ids_at_80_columns() -> None:
    game_id = "a4d8dba9-68f1-4a3b-9c1e-0123456789ab"
    mine = game_service_pb2.MyGame(
        game=f"games/{game_id}",
        game_type=game_pb2.GAME_TYPE_QWIRKLE,
        state=game_pb2.GAME_STATE_IN_PROGRESS,
        player=f"games/{game_id}/players/0",
        my_turn=True,
    )
    for name in ("Ana Long Name", "Bot 1", "Bot 2", "Someone Else"):
        mine.players.add(display_name=name, score=12)
    text, _ = screen(my_games_table([mine], Catalogue()), 80)
    assert f"│ {game_id} │" in text
    assert max(len(line) for line in text.splitlines()) <= 80
