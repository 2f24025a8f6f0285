"""The preconditions and events of each command once turn and phase are right.

Spec §2 step 4 and §3.1-§3.3; DISCARD and hazards are in ``hazards.py``. Each
``_check_*`` is one rule of the spec and returns the first refusal or None;
handlers return events or a ``Rejected``. Refusal messages name a card only
when the caller already knows it.
"""

from __future__ import annotations

from domain.common.decision import Rejected, malformed, reject
from domain.common.rng import Rng
from domain.games.gnoming_a_round.cards import Kind
from domain.games.gnoming_a_round.events import (
    BounceStopped,
    CardBounced,
    CardDrawn,
    CardKept,
    CardRejected,
    DiscardTaken,
    Event,
    InitialCardsFlipped,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    INITIAL_FLIPS,
    PILES,
    POSITIONS,
    Bounce,
    DrawFromPile,
    FlipInitial,
    Keep,
    Reject,
    State,
    StopBounce,
    TakeFromDiscard,
    bounce_eligible,
    loose_card,
    placed,
    shows_mulligan,
)
from domain.games.gnoming_a_round.steps import Script, reshuffle

Outcome = tuple[Event, ...] | Rejected


def check_position(position: int) -> Rejected | None:
    """§1.2: a layout has positions 0..8."""
    if 0 <= position < POSITIONS:
        return None
    return malformed(
        "INVALID_POSITION",
        f"A layout position is 0 to {POSITIONS - 1}, not {position}.",
        "gnoming_a_round/positions",
        position=position,
    )


def check_pile(pile: int | None) -> Rejected | None:
    """§1.3: the discard piles are numbered 1 and 2."""
    if pile is None or pile in PILES:
        return None
    return malformed(
        "INVALID_PILE",
        f"A discard pile is 1 or 2, not {pile}.",
        "gnoming_a_round/discard_piles",
        pile=pile,
    )


def _check_initial_positions(positions: tuple[int, ...]) -> Rejected | None:
    # §2 step 4: "two different positions of their own layout".
    if len(positions) != INITIAL_FLIPS:
        return malformed(
            "WRONG_NUMBER_OF_POSITIONS",
            f"The initial flip turns exactly {INITIAL_FLIPS} cards, "
            f"not {len(positions)}.",
            "gnoming_a_round/initial_flip",
            positions=len(positions),
        )
    for position in positions:
        refused = check_position(position)
        if refused is not None:
            return refused
    if len(set(positions)) != len(positions):
        return malformed(
            "SAME_POSITION_TWICE",
            "The initial flip turns two different positions.",
            "gnoming_a_round/initial_flip",
            position=positions[0],
        )
    return None


def flip_initial(state: State, command: FlipInitial) -> Outcome:
    """§2 step 4: both cards face up for everyone; the last flip starts the turns."""
    refused = _check_initial_positions(command.positions)
    if refused is not None:
        return refused
    layout = state.layouts[command.seat]
    cards = tuple(layout[p].card for p in command.positions)
    events: tuple[Event, ...] = (
        InitialCardsFlipped(command.seat, command.positions, cards),
    )
    if len(state.flipped) + 1 == state.players:
        events += (TurnStarted(state.starting_seat),)
    return events


def draw_from_pile(state: State, command: DrawFromPile, rng: Rng) -> Outcome:
    """§3.1: the top card of the draw pile, after a reshuffle if it is empty (D8)."""
    script = Script(state)
    if not state.draw_pile:
        shuffled = reshuffle(state, rng)
        if shuffled is None:
            return reject(
                "DRAW_PILE_EMPTY",
                "The draw pile is empty and no discarded card can be reshuffled.",
                "gnoming_a_round/draw_pile_exhausted",
            )
        script.emit(shuffled)
    script.emit(CardDrawn(command.seat, script.state.draw_pile[0]))
    return tuple(script.events)


def _check_mulligan(state: State, seat: int, kind: Kind) -> Rejected | None:
    # D12: no mulligan goes into a layout that already shows one.
    if kind is not Kind.MULLIGAN or not shows_mulligan(state.layouts[seat]):
        return None
    return reject(
        "MULLIGAN_ALREADY_SHOWN",
        "A mulligan cannot be kept while the layout already shows a mulligan.",
        "gnoming_a_round/one_mulligan",
    )


def take_from_discard(state: State, command: TakeFromDiscard) -> Outcome:
    """§3.1: the top card of a non-empty discard pile, which must be kept (D9)."""
    refused = check_pile(command.pile)
    if refused is not None:
        return refused
    card = state.top(command.pile)
    if card is None:
        return reject(
            "DISCARD_PILE_EMPTY",
            f"Discard pile {command.pile} is empty.",
            "gnoming_a_round/take_from_discard",
            pile=command.pile,
        )
    # D20: a taken card must be kept, so a mulligan that could not be is refused.
    refused = _check_mulligan(state, command.seat, card.kind)
    if refused is not None:
        return refused
    return (DiscardTaken(command.seat, command.pile, card),)


def keep(state: State, command: Keep) -> Outcome:
    """§3.2: the held card goes face up; the displaced card may bounce (§3.3)."""
    held = loose_card(state)
    refused = check_position(command.position) or _check_mulligan(
        state, command.seat, held.kind
    )
    if refused is not None:
        return refused
    layout = state.layouts[command.seat]
    slot = layout[command.position]
    after = placed(layout, command.position, held)
    return (
        CardKept(
            seat=command.seat,
            position=command.position,
            card=held,
            from_draw_pile=state.in_hand_drawn,
            displaced=slot.card,
            displaced_face_down=not slot.face_up,
            bounce_eligible=bounce_eligible(slot, after),
        ),
    )


def reject_card(state: State, command: Reject) -> Outcome:
    """§3.2: only a card drawn from the draw pile may be rejected (D9)."""
    if not state.in_hand_drawn:
        return reject(
            "MUST_KEEP_TAKEN_CARD",
            "A card taken from a discard pile must be kept.",
            "gnoming_a_round/keep_taken_discard",
        )
    return (CardRejected(command.seat, state.in_hand),)


def bounce(state: State, command: Bounce) -> Outcome:
    """§3.3: the card to move goes to a position not filled this turn (D11)."""
    card = loose_card(state)
    refused = check_position(command.position)
    if refused is not None:
        return refused
    if command.position in state.filled:
        return reject(
            "POSITION_FILLED_THIS_TURN",
            f"Position {command.position} was already filled this turn.",
            "gnoming_a_round/bounce_target",
            position=command.position,
        )
    layout = state.layouts[command.seat]
    slot = layout[command.position]
    after = placed(layout, command.position, card)
    return (
        CardBounced(
            seat=command.seat,
            position=command.position,
            card=card,
            displaced=slot.card,
            displaced_face_down=not slot.face_up,
            bounce_eligible=bounce_eligible(slot, after),
        ),
    )


def stop_bounce(state: State, command: StopBounce) -> Outcome:
    """§3.3: bouncing is optional (D11); the card to move becomes pending."""
    return (BounceStopped(command.seat, loose_card(state)),)
