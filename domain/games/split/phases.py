"""The turn state machine's predicates of ``decide`` (spec §4, D14, D19).

Each returns why a command is refused now, or None; rule ids ``split/<rule>``.
"""

from __future__ import annotations

from domain.common.decision import Rejected, reject
from domain.games.split.cards import MatchType
from domain.games.split.model import (
    ChoosePenaltyTarget,
    Command,
    DrawFromPile,
    FinishLateMeld,
    MakeMatch,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    State,
    TakeFromDiscard,
)

_BONUS_TYPES: dict[type, MatchType] = {
    ChoosePenaltyTarget: MatchType.PERFECT,
    ResolveStrongBonus: MatchType.STRONG,
    ResolveWeakBonus: MatchType.WEAK,
}


def check_phase(state: State) -> Rejected | None:
    """Refuses every command before the deal and after the game."""
    if state.phase is Phase.SETUP:
        return reject(
            "GAME_NOT_STARTED", "The cards have not been dealt yet.", "split/setup"
        )
    if state.phase is Phase.GAME_OVER:
        return reject("GAME_OVER", "The game is over.", "split/game_end")
    return None


def check_turn(seat: int, waiting: tuple[int, ...]) -> Rejected | None:
    """§4, §4.7: only the seat to act (or the next late melder) may act."""
    if seat not in waiting:
        return reject(
            "NOT_YOUR_TURN",
            f"Seat {seat} may not act now.",
            "split/turn_order",
            seat=seat,
            currentPlayer=waiting[0] if waiting else "",
        )
    return None


def check_step(state: State, command: Command) -> Rejected | None:
    """Refuses a command the turn state machine of §4 does not allow now."""
    bonus = _BONUS_TYPES.get(type(command))
    if state.pending is not None:
        return _check_bonus(state.pending.type, bonus)
    if bonus is not None:
        return reject(
            "NO_BONUS_PENDING", "There is no bonus to resolve.", "split/bonus_type"
        )
    if state.phase is Phase.LATE_MELD:
        if not isinstance(command, MakeMatch | FinishLateMeld):
            # D14: late melders may only lay down matches, then finish.
            return reject(
                "LATE_MELD_MATCHES_ONLY",
                "During the late meld you may only make matches or finish.",
                "split/late_meld",
            )
        return None
    return _check_turn_step(state, command)


def _check_bonus(pending: MatchType, bonus: MatchType | None) -> Rejected | None:
    if bonus is None:
        # D19: the pending bonus comes before any other command.
        return reject(
            "BONUS_PENDING",
            f"Resolve the {pending} bonus first.",
            "split/bonus_first",
            bonus=pending,
        )
    if bonus is not pending:
        return reject(
            "WRONG_BONUS_TYPE",
            f"The pending bonus is {pending}, not {bonus}.",
            "split/bonus_type",
            bonus=pending,
        )
    return None


def _check_turn_step(state: State, command: Command) -> Rejected | None:
    if isinstance(command, FinishLateMeld):
        return reject(
            "NOT_IN_LATE_MELD", "No late meld is under way.", "split/late_meld"
        )
    drawing = isinstance(command, DrawFromPile | TakeFromDiscard)
    if state.phase is Phase.DRAW and not drawing:
        # §4.1: every turn starts by drawing or taking from the discard row.
        return reject(
            "MUST_DRAW_FIRST",
            "Draw or take from the discard row first.",
            "split/draw_first",
        )
    if state.phase is Phase.PLAY and drawing:
        return reject(
            "ALREADY_DREW", "You have already drawn this turn.", "split/one_draw"
        )
    return None
