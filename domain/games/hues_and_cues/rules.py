"""``decide``: the Hues and Cues rules policy (spec §3-§5; DESIGN §2, §4, §6).

Checks run phase, role, step, turn, then the command's preconditions (see
``checks.py``); the first failure is returned. The move that completes a round
(the last guess, or skipping the second cue) also scores it and starts the next
round or ends the game (``steps.py``).
"""

from __future__ import annotations

from typing import assert_never

from domain.common.decision import Accepted, Decision, Rejected
from domain.common.rng import Rng
from domain.common.rules import Outcome
from domain.games.hues_and_cues.checks import (
    check_free,
    check_phase,
    check_role,
    check_square,
    check_step,
    check_target,
    check_turn,
)
from domain.games.hues_and_cues.cues import FIRST_CUE, SECOND_CUE, check_cue
from domain.games.hues_and_cues.events import (
    CardDrawn,
    CueGiven,
    Event,
    FirstCueGiverChosen,
    GameEnded,
    GuessPlaced,
    RoundScored,
    SecondCueSkipped,
    TargetChosen,
    TargetRevealed,
)
from domain.games.hues_and_cues.evolve import evolve
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    Phase,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from domain.games.hues_and_cues.scoring import leaders as top_scorers
from domain.games.hues_and_cues.steps import round_end

_GUESSING = (Phase.FIRST_GUESSES, Phase.SECOND_GUESSES)
# D24: moves made only of these events revealed and drew nothing.
_QUIET = (TargetChosen, CueGiven, GuessPlaced)


def to_move(state: State) -> tuple[int, ...]:
    """Returns the seats the game waits for: the cue giver, the next guesser, none."""
    if state.phase in (Phase.FIRST_CUE, Phase.SECOND_CUE):
        return (state.cue_giver,)
    if state.phase in _GUESSING:
        return state.guess_order[:1]
    return ()


def self_undoable(events: tuple[Event, ...]) -> bool:
    """Tells whether a move revealed and drew nothing, so its mover may take it back.

    D24: a first cue (its target is the cue giver's own secret), a second cue,
    and a guess that does not complete the round. Skipping the second cue and
    the last guess of a round reveal the target and score the round.
    """
    return all(isinstance(event, _QUIET) for event in events)


# T19: what a round end shows everyone, and the card dealt to another seat.
_SHOWN = (TargetRevealed, RoundScored, CardDrawn, FirstCueGiverChosen, GameEnded)


def reveals_to_others(events: tuple[Event, ...]) -> bool:
    """Tells whether a move showed others something hidden, so no takeback crosses it.

    T19: the end of a round reveals the target (§3.5) and deals the next cue
    giver a card only they see (D13); the first cue giver drawn with the seed
    and the end of the game are shown to all. A cue and a guess show nothing
    hidden.
    """
    return any(isinstance(event, _SHOWN) for event in events)


def leaders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats of ``seats`` with the highest score; ties share.

    Mid-game these are the scores of the rounds scored so far, and a tie stays
    shared: no tie-break round (§5.2) will be played. Once the game is over its
    tie-break rounds are in the scores, so this gives its winners.
    """
    return top_scorers(state.scores, seats)


def outcome(state: State) -> Outcome:
    """Returns the scores and, once over, the winners (§5.2)."""
    return Outcome(
        scores=state.scores,
        winners=state.winners if state.finished else (),
        finished=state.finished,
    )


def decide(state: State, command: Command, rng: Rng) -> Decision[Event]:
    """Returns the events a command produces, or why it is refused."""
    refused = (
        check_phase(state) or check_role(state, command) or check_step(state, command)
    )
    if refused is not None:
        return refused
    events: tuple[Event, ...] | Rejected
    match command:
        case GiveFirstCue():
            events = _give_first_cue(state, command)
        case PlaceGuess():
            events = _place_guess(state, command, rng)
        case GiveSecondCue():
            events = _give_second_cue(state, command)
        case SkipSecondCue():
            skipped = SecondCueSkipped(round=state.round, seat=command.seat)
            events = (skipped, *round_end(evolve(state, skipped), rng))
        case _:
            assert_never(command)
    if isinstance(events, Rejected):
        return events
    return Accepted(events)


def _give_first_cue(
    state: State, command: GiveFirstCue
) -> tuple[Event, ...] | Rejected:
    refused = check_square(command.target) or check_target(state, command.target)
    if refused is not None:
        return refused
    cue = check_cue(command.cue, FIRST_CUE, state.cues)
    if isinstance(cue, Rejected):
        return cue
    return (
        TargetChosen(round=state.round, seat=command.seat, target=command.target),
        CueGiven(state.round, command.seat, FIRST_CUE, cue.text, cue.normalized),
    )


def _place_guess(
    state: State, command: PlaceGuess, rng: Rng
) -> tuple[Event, ...] | Rejected:
    refused = (
        check_turn(state, command)
        or check_square(command.square)
        or check_free(state, command.square)
    )
    if refused is not None:
        return refused
    guess_no = 1 if state.phase is Phase.FIRST_GUESSES else 2
    placed = GuessPlaced(state.round, command.seat, guess_no, command.square)
    after = evolve(state, placed)
    if guess_no == 1 or after.guess_order:
        return (placed,)
    return (placed, *round_end(after, rng))


def _give_second_cue(
    state: State, command: GiveSecondCue
) -> tuple[Event, ...] | Rejected:
    cue = check_cue(command.cue, SECOND_CUE, state.cues)
    if isinstance(cue, Rejected):
        return cue
    return (CueGiven(state.round, command.seat, SECOND_CUE, cue.text, cue.normalized),)
