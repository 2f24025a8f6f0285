"""Views and redaction (spec §4.5, D9, DESIGN §5)."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from domain.common.rng import Rng
from domain.common.seats import Operator, Seat, Spectator, Viewer
from domain.games.qwirkle import RULES
from domain.games.qwirkle.events import (
    EndBonusScored,
    Event,
    GameEnded,
    StartingPlayerChosen,
    TilesDealt,
    TilesDrawn,
    TilesExchanged,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)
from domain.games.qwirkle.model import EndReason, Phase, QwirkleConfig
from domain.games.qwirkle.setup import initial_state, setup
from domain.games.qwirkle.views import QwirklePrivate, QwirklePublic, view, visible
from tests.factories import (
    QWIRKLE_EXAMPLE_GRID,
    qwirkle_placements,
    qwirkle_state,
    qwirkle_tiles,
)

STATE = qwirkle_state(
    board=QWIRKLE_EXAMPLE_GRID,
    racks=(("red-circle", "red-square"), ("blue-clover",)),
    bag=("yellow-diamond", "purple-starburst"),
    scores=(4, 0),
    to_move=1,
)
RED = qwirkle_tiles("red-circle")
BLUE = qwirkle_tiles("blue-clover")
BAG = qwirkle_tiles("yellow-diamond")


def test_a_spectator_sees_only_the_public_part() -> None:
    seen = view(STATE, Spectator())
    assert seen.private is None
    assert seen.racks is None
    assert seen.public.rack_sizes == (2, 1)
    assert seen.public.bag_size == 2
    assert seen.public.to_move == (1,)
    assert seen.public.scores == (4, 0)


def test_the_public_board_is_sorted_by_cell() -> None:
    board = view(STATE, Spectator()).public.board
    assert [(p.x, p.y) for p in board] == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_no_view_holds_the_bag() -> None:
    names = {f.name for f in fields(QwirklePublic)}
    assert "bag" not in names
    for viewer in (Spectator(), Seat(0), Operator()):
        assert "yellow" not in repr(view(STATE, viewer).public)


def test_a_seat_sees_its_own_rack_only() -> None:
    seen = view(STATE, Seat(1))
    assert seen.private == QwirklePrivate(rack=BLUE)
    assert seen.racks is None
    assert "red" not in repr(seen)


def test_an_unknown_seat_sees_what_a_spectator_sees() -> None:
    assert view(STATE, Seat(7)) == view(STATE, Spectator())


def test_the_operator_sees_every_rack() -> None:
    assert view(STATE, Operator()).racks == STATE.racks


def test_a_finished_game_shows_every_rack_to_everybody() -> None:
    finished = replace(STATE, phase=Phase.GAME_OVER, end_reason=EndReason.DEADLOCK)
    for viewer in (Spectator(), Seat(0)):
        seen = view(finished, viewer)
        assert seen.racks == STATE.racks
        assert seen.public.finished
        assert seen.public.to_move == ()


def dealt() -> TilesDealt:
    """Returns the real deal of a three-player game."""
    event = setup(initial_state(3, QwirkleConfig()), Rng(bytes(32)))[0]
    assert isinstance(event, TilesDealt)
    return event


def test_a_seat_sees_its_own_dealt_rack_and_only_counts_otherwise() -> None:
    event = dealt()
    seen = visible(event, Seat(1))
    assert seen == TilesDealt(((), event.racks[1], ()), (6, 6, 6), (), 90)


def test_a_spectator_sees_only_counts_of_the_deal() -> None:
    assert visible(dealt(), Spectator()) == TilesDealt(((), (), ()), (6, 6, 6), (), 90)


def test_the_operator_sees_every_event_whole() -> None:
    event = dealt()
    assert visible(event, Operator()) is event


def test_drawn_tiles_are_seen_by_the_drawer_only() -> None:
    event = TilesDrawn(seat=0, count=1, tiles=RED)
    assert visible(event, Seat(0)) == event
    assert visible(event, Seat(1)) == TilesDrawn(seat=0, count=1, tiles=())
    assert visible(event, Spectator()) == TilesDrawn(seat=0, count=1, tiles=())


def test_an_exchange_shows_its_tiles_to_the_player_and_the_bag_to_nobody() -> None:
    # D9
    event = TilesExchanged(seat=0, count=1, returned=RED, drawn=BLUE, bag=BAG)
    assert visible(event, Seat(0)) == replace(event, bag=())
    hidden = TilesExchanged(seat=0, count=1, returned=(), drawn=(), bag=())
    assert visible(event, Seat(1)) == hidden
    assert visible(event, Spectator()) == hidden


PUBLIC: list[Event] = [
    StartingPlayerChosen((2, 1), 0),
    TilesPlaced(0, qwirkle_placements(("red-circle", 0, 0))),
    TurnScored(0, 1, (1,), 0),
    TurnPassed(1),
    EndBonusScored(0, 6),
    GameEnded(EndReason.HAND_EMPTIED, ((), BLUE)),
]


@pytest.mark.parametrize("event", PUBLIC, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("viewer", [Seat(0), Seat(1), Spectator()], ids=repr)
def test_public_events_are_seen_whole_by_everybody(
    event: Event, viewer: Viewer
) -> None:
    assert visible(event, viewer) == event


def test_the_registered_view_functions_are_these() -> None:
    assert RULES.view is view
    assert RULES.visible is visible
