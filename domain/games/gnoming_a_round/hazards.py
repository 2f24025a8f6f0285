"""DISCARD and HAZARD_RESPONSES: the pending card leaves, hazards are answered.

Spec §3.4, §3.5, D5, D7, D22. A discard and the last answer to a hazard also
carry END_OF_TURN (``steps.py``).
"""

from __future__ import annotations

from domain.common.decision import Rejected, reject
from domain.common.rng import Rng
from domain.games.gnoming_a_round.cards import Kind
from domain.games.gnoming_a_round.events import (
    CardDiscarded,
    Event,
    HazardDeclined,
    HazardFlipped,
    HazardRemoved,
)
from domain.games.gnoming_a_round.model import (
    HAZARD_MIN_FACE_DOWN,
    PILES,
    Discard,
    HazardDecline,
    HazardFlip,
    State,
    face_down_count,
    loose_card,
)
from domain.games.gnoming_a_round.moves import Outcome, check_pile, check_position
from domain.games.gnoming_a_round.steps import Script, end_of_turn


def _check_discard_pile(
    state: State, pile: int | None, *, hazard: bool
) -> Rejected | None:
    if hazard and pile is not None:
        return reject(  # §3.4: "no pile is used" (D22)
            "HAZARD_TAKES_NO_PILE",
            "A hazard leaves the round; discard it without naming a pile.",
            "gnoming_a_round/discard_hazard",
            pile=pile,
        )
    if hazard:
        return None
    if pile is None:
        return reject(
            "PILE_REQUIRED",
            "Name discard pile 1 or 2 for the pending card.",
            "gnoming_a_round/discard_pile",
        )
    empty = [number for number in PILES if state.top(number) is None]
    if len(empty) == 1 and pile != empty[0]:
        return reject(  # D7
            "MUST_USE_EMPTY_PILE",
            f"Discard pile {empty[0]} is empty, so the card must go there.",
            "gnoming_a_round/empty_discard_pile",
            pile=pile,
            emptyPile=empty[0],
        )
    return None


def hazard_responders(state: State) -> tuple[int, ...]:
    """§3.5: every other seat with at least two face-down cards, in seat order."""
    return tuple(
        seat
        for seat, layout in enumerate(state.layouts)
        if seat != state.active and face_down_count(layout) >= HAZARD_MIN_FACE_DOWN
    )


def discard(state: State, command: Discard, rng: Rng) -> Outcome:
    """§3.4: a card on a pile, or a hazard out of the round with its effect."""
    card = loose_card(state)
    hazard = card.kind is Kind.HAZARD
    refused = check_pile(command.pile) or _check_discard_pile(
        state, command.pile, hazard=hazard
    )
    if refused is not None:
        return refused
    script = Script(state)
    if command.pile is None:
        responders = hazard_responders(state)
        drawn = state.in_hand_drawn
        script.emit(HazardRemoved(command.seat, card, drawn, responders))
        if responders:
            return tuple(script.events)
    else:
        script.emit(
            CardDiscarded(command.seat, command.pile, card, state.in_hand_drawn)
        )
    return (*script.events, *end_of_turn(script.state, rng))


def hazard_flip(state: State, command: HazardFlip, rng: Rng) -> Outcome:
    """§3.5: a face-down card of one's own layout turns face up; no bounce."""
    refused = check_position(command.position)
    if refused is not None:
        return refused
    slot = state.layouts[command.seat][command.position]
    if slot.face_up:
        return reject(
            "POSITION_FACE_UP",
            f"The card at position {command.position} is already face up.",
            "gnoming_a_round/hazard_flip",
            position=command.position,
        )
    return _answered(
        state, HazardFlipped(command.seat, command.position, slot.card), rng
    )


def hazard_decline(state: State, command: HazardDecline, rng: Rng) -> Outcome:
    """§3.5, D5: answering a hazard is optional."""
    return _answered(state, HazardDeclined(command.seat), rng)


def _answered(state: State, answer: Event, rng: Rng) -> Outcome:
    script = Script(state)
    script.emit(answer)
    if len(script.state.answered) < len(script.state.asked):
        return tuple(script.events)
    return (*script.events, *end_of_turn(script.state, rng))
