"""Round end, round points and game end (spec §4, D8, D9, D11; invariants 7-9)."""

from __future__ import annotations

import pytest

from domain.games.fool import RULES
from domain.games.fool.events import (
    CardPlayed,
    Event,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.model import EndReason, State
from domain.games.fool.scoring import end_reasons, hand_points, winners
from tests.factories_fool import fool_cards, fool_play_all, fool_state


def test_an_empty_hand_scores_ten_or_zero_with_a_disc() -> None:
    assert hand_points((), holds_disc=False) == 10
    assert hand_points((), holds_disc=True) == 0


def test_cards_left_cost_their_values_and_a_1_costs_five() -> None:
    # D9
    assert hand_points(fool_cards("G12", "W1-1", "B4"), holds_disc=False) == -21
    assert hand_points(fool_cards("W1-1", "W1-2"), holds_disc=True) == -10


def last_trick(scores: tuple[int, ...], ten_counts: tuple[int, ...]) -> State:
    """Returns 4 players where seat 0 leads its last card and wins; seat 3 is Fool.

    Seat 1 keeps R2 (-2), seat 2 plays G3 and keeps W1-1 (-5), seat 3 keeps G9.
    """
    return fool_state(
        hands=(("G10",), ("G4", "R2"), ("G3", "W1-1"), ("G9",)),
        fools=(3,),
        scores=scores,
        ten_counts=ten_counts,
    )


def play_last_trick(state: State) -> tuple[State, list[Event]]:
    return fool_play_all(state, [(0, "G10"), (1, "G4"), (2, "G3")])


def test_a_round_is_scored_only_after_the_trick_that_emptied_a_hand() -> None:
    # Invariant 7: seat 0 plays its last card first; the trick still completes.
    state = last_trick((0, 0, 0, 0), (0, 0, 0, 0))
    after_first, events = fool_play_all(state, [(0, "G10")])
    assert events == [CardPlayed(0, fool_cards("G10")[0])]
    assert RULES.to_move(after_first) == (1,)
    _, events = play_last_trick(state)
    kinds = [type(e) for e in events]
    assert kinds == [CardPlayed] * 3 + [TrickResolved, RoundScored, HandsDealt]
    scored = events[4]
    assert isinstance(scored, RoundScored)
    assert scored.points == (10, -2, -5, -9)
    assert scored.ten_counts == (1, 0, 0, 0)


def test_the_ten_count_counts_only_the_plus_ten_rounds() -> None:
    state = last_trick((5, 0, 0, 0), (2, 1, 0, 3))
    after, _ = play_last_trick(state)
    assert after.scores == (15, -2, -5, -9)
    assert after.ten_counts == (3, 1, 0, 3)


def test_the_sixth_ten_ends_the_game() -> None:
    after, events = play_last_trick(last_trick((50, 0, 0, 0), (5, 0, 0, 0)))
    assert events[-1] == GameEnded((EndReason.TEN_LIMIT,))
    assert after.finished
    assert after.ten_counts == (6, 0, 0, 0)
    assert RULES.outcome(after).winners == (0,)


def test_minus_80_itself_ends_the_game() -> None:
    # D11: seat 3 goes from -71 to -80.
    after, events = play_last_trick(last_trick((0, 0, 0, -71), (0, 0, 0, 0)))
    assert events[-1] == GameEnded((EndReason.SCORE_LIMIT,))
    assert after.scores[3] == -80
    assert after.end_reasons == (EndReason.SCORE_LIMIT,)


def test_minus_79_does_not_end_the_game() -> None:
    after, events = play_last_trick(last_trick((0, 0, 0, -70), (0, 0, 0, 0)))
    assert isinstance(events[-1], HandsDealt)
    assert after.scores[3] == -79
    assert not after.finished
    assert RULES.outcome(after).winners == ()


def test_both_end_conditions_can_hold_after_the_same_round() -> None:
    after, events = play_last_trick(last_trick((0, 0, 0, -75), (5, 0, 0, 0)))
    assert events[-1] == GameEnded((EndReason.SCORE_LIMIT, EndReason.TEN_LIMIT))
    assert after.finished


def test_a_tie_on_total_and_ten_count_is_shared() -> None:
    # D8: seats 0 and 1 both end on 20 with 3 tens.
    after, _ = play_last_trick(last_trick((10, 22, 0, -75), (2, 3, 0, 0)))
    assert after.scores == (20, 20, -5, -84)
    assert after.ten_counts == (3, 3, 0, 0)
    assert RULES.outcome(after).winners == (0, 1)


@pytest.mark.parametrize(
    ("totals", "tens", "best"),
    [
        ((34, -12, 27, 34, -83), (5, 0, 1, 4, 0), (0,)),
        ((34, -12, 27, 34, -83), (4, 0, 1, 5, 0), (3,)),
        ((34, -12, 27, 34, -83), (4, 0, 1, 4, 0), (0, 3)),
        ((-80, -90, -85, -81), (0, 0, 0, 0), (0,)),
    ],
)
def test_winners_have_the_best_total_then_the_most_tens(
    totals: tuple[int, ...], tens: tuple[int, ...], best: tuple[int, ...]
) -> None:
    assert winners(totals, tens) == best


def test_end_reasons_are_empty_while_the_game_goes_on() -> None:
    assert end_reasons((-79, 40), (5, 5)) == ()
    assert end_reasons((-80, 40), (5, 6)) == (
        EndReason.SCORE_LIMIT,
        EndReason.TEN_LIMIT,
    )
