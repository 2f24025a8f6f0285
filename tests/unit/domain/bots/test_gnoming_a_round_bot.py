"""The Gnoming A Round bot: keep what lowers the layout most, else draw or reject."""

from __future__ import annotations

from domain.bots import choose_move
from domain.games.gnoming_a_round.model import (
    Bounce,
    Discard,
    DrawFromPile,
    HazardFlip,
    Keep,
    Phase,
    Reject,
    StopBounce,
    TakeFromDiscard,
)
from tests.factories_gnoming import FRESH, gnoming_state

GAME = "gnoming_a_round"


def test_a_drawn_negative_replaces_the_highest_face_up_card() -> None:
    state = gnoming_state(
        ("12 2 ~3 ~4 ~5 ~6 ~7 ~8 ~9", FRESH, FRESH),
        phase=Phase.DECIDE,
        in_hand="-3",
        drawn=True,
    )

    assert choose_move(GAME, state, 0) == Keep(0, 0)


def test_a_drawn_hazard_is_rejected() -> None:
    state = gnoming_state(phase=Phase.DECIDE, in_hand="H", drawn=True)

    assert choose_move(GAME, state, 0) == Reject(0)


def test_takes_the_discard_top_that_completes_a_set() -> None:
    state = gnoming_state(
        ("5 5 ~3 ~4 ~5 ~6 ~7 ~8 ~9", FRESH, FRESH), discards=("5", "11")
    )

    assert choose_move(GAME, state, 0) == TakeFromDiscard(0, 1)


def test_draws_when_no_discard_top_helps() -> None:
    state = gnoming_state(discards=("12", "11"))

    assert choose_move(GAME, state, 0) == DrawFromPile(0)


def test_bounces_a_displaced_card_onto_a_higher_one() -> None:
    state = gnoming_state(
        ("7 12 ~3 ~4 ~5 ~6 ~7 ~8 3", FRESH, FRESH),
        phase=Phase.BOUNCE,
        in_hand="7",
        filled=(8,),
    )

    assert choose_move(GAME, state, 0) == Bounce(0, 1)


def test_stops_bouncing_when_no_position_gains() -> None:
    state = gnoming_state(
        ("12 1 ~3 ~4 ~5 ~6 ~7 ~8 3", FRESH, FRESH),
        phase=Phase.BOUNCE,
        in_hand="12",
        filled=(8,),
    )

    assert choose_move(GAME, state, 0) == StopBounce(0)


def test_a_discard_covers_the_lower_top_card() -> None:
    state = gnoming_state(phase=Phase.DISCARD, in_hand="9", discards=("11", "2"))

    assert choose_move(GAME, state, 0) == Discard(0, 2)


def test_a_hazard_is_answered_by_flipping_a_card() -> None:
    state = gnoming_state(
        phase=Phase.HAZARD_RESPONSES, in_hand=None, asked=(1, 2), answered=()
    )

    assert choose_move(GAME, state, 1) == HazardFlip(1, 2)
