"""Whom the waiting line names: every player the game waits for."""

from __future__ import annotations

from tabletop.v1 import game_pb2

from infra.terminal.play import waiting_for


def _game(*, acting: list[str], current: str = "") -> game_pb2.Game:
    players = [
        game_pb2.Player(name=f"games/g/players/{seat}", display_name=name)
        for seat, name in enumerate(("Ana", "Ben", "Cy"))
    ]
    players[2].resigned = True
    return game_pb2.Game(
        name="games/g",
        players=players,
        current_player=current,
        players_to_act=acting,
    )


def test_one_player_to_act_is_named() -> None:
    game = _game(acting=["games/g/players/1"], current="games/g/players/1")
    assert waiting_for(game) == "Ben"


def test_a_simultaneous_phase_names_everyone_it_waits_for() -> None:
    game = _game(acting=["games/g/players/0", "games/g/players/2"])
    assert waiting_for(game) == "Ana and Cy (the bot plays for them)"


def test_an_older_server_without_players_to_act_is_read_by_current_player() -> None:
    assert waiting_for(_game(acting=[], current="games/g/players/0")) == "Ana"
    assert waiting_for(_game(acting=[])) == "the other players"
