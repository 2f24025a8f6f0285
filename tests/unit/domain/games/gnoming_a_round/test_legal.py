"""``legal_moves``: exactly the commands ``decide`` accepts (DESIGN §2, D20)."""

from __future__ import annotations

import pytest

from domain.common.decision import Accepted, Rejected
from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.model import (
    Bounce,
    Command,
    Discard,
    DrawFromPile,
    FlipInitial,
    HazardDecline,
    HazardFlip,
    Keep,
    Phase,
    Reject,
    State,
    StopBounce,
    TakeFromDiscard,
)
from tests.factories_gnoming import FRESH, GNOMING_RNG, gnoming_state

MULLIGAN_SHOWN = "M 2 ~3 ~4 ~5 ~6 ~7 ~8 ~9"
STATES: dict[str, State] = {
    "initial flip": gnoming_state(
        (" ".join(["~5"] * 9),) * 3, phase=Phase.INITIAL_FLIP, flipped=(0,)
    ),
    "draw": gnoming_state(),
    "draw from a reshuffle": gnoming_state(draw="", discards=("1 2", "3")),
    "draw with nothing to reshuffle": gnoming_state(draw="", discards=("1", "3")),
    "draw beside a mulligan": gnoming_state(
        (MULLIGAN_SHOWN, FRESH, FRESH), discards=("M", "4")
    ),
    "decide a drawn card": gnoming_state(phase=Phase.DECIDE, in_hand="4", drawn=True),
    "decide a taken card": gnoming_state(phase=Phase.DECIDE, in_hand="4"),
    "decide a second mulligan": gnoming_state(
        (MULLIGAN_SHOWN, FRESH, FRESH), phase=Phase.DECIDE, in_hand="M", drawn=True
    ),
    "bounce": gnoming_state(phase=Phase.BOUNCE, in_hand="3", filled=(2, 4)),
    "discard": gnoming_state(phase=Phase.DISCARD, in_hand="4"),
    "discard a hazard": gnoming_state(phase=Phase.DISCARD, in_hand="H"),
    "hazard responses": gnoming_state(phase=Phase.HAZARD_RESPONSES, asked=(1, 2)),
}


@pytest.mark.parametrize("name", STATES)
def test_every_legal_move_is_accepted_and_every_other_seat_has_none(
    name: str,
) -> None:
    state = STATES[name]
    seats = RULES.to_move(state)
    for seat in range(state.players):
        moves = list(RULES.legal_moves(state, seat))
        assert bool(moves) == (seat in seats), (seat, moves)
        for move in moves:
            assert isinstance(RULES.decide(state, move, GNOMING_RNG), Accepted), move


EXPECTED: dict[str, list[Command]] = {
    "draw": [DrawFromPile(0), TakeFromDiscard(0, 1), TakeFromDiscard(0, 2)],
    "draw from a reshuffle": [
        DrawFromPile(0),
        TakeFromDiscard(0, 1),
        TakeFromDiscard(0, 2),
    ],
    "draw with nothing to reshuffle": [TakeFromDiscard(0, 1), TakeFromDiscard(0, 2)],
    "draw beside a mulligan": [DrawFromPile(0), TakeFromDiscard(0, 2)],
    "decide a drawn card": [*(Keep(0, p) for p in range(9)), Reject(0)],
    "decide a taken card": [Keep(0, p) for p in range(9)],
    "decide a second mulligan": [Reject(0)],
    "bounce": [*(Bounce(0, p) for p in (0, 1, 3, 5, 6, 7, 8)), StopBounce(0)],
    "discard": [Discard(0, 1), Discard(0, 2)],
    "discard a hazard": [Discard(0, None)],
}


@pytest.mark.parametrize("name", EXPECTED)
def test_the_legal_moves_of_the_active_seat_are_exactly_these(name: str) -> None:
    assert list(RULES.legal_moves(STATES[name], 0)) == EXPECTED[name]


def test_initial_flips_are_every_pair_of_positions_once() -> None:
    moves = list(RULES.legal_moves(STATES["initial flip"], 1))
    assert len(moves) == 36
    assert FlipInitial(1, (0, 8)) in moves
    assert FlipInitial(1, (8, 0)) not in moves
    reversed_pair = RULES.decide(
        STATES["initial flip"], FlipInitial(1, (8, 0)), GNOMING_RNG
    )
    assert isinstance(reversed_pair, Accepted)


def test_a_responder_may_flip_any_face_down_card_or_decline() -> None:
    moves = list(RULES.legal_moves(STATES["hazard responses"], 2))
    assert moves == [*(HazardFlip(2, p) for p in range(2, 9)), HazardDecline(2)]


def test_a_refused_command_is_never_listed() -> None:
    state = STATES["draw with nothing to reshuffle"]
    assert isinstance(RULES.decide(state, DrawFromPile(0), GNOMING_RNG), Rejected)
