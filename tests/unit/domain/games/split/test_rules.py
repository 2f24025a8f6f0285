"""Every precondition of ``decide`` refused with its own reason and rule (spec §4)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.common.decision import Rejected, RejectionKind
from domain.games.split import RULES
from domain.games.split.cards import MatchType
from domain.games.split.model import (
    ChoosePenaltyTarget,
    Command,
    Discard,
    DrawFromPile,
    FinishLateMeld,
    MakeMatch,
    Phase,
    ResolveStrongBonus,
    ResolveWeakBonus,
    SplitConfig,
    State,
    TakeFromDiscard,
    Upgrade,
)
from domain.games.split.setup import check_config
from tests.factories_split import SPLIT_RNG, split_card, split_match, split_state

HAND = ("7H-L", "7D-R", "7S-R", "3C-L", "QS-R")
PLAY = split_state(
    hands=[HAND, ("6S-L", "9C-R")],
    matches=[
        split_match(1, 1, ["5H-L"], ["5S-R"]),  # Ben's weak 5s
        split_match(2, 1, ["KH-L"], ["KH-R"]),  # Ben's perfect Ks
        split_match(3, 0, ["2C-L"], ["2H-R"]),  # Anna's weak 2s
        split_match(4, 1, ["8C-L"], ["8S-R"]),  # Ben's strong 8s
    ],
)
DRAW = replace(PLAY, phase=Phase.DRAW)
SETUP = RULES.initial_state(2, SplitConfig())


def _bonus(kind: MatchType) -> State:
    return split_state(
        hands=[HAND, ("6S-L",)],
        phase=Phase.BONUS,
        pending=(kind, 3),
        matches=PLAY.matches,
    )


LATE = split_state(
    hands=[(), ("6S-L", "6S-R", "4D-L")],
    phase=Phase.LATE_MELD,
    current=0,
)
LATE = replace(LATE, late_melders=(1,))
C = split_card

CASES: list[tuple[str, State, Command, str, str]] = [
    ("not started", SETUP, DrawFromPile(0), "GAME_NOT_STARTED", "split/setup"),
    (
        "game over",
        replace(PLAY, phase=Phase.GAME_OVER),
        DrawFromPile(0),
        "GAME_OVER",
        "split/game_end",
    ),
    ("other seat", DRAW, DrawFromPile(1), "NOT_YOUR_TURN", "split/turn_order"),
    (
        "bonus first",
        _bonus(MatchType.WEAK),
        Discard(0, C("3C-L")),
        "BONUS_PENDING",
        "split/bonus_first",
    ),
    (
        "wrong bonus",
        _bonus(MatchType.WEAK),
        ResolveStrongBonus(0, draw=True),
        "WRONG_BONUS_TYPE",
        "split/bonus_type",
    ),
    (
        "no bonus",
        PLAY,
        ChoosePenaltyTarget(0, 1),
        "NO_BONUS_PENDING",
        "split/bonus_type",
    ),
    (
        "late meld discard",
        LATE,
        Discard(1, C("4D-L")),
        "LATE_MELD_MATCHES_ONLY",
        "split/late_meld",
    ),
    ("no late meld", PLAY, FinishLateMeld(0), "NOT_IN_LATE_MELD", "split/late_meld"),
    (
        "draw first",
        DRAW,
        Discard(0, C("3C-L")),
        "MUST_DRAW_FIRST",
        "split/draw_first",
    ),
    ("drew already", PLAY, DrawFromPile(0), "ALREADY_DREW", "split/one_draw"),
    (
        "not in hand",
        PLAY,
        Discard(0, C("6S-L")),
        "CARD_NOT_IN_HAND",
        "split/card_in_hand",
    ),
    (
        "same card",
        PLAY,
        MakeMatch(0, C("7H-L"), C("7H-L")),
        "SAME_CARD",
        "split/two_cards",
    ),
    (
        "ranks differ",
        PLAY,
        MakeMatch(0, C("3C-L"), C("QS-R")),
        "RANKS_DIFFER",
        "split/same_rank",
    ),
    (
        "two rights",
        PLAY,
        MakeMatch(0, C("7D-R"), C("7S-R")),
        "HALVES_NOT_LEFT_AND_RIGHT",
        "split/left_and_right",
    ),
    (
        "keep a card",
        split_state(hands=[("7H-L", "7D-R"), ("6S-L",)]),
        MakeMatch(0, C("7H-L"), C("7D-R")),
        "MUST_KEEP_A_CARD",
        "split/keep_a_card",
    ),
    (
        "no such match",
        PLAY,
        Upgrade(0, C("7H-L"), 9),
        "UNKNOWN_MATCH",
        "split/match_exists",
    ),
    (
        "upgrade rank",
        PLAY,
        Upgrade(0, C("7H-L"), 1),
        "UPGRADE_RANK_DIFFERS",
        "split/upgrade_rank",
    ),
    (
        "perfect is final",
        split_state(hands=[("KD-L", "3C-L"), ("6S-L",)], matches=PLAY.matches),
        Upgrade(0, C("KD-L"), 2),
        "MATCH_IS_PERFECT",
        "split/perfect_is_final",
    ),
    (
        "not stronger",
        split_state(hands=[("8H-L", "3C-L"), ("6S-L",)], matches=PLAY.matches),
        Upgrade(0, C("8H-L"), 4),
        "NOT_STRONGER",
        "split/strictly_stronger",
    ),
    (
        "upgrade keeps a card",
        split_state(hands=[("5S-L",), ("6S-L",)], matches=PLAY.matches),
        Upgrade(0, C("5S-L"), 1),
        "MUST_KEEP_A_CARD",
        "split/keep_a_card",
    ),
    (
        "no play",
        DRAW,
        TakeFromDiscard(0, 0),
        "PLAY_NOT_CHOSEN",
        "split/use_key_card",
    ),
    (
        "index",
        DRAW,
        TakeFromDiscard(0, 1, partner=C("7H-L")),
        "DISCARD_INDEX_OUT_OF_RANGE",
        "split/discard_index",
    ),
    (
        "key card unmatched",
        DRAW,
        TakeFromDiscard(0, 0, partner=C("7D-R")),
        "RANKS_DIFFER",
        "split/same_rank",
    ),
    (
        "target off the table",
        _bonus(MatchType.PERFECT),
        ChoosePenaltyTarget(0, 5),
        "TARGET_OUT_OF_RANGE",
        "split/penalty_target",
    ),
    (
        "target self",
        _bonus(MatchType.PERFECT),
        ChoosePenaltyTarget(0, 0),
        "TARGET_IS_SELF",
        "split/penalty_other_player",
    ),
    (
        "half a swap",
        _bonus(MatchType.WEAK),
        ResolveWeakBonus(0, 3, None),
        "SWAP_NEEDS_TWO_MATCHES",
        "split/weak_swap",
    ),
    (
        "swap unknown",
        _bonus(MatchType.WEAK),
        ResolveWeakBonus(0, 3, 9),
        "UNKNOWN_MATCH",
        "split/match_exists",
    ),
    (
        "swap not own",
        _bonus(MatchType.WEAK),
        ResolveWeakBonus(0, 1, 4),
        "NOT_YOUR_MATCH",
        "split/weak_swap_own",
    ),
    (
        "swap with self",
        _bonus(MatchType.WEAK),
        ResolveWeakBonus(0, 3, 3),
        "NOT_ANOTHER_PLAYERS_MATCH",
        "split/weak_swap_other",
    ),
    (
        "swap types",
        _bonus(MatchType.WEAK),
        ResolveWeakBonus(0, 3, 4),
        "SWAP_TYPES_DIFFER",
        "split/weak_swap_same_type",
    ),
]


@pytest.mark.parametrize(
    ("state", "command", "reason", "rule"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_broken_precondition_is_refused_and_changes_nothing(
    state: State, command: Command, reason: str, rule: str
) -> None:
    before = replace(state)
    decision = RULES.decide(state, command, SPLIT_RNG)
    assert isinstance(decision, Rejected)
    assert (decision.reason, decision.rule) == (reason, rule)
    assert state == before


def test_every_reason_has_its_own_rule() -> None:
    rules: dict[str, set[str]] = {}
    for _, _, _, reason, rule in CASES:
        rules.setdefault(reason, set()).add(rule)
    assert all(len(found) == 1 for found in rules.values()), rules


def test_a_table_of_seven_or_a_dealer_off_the_table_is_refused() -> None:
    seven = check_config(SplitConfig(), 7)
    dealer = check_config(SplitConfig(first_dealer=3), 3)
    assert seven is not None
    assert seven.reason == "PLAYER_COUNT_OUT_OF_RANGE"
    assert seven.kind is RejectionKind.MALFORMED
    assert dealer is not None
    assert dealer.reason == "FIRST_DEALER_OUT_OF_RANGE"
    assert check_config(SplitConfig(first_dealer=5), 6) is None
