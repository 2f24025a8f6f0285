"""Hazards: discarding one, the answers, their limits, and D6 (spec §3.4-§3.6)."""

from __future__ import annotations

from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.events import (
    CardKept,
    DiscardPileRefilled,
    DrawPileReshuffled,
    HazardDeclined,
    HazardFlipped,
    HazardRemoved,
    HazardTurnedUp,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    Discard,
    DrawFromPile,
    HazardDecline,
    HazardFlip,
    Keep,
    Phase,
    Reject,
    TakeFromDiscard,
    face_down_count,
)
from tests.factories_gnoming import (
    gnoming_play,
    gnoming_state,
    layout_cards,
    shown,
)

ANA = "1 2 3 4 5 6 ~7 ~8 ~9"
BEN = "1 2 ~3 ~4 5 6 ~7 7 ~9"  # 4 face-down cards
CY = "1 2 3 4 5 6 7 8 ~9"  # 1 face-down card
DI = "1 2 3 4 ~5 ~6 ~7 8 9"  # 3 face-down cards


def test_the_hazard_example_of_the_spec_plays_out() -> None:
    # §4.3 "Hazard": Ana discards a hazard; Ben flips position 2, Cy is not
    # asked, Di declines.
    state = gnoming_state(
        (ANA, BEN, CY, DI), phase=Phase.DISCARD, in_hand="H", active=0
    )
    hazard = state.in_hand
    assert hazard is not None
    state, events = gnoming_play(state, Discard(0, None))
    assert events == (HazardRemoved(0, hazard, False, (1, 3)),)
    assert state.phase is Phase.HAZARD_RESPONSES
    assert RULES.to_move(state) == (1, 3)
    assert hazard in state.removed
    assert state.in_hand is None
    state, events = gnoming_play(state, HazardFlip(1, 2))
    assert events == (HazardFlipped(1, 2, layout_cards(state, 1)[2]),)
    assert shown(state, 1) == "1 2 3 ~4 5 6 ~7 7 ~9"
    assert RULES.to_move(state) == (3,)
    state, events = gnoming_play(state, HazardDecline(3))
    assert events == (HazardDeclined(3), TurnStarted(1))
    assert (state.phase, state.active) == (Phase.DRAW, 1)


def test_hazard_answers_come_in_any_order() -> None:
    state = gnoming_state((ANA, BEN, CY, DI), phase=Phase.DISCARD, in_hand="H")
    state, _ = gnoming_play(state, Discard(0, None), HazardDecline(3))
    assert RULES.to_move(state) == (1,)
    after, events = gnoming_play(state, HazardFlip(1, 3))
    assert events[-1] == TurnStarted(1)
    assert after.phase is Phase.DRAW


def test_a_hazard_flip_is_a_plain_reveal_without_bounce() -> None:
    # D5: even a flipped card matching a face-up one stays where it lies.
    state = gnoming_state((ANA, BEN, CY, DI), phase=Phase.DISCARD, in_hand="H")
    state, _ = gnoming_play(state, Discard(0, None), HazardFlip(3, 4))
    assert shown(state, 3) == "1 2 3 4 5 ~6 ~7 8 9"
    assert state.phase is Phase.HAZARD_RESPONSES


def test_with_nobody_eligible_the_turn_ends_at_once() -> None:
    state = gnoming_state((ANA, CY, CY), phase=Phase.DISCARD, in_hand="H")
    after, events = gnoming_play(state, Discard(0, None))
    assert events[0] == HazardRemoved(0, state.in_hand, False, ())  # type: ignore[arg-type]
    assert events[-1] == TurnStarted(1)
    assert after.phase is Phase.DRAW


def test_a_responder_may_not_flip_the_last_face_down_card() -> None:
    # §3.5, D17: eligibility needs two face-down cards, so one always stays.
    two = "1 2 3 4 5 6 7 ~8 ~9"
    state = gnoming_state((ANA, two, two), phase=Phase.DISCARD, in_hand="H")
    state, _ = gnoming_play(state, Discard(0, None), HazardFlip(1, 8))
    assert face_down_count(state.layouts[1]) == 1
    assert state.asked == (1, 2)


def test_a_drawn_hazard_may_be_rejected_and_then_has_its_effect() -> None:
    state = gnoming_state((ANA, BEN, CY), draw="H 5")
    state, events = gnoming_play(state, DrawFromPile(0), Reject(0))
    assert list(RULES.legal_moves(state, 0)) == [Discard(0, None)]
    _, events = gnoming_play(state, Discard(0, None))
    assert events == (HazardRemoved(0, state.in_hand, True, (1,)),)  # type: ignore[arg-type]


def test_a_kept_hazard_stays_in_the_layout_and_leaves_with_effect_later() -> None:
    state = gnoming_state((ANA, BEN, CY), draw="H 5")
    state, _ = gnoming_play(state, DrawFromPile(0), Keep(0, 0), Discard(0, 1))
    assert shown(state, 0).startswith("H ")
    state = gnoming_state((shown(state, 0), BEN, CY), draw="5", discards=("9", "9"))
    state, events = gnoming_play(state, DrawFromPile(0), Keep(0, 0))
    assert isinstance(events[-1], CardKept)
    assert not events[-1].bounce_eligible  # a face-up hazard never bounces
    _, events = gnoming_play(state, Discard(0, None))
    assert isinstance(events[0], HazardRemoved)


def test_a_pile_left_empty_by_a_hazard_turn_is_restarted_at_its_end() -> None:
    # D7: taking pile 1's only card and discarding a hazard leaves it empty.
    layout = "1 2 ~H ~4 5 6 ~7 ~8 ~9"
    state = gnoming_state((layout, CY, CY), discards=("6", "11"), draw="8 9")
    after, events = gnoming_play(
        state, TakeFromDiscard(0, 1), Keep(0, 2), Discard(0, None)
    )
    assert events[-2:] == (DiscardPileRefilled(1, state.draw_pile[0]), TurnStarted(1))
    assert after.pile(1) == (state.draw_pile[0],)
    assert after.draw_pile == state.draw_pile[1:]


def test_a_hazard_turned_up_to_restart_a_pile_is_removed_without_effect() -> None:
    # D6: the next card restarts the pile; nobody is asked to answer.
    layout = "1 2 ~H ~4 5 6 ~7 ~8 ~9"
    state = gnoming_state((layout, BEN, BEN), discards=("6", "11"), draw="H 9 3")
    state, _ = gnoming_play(state, TakeFromDiscard(0, 1), Keep(0, 2))
    after, _ = gnoming_play(state, Discard(0, None))
    assert after.phase is Phase.HAZARD_RESPONSES
    after, events = gnoming_play(after, HazardDecline(1), HazardDecline(2))
    draw = state.draw_pile
    assert events[2:] == (
        HazardTurnedUp(draw[0]),
        DiscardPileRefilled(1, draw[1]),
        TurnStarted(1),
    )
    assert draw[0] in after.removed
    assert after.pile(1) == (draw[1],)


def test_restarting_a_pile_reshuffles_an_empty_draw_pile() -> None:
    layout = "1 2 ~H ~4 5 6 ~7 ~8 ~9"
    state = gnoming_state((layout, CY, CY), discards=("6", "11 4 3"), draw="")
    after, events = gnoming_play(
        state, TakeFromDiscard(0, 1), Keep(0, 2), Discard(0, None)
    )
    assert isinstance(events[1], CardKept)
    reshuffled = events[-3]
    assert isinstance(reshuffled, DrawPileReshuffled)
    assert sorted(c.value for c in reshuffled.draw_pile) == [4, 11]
    assert events[-2] == DiscardPileRefilled(1, reshuffled.draw_pile[0])
    assert after.pile(2) == (state.pile(2)[-1],)
    assert after.draw_pile == reshuffled.draw_pile[1:]


def test_a_pile_nothing_can_restart_stays_empty() -> None:
    layout = "1 2 ~H ~4 5 6 ~7 ~8 ~9"
    state = gnoming_state((layout, CY, CY), discards=("6", "11"), draw="")
    after, events = gnoming_play(
        state, TakeFromDiscard(0, 1), Keep(0, 2), Discard(0, None)
    )
    assert events[-1] == TurnStarted(1)
    assert after.pile(1) == ()
    assert list(RULES.legal_moves(after, 1)) == [TakeFromDiscard(1, 2)]


def test_a_hazard_flip_may_reveal_a_second_mulligan() -> None:
    # D12: only placing a mulligan is limited; revealed ones may add up.
    ben = "M 2 ~M ~4 5 6 ~7 7 ~9"
    state = gnoming_state((ANA, ben, CY), phase=Phase.DISCARD, in_hand="H")
    after, _ = gnoming_play(state, Discard(0, None), HazardFlip(1, 2))
    assert shown(after, 1).startswith("M 2 M ")
