"""Views and redaction (spec §3.4, D12; DESIGN §5)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.common.rng import Rng
from domain.common.seats import Operator, Seat, Spectator, Viewer
from domain.games.fool import RULES
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.model import Color, EndReason, FoolConfig, Phase, TrickCard
from domain.games.fool.setup import cards_in_play, initial_state, setup
from domain.games.fool.views import FoolPrivate, view, visible
from tests.factories_fool import fool_card, fool_cards, fool_play_all, fool_state

STATE = fool_state(
    hands=(("G2", "R3"), ("Y4",), ("B5", "W1-1"), ("G9",)),
    leader=3,
    fools=(1,),
    trick=((3, "G7"),),
    scores=(10, -4, 0, -30),
    ten_counts=(1, 0, 0, 0),
)
SECRET = ("G2", "R3", "Y4", "B5", "W1-1", "G9")


def test_a_spectator_sees_the_table_but_no_hand() -> None:
    seen = view(STATE, Spectator())
    assert seen.private is None
    assert seen.hands is None
    public = seen.public
    assert public.hand_sizes == (2, 1, 2, 1)
    assert public.trick == (TrickCard(3, fool_card("G7")),)
    assert public.lead_color is Color.GREEN
    assert (public.fools, public.discs, public.participants) == ((1,), 1, (3, 0, 2))
    assert public.to_move == (0,)
    assert (public.scores, public.ten_counts) == ((10, -4, 0, -30), (1, 0, 0, 0))
    assert public.cards_in_play == cards_in_play(4)
    for name in SECRET:
        assert fool_card(name) not in (*public.trick, *public.played)


def test_a_seat_sees_its_own_hand_only() -> None:
    seen = view(STATE, Seat(2))
    assert seen.private == FoolPrivate(hand=fool_cards("B5", "W1-1"))
    assert seen.hands is None
    assert seen.public == view(STATE, Spectator()).public


def test_an_unknown_seat_sees_what_a_spectator_sees() -> None:
    assert view(STATE, Seat(9)) == view(STATE, Spectator())


def test_the_operator_sees_every_hand() -> None:
    assert view(STATE, Operator()).hands == STATE.hands


def test_the_hands_left_are_shown_to_everybody_once_the_round_is_scored() -> None:
    state = fool_state(hands=(("G2",), ("G3", "R2"), ("G4", "R3"), ("G5", "R4")))
    after, events = fool_play_all(state, [(0, "G2"), (1, "G3"), (2, "G4"), (3, "G5")])
    scored = next(e for e in events if isinstance(e, RoundScored))
    shown = RULES.fold(state, tuple(events[: events.index(scored) + 1]))
    assert shown.phase is Phase.ROUND_OVER
    for viewer in (Spectator(), Seat(1)):
        assert view(shown, viewer).hands == scored.hands_left
        assert visible(scored, viewer) == scored
        assert view(after, viewer).hands is None  # the next deal is secret again


def test_a_finished_game_shows_the_hands_left_to_everybody() -> None:
    finished = replace(STATE, phase=Phase.GAME_OVER, end_reasons=(EndReason.TEN_LIMIT,))
    seen = view(finished, Spectator())
    assert seen.hands == STATE.hands
    assert seen.public.finished
    assert seen.public.to_move == ()


def dealt() -> HandsDealt:
    """Returns the real deal of a five-player game."""
    event = setup(initial_state(5, FoolConfig()), Rng(bytes(32)))[0]
    assert isinstance(event, HandsDealt)
    return event


def test_a_seat_sees_its_own_dealt_hand_and_only_counts_otherwise() -> None:
    event = dealt()
    seen = visible(event, Seat(1))
    assert seen == HandsDealt(1, 0, 1, ((), event.hands[1], (), (), ()), (12,) * 5)


def test_a_spectator_sees_only_the_counts_of_the_deal() -> None:
    assert visible(dealt(), Spectator()) == HandsDealt(1, 0, 1, ((),) * 5, (12,) * 5)


def test_the_operator_sees_every_event_whole() -> None:
    event = dealt()
    assert visible(event, Operator()) is event


PUBLIC: list[Event] = [
    CardPlayed(0, fool_card("G7")),
    TrickResolved((TrickCard(0, fool_card("W1-2")),), None, 0, (0,)),
    RoundScored(1, (10, -5), (10, -5), (1, 0), ((), fool_cards("W1-1"))),
    GameEnded((EndReason.SCORE_LIMIT,)),
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
