"""``decide``: the Gnoming A Round rules policy (spec §2-§4; DESIGN §2).

Checks run seat, then game state, then turn and phase, then the command's own
preconditions (``moves.py``); the first failure is returned. A move that ends
a turn also carries END_OF_TURN, and one that ends a round carries the round's
scoring and the next deal or the game's end (``steps.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import assert_never

from domain.common.decision import (
    Accepted,
    Decision,
    Rejected,
    RejectionKind,
    reject,
)
from domain.common.rng import Rng
from domain.common.rules import Outcome
from domain.games.gnoming_a_round import hazards, moves
from domain.games.gnoming_a_round.events import (
    BounceStopped,
    CardBounced,
    CardDiscarded,
    CardKept,
    CardRejected,
    DiscardPileRefilled,
    DiscardTaken,
    Event,
    GameEnded,
    HazardDeclined,
    HazardFlipped,
    HazardRemoved,
    HazardTurnedUp,
    InitialCardsFlipped,
    RoundDealt,
    RoundScored,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    ROUNDS,
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
from domain.games.gnoming_a_round.scoring import winners

# The phase each command belongs to (§2 step 4, §3).
PHASE_OF: Mapping[type[Command], Phase] = MappingProxyType(
    {
        FlipInitial: Phase.INITIAL_FLIP,
        DrawFromPile: Phase.DRAW,
        TakeFromDiscard: Phase.DRAW,
        Keep: Phase.DECIDE,
        Reject: Phase.DECIDE,
        Bounce: Phase.BOUNCE,
        StopBounce: Phase.BOUNCE,
        Discard: Phase.DISCARD,
        HazardFlip: Phase.HAZARD_RESPONSES,
        HazardDecline: Phase.HAZARD_RESPONSES,
    }
)
_OPEN_PHASES = (Phase.INITIAL_FLIP, Phase.HAZARD_RESPONSES)


def to_move(state: State) -> tuple[int, ...]:
    """Returns every seat that may act now, in seat order."""
    match state.phase:
        case Phase.INITIAL_FLIP:
            return tuple(s for s in range(state.players) if s not in state.flipped)
        case Phase.HAZARD_RESPONSES:
            return tuple(s for s in state.asked if s not in state.answered)
        case Phase.DRAW | Phase.DECIDE | Phase.BOUNCE | Phase.DISCARD:
            return (state.active,)
        case Phase.SETUP | Phase.GAME_OVER:
            return ()
        case _:
            assert_never(state.phase)


# D25: events that never reveal or draw anything.
_SILENT = (DiscardTaken, CardRejected, BounceStopped, HazardDeclined, TurnStarted)


def self_undoable(events: tuple[Event, ...]) -> bool:
    """Tells whether a move revealed nothing, so its mover may take it back alone.

    DESIGN §6, D25: taking a discard, rejecting a drawn card, stopping a bounce,
    declining a hazard, keeping or bouncing a card everyone had seen onto a
    face-up card, and discarding a card everyone had seen, as long as the move
    drew, revealed and refilled nothing and ended no round.
    """
    return all(_silent(event) for event in events)


def _silent(event: Event) -> bool:
    match event:
        case CardKept():
            return not (event.from_draw_pile or event.displaced_face_down)
        case CardBounced():
            return not event.displaced_face_down
        case CardDiscarded() | HazardRemoved():
            return not event.from_draw_pile
        case _:
            return isinstance(event, _SILENT)


# T19: events that turn up a card nobody had seen (face down or on the pile).
_TURNED_UP = (
    RoundDealt,
    InitialCardsFlipped,
    HazardFlipped,
    HazardTurnedUp,
    DiscardPileRefilled,
    RoundScored,
    GameEnded,
)


def reveals_to_others(events: tuple[Event, ...]) -> bool:
    """Tells whether a move showed others something hidden, so no takeback crosses it.

    T19: a face-down card turned up (the first flips, a hazard's flip, a card
    displaced from face down), a card turned up from the draw pile (a refill, a
    hazard set aside, the deal's discards) and a round's scoring, which shows
    every layout. A card the mover drew, then kept or discarded, was theirs to
    show: only they had seen it, so consent is enough to take that back.
    """
    return any(_turns_up(event) for event in events)


def _turns_up(event: Event) -> bool:
    match event:
        case CardKept() | CardBounced():
            return event.displaced_face_down
        case _:
            return isinstance(event, _TURNED_UP)


def leaders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats of ``seats`` with the lowest total of the rounds scored.

    The round in play counts nothing: its layouts are partly face down. The
    tie-break on the third-round score (D16) applies once that round is scored,
    which ends the game; before, seats tied on their totals share the lead.
    """
    third = (
        state.round_scores[ROUNDS - 1] if len(state.round_scores) >= ROUNDS else None
    )
    return winners(state.totals, third, seats)


def outcome(state: State) -> Outcome:
    """Returns the totals, the winners once over (lowest total, D16) and if over."""
    return Outcome(
        scores=state.totals,
        winners=state.winners if state.finished else (),
        finished=state.finished,
    )


def decide(state: State, command: Command, rng: Rng) -> Decision[Event]:
    """Returns the events a command produces, or why it is refused."""
    refused = _check_seat(state, command) or _check_turn(state, command)
    if refused is not None:
        return refused
    result: moves.Outcome
    match command:
        case FlipInitial():
            result = moves.flip_initial(state, command)
        case DrawFromPile():
            result = moves.draw_from_pile(state, command, rng)
        case TakeFromDiscard():
            result = moves.take_from_discard(state, command)
        case Keep():
            result = moves.keep(state, command)
        case Reject():
            result = moves.reject_card(state, command)
        case Bounce():
            result = moves.bounce(state, command)
        case StopBounce():
            result = moves.stop_bounce(state, command)
        case Discard():
            result = hazards.discard(state, command, rng)
        case HazardFlip():
            result = hazards.hazard_flip(state, command, rng)
        case HazardDecline():
            result = hazards.hazard_decline(state, command, rng)
        case _:
            assert_never(command)
    return result if isinstance(result, Rejected) else Accepted(result)


def _check_seat(state: State, command: Command) -> Rejected | None:
    if 0 <= command.seat < state.players:
        return None
    return reject(
        "NOT_A_PARTICIPANT",
        f"Seat {command.seat} is not at this table.",
        "gnoming_a_round/seats",
        RejectionKind.NOT_A_PARTICIPANT,
        seat=command.seat,
    )


def _wrong_phase(state: State, expected: Phase) -> Rejected:
    return reject(
        "WRONG_PHASE",
        f"The game is in phase {state.phase.value}, "
        f"not {expected.value}, so this move is not possible now.",
        "gnoming_a_round/turn_phases",
        phase=state.phase.value,
        expected=expected.value,
    )


def _check_turn(state: State, command: Command) -> Rejected | None:
    if state.phase is Phase.GAME_OVER:
        return reject("GAME_OVER", "The game is over.", "gnoming_a_round/game_end")
    if state.phase is Phase.SETUP:
        return reject(
            "GAME_NOT_STARTED",
            "The cards have not been dealt yet.",
            "gnoming_a_round/setup",
        )
    expected = PHASE_OF[type(command)]
    if expected is Phase.INITIAL_FLIP:
        return _check_initial_flip(state, command.seat)
    if expected is Phase.HAZARD_RESPONSES:
        return _check_responder(state, command.seat)
    if state.phase in _OPEN_PHASES:
        return _wrong_phase(state, expected)
    if command.seat != state.active:
        return reject(
            "NOT_YOUR_TURN",
            f"It is seat {state.active}'s turn, not seat {command.seat}'s.",
            "common/turn_order",
            currentPlayer=state.active,
            seat=command.seat,
        )
    if state.phase is not expected:
        return _wrong_phase(state, expected)
    return None


def _check_initial_flip(state: State, seat: int) -> Rejected | None:
    if state.phase is not Phase.INITIAL_FLIP:
        return _wrong_phase(state, Phase.INITIAL_FLIP)
    if seat in state.flipped:
        return reject(
            "ALREADY_FLIPPED",
            f"Seat {seat} has already turned its initial cards this round.",
            "gnoming_a_round/initial_flip",
            seat=seat,
        )
    return None


def _check_responder(state: State, seat: int) -> Rejected | None:
    if state.phase is not Phase.HAZARD_RESPONSES:
        return _wrong_phase(state, Phase.HAZARD_RESPONSES)
    if seat in state.answered:
        return reject(
            "ALREADY_RESPONDED",
            f"Seat {seat} has already answered this hazard.",
            "gnoming_a_round/hazard_responses",
            seat=seat,
        )
    if seat not in state.asked:
        return reject(
            "NOT_ASKED_TO_RESPOND",
            f"Seat {seat} is not asked to answer this hazard: it is the active "
            "player or has fewer than 2 face-down cards.",
            "gnoming_a_round/hazard_responses",
            seat=seat,
        )
    return None
