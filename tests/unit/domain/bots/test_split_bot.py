"""The Split bot: score-sheet value for every play, then the deadest discard."""

from __future__ import annotations

from dataclasses import replace

from domain.bots import choose_move
from domain.games.split.cards import MatchType
from domain.games.split.model import (
    ChoosePenaltyTarget,
    Discard,
    DrawFromPile,
    MakeMatch,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    TakeFromDiscard,
    Upgrade,
)
from tests.factories_split import split_card, split_match, split_state

GAME = "split"
EMPTY_ROWS = (0,) * 13


def test_makes_the_perfect_match_before_a_weak_one() -> None:
    state = split_state(hands=(["7H-L", "7H-R", "9S-L", "9H-R", "KC-L"], ["2C-L"]))

    assert choose_move(GAME, state, 0) == MakeMatch(
        0, split_card("7H-L"), split_card("7H-R")
    )


def test_takes_over_another_players_match_by_upgrading_it() -> None:
    state = split_state(
        hands=(["7D-R", "KC-L"], ["2C-L"]),
        matches=(split_match(1, 1, ["7H-L"], ["7S-R"]),),
    )

    assert choose_move(GAME, state, 0) == Upgrade(0, split_card("7D-R"), 1)


def test_discards_the_card_whose_partners_are_all_seen() -> None:
    state = split_state(
        hands=(["QH-L", "4C-R"], ["2C-L"]),
        discard_row=("QH-R", "QD-R", "QC-R", "QS-R"),
    )

    assert choose_move(GAME, state, 0) == Discard(0, split_card("QH-L"))


def test_takes_from_the_discard_row_to_make_a_match() -> None:
    state = split_state(
        hands=(["9H-L", "3C-R", "5D-L"], ["2C-L"]),
        phase=Phase.DRAW,
        discard_row=("2S-L", "9H-R", "KD-L"),
    )

    assert choose_move(GAME, state, 0) == TakeFromDiscard(
        0, 1, partner=split_card("9H-L")
    )


def test_draws_rather_than_take_a_long_tail_of_the_discard_row() -> None:
    state = split_state(
        hands=(["9C-L", "3C-R", "5D-L"], ["2C-L"]),
        phase=Phase.DRAW,
        discard_row=("9H-R", "2S-L", "3S-L", "4S-L", "5S-L", "6S-L"),
    )

    assert choose_move(GAME, state, 0) == DrawFromPile(0)


def test_a_perfect_bonus_hits_the_leader() -> None:
    state = split_state(
        hands=(["3C-R"], ["2C-L"], ["4C-L"]),
        phase=Phase.BONUS,
        matches=(split_match(1, 0, ["7H-L"], ["7H-R"]),),
        pending=(MatchType.PERFECT, 1),
        negatives=(0, 3, 0),
    )

    assert choose_move(GAME, state, 0) == ChoosePenaltyTarget(0, 2)


def test_a_weak_bonus_swaps_for_a_rank_row_worth_more() -> None:
    state = split_state(
        hands=(["3C-R"], ["2C-L"]),
        phase=Phase.BONUS,
        matches=(
            split_match(1, 0, ["4H-L"], ["4S-R"]),
            split_match(2, 1, ["KH-L"], ["KS-R"]),
        ),
        pending=(MatchType.WEAK, 1),
    )
    k_row = (*EMPTY_ROWS[:12], 3)
    state = replace(state, marks=(k_row, EMPTY_ROWS))

    assert choose_move(GAME, state, 0) == ResolveWeakBonus(0, 1, 2)


def test_a_strong_bonus_draw_is_declined_mid_round() -> None:
    state = split_state(
        hands=(["3C-R", "8D-L"], ["2C-L"]),
        phase=Phase.BONUS,
        matches=(split_match(1, 0, ["7H-L"], ["7D-R"]),),
        pending=(MatchType.STRONG, 1),
    )

    assert choose_move(GAME, state, 0) == ResolveStrongBonus(0, draw=False)
