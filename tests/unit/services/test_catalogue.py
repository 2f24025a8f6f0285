"""``ListGameTypes`` describes every game from its rules and its converter."""

from __future__ import annotations

import hashlib

from tabletop.v1 import game_pb2

from domain.games.registry import GAMES
from services.api.catalogue import game_types
from services.api.convert.registry import CONVERTERS


def test_every_game_played_here_is_listed_once_in_game_type_order() -> None:
    listed = [info.game_type for info in game_types().game_types]
    assert listed == sorted(listed)
    assert {game_pb2.GameType.Name(t) for t in listed} == {
        "GAME_TYPE_QWIRKLE",
        "GAME_TYPE_HUES_AND_CUES",
        "GAME_TYPE_SPLIT",
        "GAME_TYPE_GNOMING_A_ROUND",
        "GAME_TYPE_FOOL",
    }
    assert set(CONVERTERS) == set(GAMES)


def test_player_counts_come_from_the_rules() -> None:
    for info in game_types().game_types:
        converter = next(
            c for c in CONVERTERS.values() if c.proto_type == info.game_type
        )
        rules = GAMES[converter.game_type]
        assert (info.min_players, info.max_players) == (
            rules.min_players,
            rules.max_players,
        )
        assert info.display_name
        assert info.self_undo


def test_every_option_names_a_field_of_its_config_message() -> None:
    config_fields = game_pb2.Game.DESCRIPTOR.fields_by_name
    for info in game_types().game_types:
        config = config_fields[info.config_field].message_type
        assert config is not None
        assert [o.field for o in info.options] == [f.name for f in config.fields]
        assert all(o.description and o.default_value for o in info.options)


def test_the_hues_and_cues_board_matches_the_spec_checksums() -> None:
    info = next(
        i
        for i in game_types().game_types
        if i.game_type == game_pb2.GAME_TYPE_HUES_AND_CUES
    )
    board = info.hues_and_cues
    assert (board.rows, board.columns) == (16, 30)
    text = "".join(f"{c.square.id}:{c.hex}\n" for c in board.squares)
    assert hashlib.sha256(text.encode()).hexdigest() == (
        "235342afa08bf1935c531e12fbded39c563672e4817595773aecd9297ff5e16f"
    )
    assert sum(c.red + c.green + c.blue for c in board.squares) == 192780
    assert [(c.square.row, c.square.column) for c in board.squares[:2]] == [
        (0, 0),
        (0, 1),
    ]
    assert board.max_cue_length == 40
    assert "yellow" in board.basic_color_parts
    assert "reddish" in board.basic_color_words
    assert "corner" in board.board_words
    assert "lighter" in board.relative_words


def test_games_without_reference_data_have_no_details() -> None:
    for info in game_types().game_types:
        if info.game_type != game_pb2.GAME_TYPE_HUES_AND_CUES:
            assert info.WhichOneof("details") is None
