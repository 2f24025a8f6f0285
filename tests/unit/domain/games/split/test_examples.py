"""The worked examples of spec §5.1, played through ``decide`` and ``evolve``."""

from __future__ import annotations

from dataclasses import replace

from domain.common.decision import Rejected
from domain.games.split import RULES
from domain.games.split.cards import MatchType, Rank, rank_index
from domain.games.split.events import (
    CardDiscarded,
    Credit,
    DiscardTaken,
    EndReason,
    GameEnded,
    MatchMade,
    MatchUpgraded,
    NegativeMarked,
    RoundEnded,
    RoundScored,
)
from domain.games.split.model import (
    ChoosePenaltyTarget,
    Discard,
    Phase,
    State,
    TakeFromDiscard,
    Upgrade,
)
from domain.games.split.scoring import total
from tests.factories_split import (
    SPLIT_RNG,
    accepted,
    split_card,
    split_cards,
    split_match,
    split_state,
)

ANNA, BEN, CARLA, DAN = 0, 1, 2, 3

C = split_card


def _rows(**marks: int) -> tuple[int, ...]:
    rows = [0] * len(Rank)
    for name, count in marks.items():
        rows[rank_index(Rank(name.removeprefix("r")))] = count
    return tuple(rows)


def test_taking_from_the_discard_row_makes_a_perfect_match_and_a_penalty() -> None:
    state = split_state(
        hands=[("9H-L", "3C-L", "5D-R"), ("6S-L",)],
        phase=Phase.DRAW,
        discard_row=("4S-L", "9H-R", "KD-L", "2C-R"),
    )

    events, after = accepted(
        state, TakeFromDiscard(ANNA, 1, partner=split_card("9H-L"))
    )

    assert events == (
        DiscardTaken(ANNA, 1, split_cards("9H-R", "KD-L", "2C-R")),
        MatchMade(ANNA, 1, C("9H-L"), C("9H-R"), MatchType.PERFECT, late=False),
    )
    assert after.discard_row == split_cards("4S-L")
    assert after.phase is Phase.BONUS
    marked, after = accepted(after, ChoosePenaltyTarget(ANNA, BEN))
    assert marked == (NegativeMarked(BEN, ANNA),)
    assert after.negatives == (0, 1)
    assert after.phase is Phase.PLAY


def _bens_weak_match(card: str) -> tuple[Upgrade, State]:
    state = split_state(
        hands=[(card, "3C-L"), ("6S-L",)],
        matches=[split_match(1, BEN, ["7H-L"], ["7S-R"])],
    )
    command = Upgrade(ANNA, split_card(card), 1)
    return command, state


def test_the_perfect_upgrade_covers_the_right_half_and_takes_the_match() -> None:
    command, state = _bens_weak_match("7H-R")
    events, after = accepted(state, command)
    assert events == (
        MatchUpgraded(
            ANNA, 1, split_card("7H-R"), MatchType.WEAK, MatchType.PERFECT, BEN
        ),
    )
    match = after.matches[0]
    assert (match.owner, match.type) == (ANNA, MatchType.PERFECT)
    assert match.right == split_cards("7S-R", "7H-R")
    assert after.pending is not None
    assert after.pending.type is MatchType.PERFECT


def test_the_strong_upgrade_is_legal_from_weak_and_gives_a_strong_bonus() -> None:
    command, state = _bens_weak_match("7D-R")
    _, after = accepted(state, command)
    assert after.matches[0].owner == ANNA
    assert after.matches[0].type is MatchType.STRONG
    assert after.pending is not None
    assert after.pending.type is MatchType.STRONG


def test_an_upgrade_to_a_weaker_pair_is_refused() -> None:
    state = split_state(
        hands=[("7C-L", "3C-L"), ("6S-L",)],
        matches=[split_match(1, BEN, ["7H-L"], ["7D-R"])],
    )
    decision = RULES.decide(state, Upgrade(ANNA, split_card("7C-L"), 1), SPLIT_RNG)
    assert isinstance(decision, Rejected)
    assert decision.reason == "NOT_STRONGER"


def test_at_the_end_of_a_round_dan_marks_his_matches_and_his_cards() -> None:
    state = split_state(
        hands=[("2H-L", "3H-L"), ("4H-L",), ("QC-R",), ("5C-L", "6C-L", "8D-R")],
        current=CARLA,
        matches=[
            split_match(1, DAN, ["KH-L"], ["KS-R"]),
            split_match(2, DAN, ["KD-L"], ["KD-R"]),
            split_match(3, DAN, ["4C-L"], ["4S-R"]),
        ],
        turns=(2, 2, 2, 1),
        negatives=(0, 0, 0, 1),  # Anna's perfect bonus earlier this round
    )

    events, after = accepted(state, Discard(CARLA, split_card("QC-R")))

    assert events[:2] == (
        CardDiscarded(CARLA, split_card("QC-R")),
        RoundEnded(1, EndReason.WENT_OUT, CARLA, (), CARLA),
    )
    scored = events[2]
    assert isinstance(scored, RoundScored)
    assert scored.credits == (
        Credit(DAN, Rank.KING, MatchType.WEAK),
        Credit(DAN, Rank.KING, MatchType.PERFECT),
        Credit(DAN, Rank.FOUR, MatchType.STRONG),
    )
    assert after.marks[DAN] == _rows(rK=2, r4=1)
    assert after.negatives[DAN] == 4
    assert after.round == 2
    assert after.dealer == CARLA


def test_the_final_totals_are_minus_three_for_dan_and_eight_for_erin() -> None:
    dan = _rows(rK=4, r7=2, r4=1, rA=1)
    erin = _rows(rK=2, rQ=2, r3=3)
    assert total(dan, 9) == -3
    assert total(erin, 2) == 8
    # The same through the last round's end: Erin goes out, Dan still owns a
    # K match and holds one card.
    state = replace(
        split_state(
            hands=[("5C-L",), ("QC-R",)],
            current=1,
            matches=[split_match(1, 0, ["KH-L"], ["KS-R"])],
            turns=(3, 3),
            round_number=3,
            negatives=(8, 2),
        ),
        marks=(_rows(rK=3, r7=2, r4=1, rA=1), erin),
    )
    events, after = accepted(state, Discard(1, split_card("QC-R")))
    assert events[-1] == GameEnded(totals=(-3, 8), winners=(1,))
    assert after.finished
    assert RULES.outcome(after).scores == (-3, 8)
    assert RULES.outcome(after).winners == (1,)
