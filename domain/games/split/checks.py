"""The predicates of ``decide``: why a command is refused now, or None.

The turn state machine's checks (phase, turn, step; spec §4, D14, D19) come
first, then the card and match checks. Every predicate names its rule id
``split/<rule>`` and cites the spec. Messages only name cards the caller chose
or that are public, never another hand.
"""

from __future__ import annotations

from domain.common.decision import Rejected, malformed, reject
from domain.games.split.cards import (
    STRENGTH,
    Card,
    Half,
    MatchType,
    pair_type,
)
from domain.games.split.model import (
    ChoosePenaltyTarget,
    Command,
    Discard,
    DrawFromPile,
    FinishLateMeld,
    MakeMatch,
    Match,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    State,
    TakeFromDiscard,
)


def check_in_hand(state: State, seat: int, *cards: Card) -> Rejected | None:
    """The cards played must be in the player's hand."""
    for card in cards:
        if card not in state.hands[seat]:
            return reject(
                "CARD_NOT_IN_HAND",
                f"{card} is not in your hand.",
                "split/card_in_hand",
                card=card,
            )
    return None


def check_pair(state: State, command: MakeMatch, *, late: bool) -> Rejected | None:
    """§4.3, D1, D6: two different cards, one rank, one L and one R, one card kept."""
    a, b = command.card_a, command.card_b
    if a == b:
        return malformed(
            "SAME_CARD", "A match needs two different cards.", "split/two_cards", card=a
        )
    refused = check_in_hand(state, command.seat, a, b)
    if refused is not None:
        return refused
    if a.rank is not b.rank:
        # D18: ranks are labels; only equal ranks match.
        return reject(
            "RANKS_DIFFER",
            f"{a} and {b} are not of the same rank.",
            "split/same_rank",
            cardA=a,
            cardB=b,
        )
    if a.half is b.half:
        return reject(
            "HALVES_NOT_LEFT_AND_RIGHT",
            f"{a} and {b} are not a left and a right half.",
            "split/left_and_right",
            cardA=a,
            cardB=b,
        )
    return None if late else check_keep_a_card(state, command.seat, 2)


def check_keep_a_card(state: State, seat: int, used: int) -> Rejected | None:
    """D6: a match or upgrade may not leave the player without a card to discard."""
    if len(state.hands[seat]) - used < 1:
        return reject(
            "MUST_KEEP_A_CARD",
            "You must keep a card to discard.",
            "split/keep_a_card",
        )
    return None


def check_upgrade(
    state: State, seat: int, card: Card, match_id: int
) -> Rejected | None:
    """§4.4, D2, D3: the card fits the match and makes it strictly stronger."""
    refused = check_in_hand(state, seat, card)
    if refused is not None:
        return refused
    match = state.match(match_id)
    if match is None:
        return reject(
            "UNKNOWN_MATCH",
            f"There is no match {match_id} on the table.",
            "split/match_exists",
            matchId=match_id,
        )
    if card.rank is not match.rank:
        return reject(
            "UPGRADE_RANK_DIFFERS",
            f"{card} is not of the match's rank {match.rank}.",
            "split/upgrade_rank",
            card=card,
            rank=match.rank,
        )
    if match.type is MatchType.PERFECT:
        return reject(
            "MATCH_IS_PERFECT",
            "A perfect match can never be upgraded.",
            "split/perfect_is_final",
            matchId=match_id,
        )
    if STRENGTH[upgraded_type(match, card)] <= STRENGTH[match.type]:
        return reject(
            "NOT_STRONGER",
            f"{card} would not make match {match_id} stronger.",
            "split/strictly_stronger",
            card=card,
            matchId=match_id,
        )
    return check_keep_a_card(state, seat, 1)


def upgraded_type(match: Match, card: Card) -> MatchType:
    """Returns the type of ``match`` with ``card`` on top of its stack (D2)."""
    if card.half is Half.LEFT:
        return pair_type(card, match.right[-1])
    return pair_type(match.left[-1], card)


def check_take(state: State, command: TakeFromDiscard) -> Rejected | None:
    """§4.1, D5: one play with the key card, and a card at ``index``."""
    if (command.partner is None) == (command.match_id is None):
        return malformed(
            "PLAY_NOT_CHOSEN",
            "Name either a hand card to match or a match to upgrade.",
            "split/use_key_card",
        )
    if not 0 <= command.index < len(state.discard_row):
        return reject(
            "DISCARD_INDEX_OUT_OF_RANGE",
            f"The discard row has no card at index {command.index}.",
            "split/discard_index",
            index=command.index,
            length=len(state.discard_row),
        )
    return None


def check_penalty(state: State, command: ChoosePenaltyTarget) -> Rejected | None:
    """§4.5: the perfect bonus names another player."""
    if not 0 <= command.target < state.players:
        return malformed(
            "TARGET_OUT_OF_RANGE",
            f"There is no seat {command.target}.",
            "split/penalty_target",
            target=command.target,
        )
    if command.target == command.seat:
        return reject(
            "TARGET_IS_SELF",
            "Name another player for the negative box.",
            "split/penalty_other_player",
        )
    return None


def check_swap(state: State, command: ResolveWeakBonus) -> Rejected | None:
    """§4.5, D11: an own match and another's, of the same current type."""
    own_id, other_id = command.own_match_id, command.other_match_id
    if own_id is None and other_id is None:
        return None
    if own_id is None or other_id is None:
        return malformed(
            "SWAP_NEEDS_TWO_MATCHES",
            "A swap names one own match and one other match.",
            "split/weak_swap",
        )
    own, other = state.match(own_id), state.match(other_id)
    if own is None or other is None:
        return reject(
            "UNKNOWN_MATCH",
            "Both matches must be on the table.",
            "split/match_exists",
            matchId=own_id if own is None else other_id,
        )
    if own.owner != command.seat:
        return reject(
            "NOT_YOUR_MATCH",
            f"Match {own_id} is not yours.",
            "split/weak_swap_own",
            matchId=own_id,
        )
    if other.owner == command.seat:
        return reject(
            "NOT_ANOTHER_PLAYERS_MATCH",
            f"Match {other_id} is yours, not another player's.",
            "split/weak_swap_other",
            matchId=other_id,
        )
    if own.type is not other.type:
        return reject(
            "SWAP_TYPES_DIFFER",
            f"Match {own_id} is {own.type} and match {other_id} is {other.type}.",
            "split/weak_swap_same_type",
        )
    return None


def check_discard(state: State, command: Discard) -> Rejected | None:
    """§4.6: the discarded card comes from the hand."""
    return check_in_hand(state, command.seat, command.card)


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
