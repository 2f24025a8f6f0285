"""Which moves their mover may take back alone (DESIGN §6, D25).

Only a move that drew, revealed and refilled nothing and ended no round may be
taken back alone: taking a discard, rejecting a drawn card, stopping a bounce,
declining a hazard, and keeping, bouncing or discarding a card everyone had
already seen onto a face-up position or a pile.
"""

from __future__ import annotations

from domain.common.decision import Accepted
from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.model import (
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
from tests.factories_gnoming import FRESH, GNOMING_RNG, gnoming_play, gnoming_state

HIDDEN = " ".join(["~5"] * 9)


def undoable(state: State, command: Command) -> bool:
    decision = RULES.decide(state, command, GNOMING_RNG)
    assert isinstance(decision, Accepted), decision
    return RULES.self_undoable(decision.events)


def test_an_initial_flip_reveals_cards() -> None:
    state = gnoming_state((HIDDEN,) * 3, phase=Phase.INITIAL_FLIP, flipped=())
    assert not undoable(state, FlipInitial(0, (0, 1)))


def test_a_draw_shows_a_card_to_the_drawer() -> None:
    assert not undoable(gnoming_state(), DrawFromPile(0))


def test_taking_a_discard_reveals_nothing() -> None:
    assert undoable(gnoming_state(discards=("3 4", "5")), TakeFromDiscard(0, 1))


def test_keeping_a_taken_card_on_a_face_up_card_reveals_nothing() -> None:
    state, _ = gnoming_play(gnoming_state(discards=("3 4", "5")), TakeFromDiscard(0, 1))
    assert undoable(state, Keep(0, 0))
    assert not undoable(state, Keep(0, 4))  # turns a face-down card


def test_keeping_a_drawn_card_shows_it_to_everyone() -> None:
    state, _ = gnoming_play(gnoming_state(), DrawFromPile(0))
    assert not undoable(state, Keep(0, 0))


def test_rejecting_a_drawn_card_keeps_it_private() -> None:
    state, _ = gnoming_play(gnoming_state(), DrawFromPile(0))
    assert undoable(state, Reject(0))


def test_discarding_a_rejected_drawn_card_shows_it() -> None:
    state, _ = gnoming_play(gnoming_state(), DrawFromPile(0), Reject(0))
    assert not undoable(state, Discard(0, 1))


def test_discarding_a_card_everyone_saw_reveals_nothing() -> None:
    assert undoable(gnoming_state(phase=Phase.DISCARD, in_hand="4"), Discard(0, 1))


def test_a_discard_whose_turn_end_refills_a_pile_reveals_a_card() -> None:
    one_left = "1 2 3 4 5 6 7 8 ~9"  # nobody answers the hazard
    state = gnoming_state(
        (FRESH, one_left, one_left),
        phase=Phase.DISCARD,
        in_hand="H",
        discards=("", "5"),
    )
    assert not undoable(state, Discard(0, None))


def test_a_hazard_discard_waiting_for_answers_reveals_nothing() -> None:
    state = gnoming_state(phase=Phase.DISCARD, in_hand="H", discards=("", "5"))
    assert undoable(state, Discard(0, None))


def test_a_discard_that_ends_the_round_reveals_every_layout() -> None:
    state = gnoming_state(phase=Phase.DISCARD, in_hand="4", active=2, trigger=0)
    assert not undoable(state, Discard(2, 1))


def test_stopping_a_bounce_reveals_nothing() -> None:
    state = gnoming_state(phase=Phase.BOUNCE, in_hand="3", filled=(2,))
    assert undoable(state, StopBounce(0))


def test_declining_a_hazard_reveals_nothing_but_flipping_does() -> None:
    state = gnoming_state(
        (FRESH, FRESH, FRESH), phase=Phase.HAZARD_RESPONSES, asked=(1, 2)
    )
    assert undoable(state, HazardDecline(1))
    assert not undoable(state, HazardFlip(1, 4))


# --- T19: what no takeback may cross (shown to others) ---


def reveals(state: State, command: Command) -> bool:
    decision = RULES.decide(state, command, GNOMING_RNG)
    assert isinstance(decision, Accepted), decision
    return RULES.reveals_to_others(decision.events)


def test_turning_up_a_face_down_card_shows_it_to_others() -> None:
    flipping = gnoming_state((HIDDEN,) * 3, phase=Phase.INITIAL_FLIP, flipped=())
    assert reveals(flipping, FlipInitial(0, (0, 1)))
    answering = gnoming_state(
        (FRESH, FRESH, FRESH), phase=Phase.HAZARD_RESPONSES, asked=(1, 2)
    )
    assert reveals(answering, HazardFlip(1, 4))
    assert not reveals(answering, HazardDecline(1))
    taken, _ = gnoming_play(gnoming_state(discards=("3 4", "5")), TakeFromDiscard(0, 1))
    assert reveals(taken, Keep(0, 4))  # displaces a face-down card
    assert not reveals(taken, Keep(0, 0))


def test_a_card_the_mover_drew_is_theirs_to_show() -> None:
    assert not reveals(gnoming_state(), DrawFromPile(0))
    drawn, _ = gnoming_play(gnoming_state(), DrawFromPile(0))
    assert not reveals(drawn, Keep(0, 0))
    rejected, _ = gnoming_play(gnoming_state(), DrawFromPile(0), Reject(0))
    assert not reveals(rejected, Discard(0, 1))


def test_a_refill_from_the_pile_and_a_round_end_show_others_new_cards() -> None:
    one_left = "1 2 3 4 5 6 7 8 ~9"
    refilling = gnoming_state(
        (FRESH, one_left, one_left),
        phase=Phase.DISCARD,
        in_hand="H",
        discards=("", "5"),
    )
    assert reveals(refilling, Discard(0, None))
    ending = gnoming_state(phase=Phase.DISCARD, in_hand="4", active=2, trigger=0)
    assert reveals(ending, Discard(2, 1))
