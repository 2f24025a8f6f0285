"""The predicates of ``decide``: why a command is refused now, or None (spec §3, §4).

Order (D23): the game's phase, then the seat's role (cue giver or guesser),
then the round's step, then whose turn it is, then the command's own
preconditions. Rule ids are ``hues_and_cues/<rule>``. No message names the
card's squares or the target: only the cue giver could trigger those checks,
and even so a message never lists them.
"""

from __future__ import annotations

from domain.common.decision import Rejected, malformed, reject
from domain.games.hues_and_cues.board import Square, on_board
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    Phase,
    PlaceGuess,
    SkipSecondCue,
    State,
)

_GUESSING = (Phase.FIRST_GUESSES, Phase.SECOND_GUESSES)


def check_phase(state: State) -> Rejected | None:
    """Refuses every command before the opening events and after the game."""
    if state.phase is Phase.SETUP:
        return reject(
            "GAME_NOT_STARTED",
            "The first round has not started yet.",
            "hues_and_cues/setup",
        )
    if state.phase is Phase.GAME_OVER:
        return reject("GAME_OVER", "The game is over.", "hues_and_cues/game_end")
    return None


def check_role(state: State, command: Command) -> Rejected | None:
    """§3.2-§3.4: the cue giver gives cues and never guesses; guessers only guess."""
    if isinstance(command, PlaceGuess):
        if command.seat == state.cue_giver:
            return reject(
                "CUE_GIVER_CANNOT_GUESS",
                "The cue giver places no pieces this round.",
                "hues_and_cues/cue_giver_no_guess",
                seat=command.seat,
            )
        return None
    if command.seat != state.cue_giver:
        return reject(
            "NOT_THE_CUE_GIVER",
            f"Only the cue giver, seat {state.cue_giver}, gives cues this round.",
            "hues_and_cues/cue_giver",
            seat=command.seat,
            cueGiver=state.cue_giver,
        )
    return None


def check_step(state: State, command: Command) -> Rejected | None:
    """Refuses a command the round's state machine (§3) does not expect now."""
    match command:
        case GiveFirstCue():
            if state.phase is not Phase.FIRST_CUE:
                return reject(
                    "FIRST_CUE_ALREADY_GIVEN",
                    "The first cue of this round has already been given.",
                    "hues_and_cues/first_cue_once",
                )
        case GiveSecondCue() | SkipSecondCue():
            if state.phase in (Phase.FIRST_CUE, Phase.FIRST_GUESSES):
                return reject(
                    "SECOND_CUE_TOO_EARLY",
                    "The second cue comes after every first guess is placed.",
                    "hues_and_cues/second_cue_after_guesses",
                    phase=state.phase,
                )
            if state.phase is not Phase.SECOND_CUE:
                return reject(
                    "SECOND_CUE_ALREADY_GIVEN",
                    "The second cue of this round has already been given.",
                    "hues_and_cues/second_cue_once",
                )
        case PlaceGuess():
            if state.phase not in _GUESSING:
                return reject(
                    "WAITING_FOR_CUE",
                    "Guesses are placed after a cue; the cue giver is to act.",
                    "hues_and_cues/guess_after_cue",
                    phase=state.phase,
                )
    return None


def check_turn(state: State, command: PlaceGuess) -> Rejected | None:
    """§3.3, D6: guessers place in the round's order, one at a time."""
    if command.seat != state.guess_order[0]:
        return reject(
            "NOT_YOUR_TURN",
            f"It is seat {state.guess_order[0]}'s turn to guess, "
            f"not seat {command.seat}'s.",
            "hues_and_cues/guess_order",
            currentPlayer=state.guess_order[0],
            seat=command.seat,
        )
    return None


def check_square(square: Square) -> Rejected | None:
    """§1.1: a square is one of the 480 (A1 to P30)."""
    if not on_board(square.row, square.column):
        return malformed(
            "SQUARE_OFF_BOARD",
            f"Row {square.row} and column {square.column} are not on the board.",
            "hues_and_cues/square_on_board",
            row=square.row,
            column=square.column,
        )
    return None


def check_target(state: State, target: Square) -> Rejected | None:
    """§3.2, D12: the target is one of the drawn card's four squares."""
    if state.config.free_choice_variant or state.card is None:
        return None
    if target not in CARDS[state.card].squares:
        # The message never lists the card's squares (§3.6).
        return reject(
            "TARGET_NOT_ON_CARD",
            f"{target} is not one of the four squares on your card.",
            "hues_and_cues/target_on_card",
            target=target,
        )
    return None


def check_free(state: State, square: Square) -> Rejected | None:
    """§3.3: one piece per square in a round, first and second guesses alike."""
    if any(piece.square == square for piece in state.pieces):
        return reject(
            "SQUARE_TAKEN",
            f"{square} already holds a piece this round.",
            "hues_and_cues/one_piece_per_square",
            square=square,
        )
    return None
