"""The contract suite's list of games is the server's, plus the example game.

A game the registry lists but the contract does not would go unchecked. Every
entry declares its converter, so every game runs the message checks; only a
game the server plays has ``Game`` and ``GameEvent`` messages too.
"""

from __future__ import annotations

from domain.games.registry import GAMES as REGISTERED
from services.api.convert.registry import converter_for
from tests import example_game
from tests.contract.games import GAMES


def test_every_registered_game_and_the_example_game_have_an_entry() -> None:
    entries = {game.name: game.rules for game in GAMES}
    assert len(entries) == len(GAMES)
    assert entries == {**REGISTERED, example_game.RULES.name: example_game.RULES}


def test_every_game_runs_the_message_checks_with_its_own_converter() -> None:
    for game in GAMES:
        assert game.converter is not None
        assert game.messages().game_type == game.name
        if game.name in REGISTERED:  # the server's API serves every game it plays
            assert game.converter is converter_for


def test_every_entry_plays_tables_its_game_allows() -> None:
    for game in GAMES:
        rules = game.rules
        for players in game.players:
            assert rules.min_players <= players <= rules.max_players
            for number in range(2):
                options = game.table_options(players, number)
                assert rules.check_config(options, players) is None
