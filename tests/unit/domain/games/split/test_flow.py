"""Deal, round ends, late meld, dealers, ties, self-undo and redaction (spec §3-§5)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.common.seats import Operator, Seat, Spectator
from domain.games.split import RULES
from domain.games.split.cards import MatchType
from domain.games.split.events import (
    CardDrawn,
    EndReason,
    LateMeldFinished,
    MatchMade,
    NegativeMarked,
    RoundDealt,
    RoundEnded,
    RoundScored,
    StrongBonusDeclined,
)
from domain.games.split.model import (
    Discard,
    DrawFromPile,
    FinishLateMeld,
    MakeMatch,
    Phase,
    ResolveStrongBonus,
    SplitConfig,
    TakeFromDiscard,
)
from domain.games.split.scoring import winners
from domain.games.split.setup import DECK, deal, shuffle_label
from tests.factories_split import (
    SPLIT_RNG,
    accepted,
    split_card,
    split_cards,
    split_match,
    split_state,
)


@pytest.mark.parametrize("players", range(2, 7))
def test_the_deal_gives_nine_cards_each_one_discard_and_the_rest_face_down(
    players: int,
) -> None:
    dealt = deal(players, 1, 0, SPLIT_RNG)
    shuffled = SPLIT_RNG.shuffle(shuffle_label(1), DECK)
    assert dealt.hand_sizes == (9,) * players
    assert dealt.discard == shuffled[9 * players]
    assert dealt.draw_pile == tuple(shuffled[9 * players + 1 :])
    assert dealt.draw_pile_size == 104 - 9 * players - 1
    assert set(dealt.hands[0]) == set(shuffled[:9])
    assert len(set(DECK)) == 104


C = split_card


def test_drawing_the_last_card_ends_the_round_and_moves_the_deal_left() -> None:
    state = split_state(
        hands=[("3C-L",), ("6S-L",), ("9D-R",)],
        phase=Phase.DRAW,
        draw_pile=("QH-L",),
        dealer=2,
    )
    events, after = accepted(state, DrawFromPile(0))
    assert events[0] == CardDrawn(0, split_card("QH-L"), bonus=False)
    assert events[1] == RoundEnded(1, EndReason.DRAW_PILE_EMPTY, 0, (), 0)
    assert isinstance(events[2], RoundScored)
    assert isinstance(events[3], RoundDealt)
    assert (after.round, after.dealer, after.current) == (2, 0, 1)  # D13
    assert after.negatives == (2, 1, 1)


def test_the_strong_bonus_draw_of_the_last_card_ends_the_round_at_once() -> None:
    state = split_state(
        hands=[("3C-L", "4C-L"), ("6S-L",)],
        phase=Phase.BONUS,
        pending=(MatchType.STRONG, 1),
        matches=[split_match(1, 0, ["7H-L"], ["7D-R"])],
        draw_pile=("QH-L",),
    )
    events, after = accepted(state, ResolveStrongBonus(0, draw=True))
    assert events[0] == CardDrawn(0, split_card("QH-L"), bonus=True)
    assert isinstance(events[1], RoundEnded)
    assert after.round == 2
    declined, _ = accepted(state, ResolveStrongBonus(0, draw=False))
    assert declined == (StrongBonusDeclined(0),)


def test_going_out_on_the_first_turn_lets_the_others_meld_without_bonus() -> None:
    state = split_state(
        hands=[("3C-L",), ("6S-L", "6H-R"), ("8D-L", "8D-R")],
        turns=(1, 0, 0),
    )
    events, after = accepted(state, Discard(0, split_card("3C-L")))
    assert events[-1] == RoundEnded(1, EndReason.WENT_OUT, 0, (1, 2), 0)
    assert after.phase is Phase.LATE_MELD
    assert RULES.to_move(after) == (1,)
    made, after = accepted(after, MakeMatch(1, *split_cards("6S-L", "6H-R")))
    assert made == (MatchMade(1, 1, C("6S-L"), C("6H-R"), MatchType.WEAK, late=True),)
    assert after.phase is Phase.LATE_MELD  # no bonus, no 1-card rule
    _, after = accepted(after, FinishLateMeld(1))
    events, after = accepted(after, FinishLateMeld(2))
    assert events[0] == LateMeldFinished(2)
    assert isinstance(events[1], RoundScored)
    assert after.negatives == (0, 0, 2)
    assert after.marks[1][5] == 1
    assert (after.round, after.dealer) == (2, 0)


def test_a_tie_breaks_on_fewer_negative_marks_then_is_shared() -> None:
    assert winners((8, 8, 3), (2, 1, 0)) == (1,)
    assert winners((8, 8, 3), (1, 1, 0)) == (0, 1)


def test_only_moves_that_drew_and_revealed_nothing_are_self_undoable() -> None:
    marked = (NegativeMarked(1, 0),)
    assert RULES.self_undoable(marked)
    assert RULES.self_undoable((StrongBonusDeclined(0),))
    assert not RULES.self_undoable((CardDrawn(0, split_card("QH-L"), bonus=False),))
    state = split_state(
        hands=[("9H-L", "3C-L"), ("6S-L",)],
        phase=Phase.DRAW,
        discard_row=("9S-R", "9H-R", "2C-L"),
    )
    from_hand, _ = accepted(state, TakeFromDiscard(0, 1, partner=split_card("9H-L")))
    assert not RULES.self_undoable(from_hand)
    state = replace(state, discard_row=split_cards("9S-R", "9H-L", "9H-R"))
    taken, _ = accepted(state, TakeFromDiscard(0, 1, partner=split_card("9H-R")))
    assert RULES.self_undoable(taken)


def test_views_and_events_hide_other_hands_and_the_draw_order() -> None:
    initial = RULES.initial_state(3, SplitConfig())
    (dealt,) = RULES.setup(initial, SPLIT_RNG)
    assert isinstance(dealt, RoundDealt)
    state = RULES.evolve(initial, dealt)
    seen = RULES.visible(dealt, Seat(1))
    assert isinstance(seen, RoundDealt)
    assert seen.hands == ((), dealt.hands[1], ())
    assert seen.draw_pile == ()
    assert seen.draw_pile_size == dealt.draw_pile_size
    spectator = RULES.view(state, Spectator())
    assert spectator.private is None
    assert spectator.hands is None
    assert spectator.draw_pile is None
    assert RULES.view(state, Seat(2)).private is not None
    assert RULES.view(state, Operator()).draw_pile == state.draw_pile
    drawn = CardDrawn(1, split_card("QH-L"), bonus=False)
    assert RULES.visible(drawn, Seat(1)) == drawn
    assert RULES.visible(drawn, Seat(0)) == CardDrawn(1, None, bonus=False)


def test_a_card_drawn_is_shown_to_its_drawer_alone_but_round_scoring_to_all() -> None:
    # T19: consent may take back a draw; nothing takes back a round's scoring.
    assert not RULES.reveals_to_others((CardDrawn(0, split_card("QH-L"), bonus=False),))
    assert not RULES.reveals_to_others((StrongBonusDeclined(0),))
    scored = RoundScored(1, (), ((), (split_card("QH-L"),)), (0, 0))
    assert RULES.reveals_to_others((scored,))
