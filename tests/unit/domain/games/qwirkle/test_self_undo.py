"""Which Qwirkle moves their mover may take back alone (DESIGN §6, D23)."""

from __future__ import annotations

from domain.games.qwirkle import (
    RULES,
    Color,
    EndReason,
    GameEnded,
    Placement,
    Shape,
    Tile,
    TilesDrawn,
    TilesExchanged,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)

RED_CIRCLE = Tile(Color.RED, Shape.CIRCLE)
PLACED = TilesPlaced(0, (Placement(RED_CIRCLE, 1, 0),))
SCORED = TurnScored(0, 2, (2,), 0)


def test_a_pass_may_be_taken_back_alone() -> None:
    assert RULES.self_undoable((TurnPassed(0),))


def test_a_placement_that_drew_nothing_may_be_taken_back_alone() -> None:
    assert RULES.self_undoable((PLACED, SCORED))
    assert RULES.self_undoable((PLACED, SCORED, TilesDrawn(0, 0, ())))


def test_a_placement_that_drew_tiles_needs_consent() -> None:
    assert not RULES.self_undoable((PLACED, SCORED, TilesDrawn(0, 1, (RED_CIRCLE,))))


def test_an_exchange_needs_consent() -> None:
    exchange = TilesExchanged(0, 1, (RED_CIRCLE,), (RED_CIRCLE,), ())
    assert not RULES.self_undoable((exchange,))


def test_a_move_that_ended_the_game_revealed_every_hand() -> None:
    assert not RULES.self_undoable((PLACED, SCORED, GameEnded(EndReason.DEADLOCK, ())))


# --- T19: what no takeback may cross (shown to others) ---


def test_tiles_drawn_or_exchanged_are_shown_to_the_mover_alone() -> None:
    drawn = (PLACED, SCORED, TilesDrawn(0, 1, (RED_CIRCLE,)))
    assert not RULES.reveals_to_others(drawn)
    exchange = TilesExchanged(0, 1, (RED_CIRCLE,), (RED_CIRCLE,), ())
    assert not RULES.reveals_to_others((exchange,))
    assert not RULES.reveals_to_others((TurnPassed(0),))


def test_the_end_of_the_game_shows_every_rack_to_others() -> None:
    ended = (PLACED, SCORED, GameEnded(EndReason.DEADLOCK, ()))
    assert RULES.reveals_to_others(ended)
