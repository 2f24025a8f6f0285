"""``choose_move``: one entry point, and strategies that see only a seat's view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from domain import bots
from domain.bots import STRATEGIES, choose_move, strategy_for
from domain.common.seats import Seat
from domain.games.registry import GAMES
from tests.factories import qwirkle_turn_state


def test_every_game_has_a_bot() -> None:
    assert set(STRATEGIES) == set(GAMES)
    assert all(strategy_for(name) is STRATEGIES[name] for name in GAMES)


def test_an_unknown_game_has_no_bot() -> None:
    assert strategy_for("chess") is None
    with pytest.raises(KeyError):
        choose_move("chess", None, 0)


def test_a_seat_that_may_not_act_gets_none() -> None:
    assert choose_move("qwirkle", qwirkle_turn_state(), 1) is None


def test_the_strategy_is_handed_the_seats_view_and_legal_moves_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = qwirkle_turn_state()
    rules = GAMES["qwirkle"]
    handed: list[tuple[Any, ...]] = []

    def spy(*arguments: Any) -> Any:
        handed.append(arguments)
        return "chosen"

    def spy_for(game_type: str) -> Any:
        del game_type
        return spy

    monkeypatch.setattr(bots, "strategy_for", spy_for)

    assert choose_move("qwirkle", state, 0) == "chosen"
    ((view, moves),) = handed
    assert view == rules.view(state, Seat(0))
    assert moves == tuple(rules.legal_moves(state, 0))
    assert view.racks is None  # no other rack, no bag


def test_its_choice_is_one_of_the_legal_moves() -> None:
    state = qwirkle_turn_state()
    moves: Sequence[Any] = tuple(GAMES["qwirkle"].legal_moves(state, 0))

    assert choose_move("qwirkle", state, 0) in moves
