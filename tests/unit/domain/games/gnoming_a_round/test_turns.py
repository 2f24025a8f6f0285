"""A turn from DRAW to END_OF_TURN, initial flips and bounces (spec §2-§3, D4-D11)."""

from __future__ import annotations

import random

from domain.common.decision import Accepted
from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.cards import CANONICAL, canonical_index
from domain.games.gnoming_a_round.events import (
    BounceStopped,
    CardBounced,
    CardDiscarded,
    CardDrawn,
    CardKept,
    CardRejected,
    DiscardPileRefilled,
    DiscardTaken,
    DrawPileReshuffled,
    InitialCardsFlipped,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    Bounce,
    Discard,
    DrawFromPile,
    FlipInitial,
    Keep,
    Phase,
    Reject,
    StopBounce,
    TakeFromDiscard,
    face_down_count,
)
from domain.games.gnoming_a_round.steps import reshuffle_label
from tests.factories_gnoming import (
    FRESH,
    GNOMING_RNG,
    gnoming_card,
    gnoming_play,
    gnoming_state,
    layout_cards,
    shown,
)

HIDDEN = " ".join(["~5"] * 9)


def test_an_initial_flip_turns_two_cards_face_up_and_nothing_else() -> None:
    # §2 step 4, D4
    state = gnoming_state((HIDDEN,) * 3, phase=Phase.INITIAL_FLIP, flipped=())
    after, events = gnoming_play(state, FlipInitial(2, (7, 3)))
    cards = layout_cards(state, 2)
    assert events == (InitialCardsFlipped(2, (7, 3), (cards[7], cards[3])),)
    assert shown(after, 2) == "~5 ~5 ~5 5 ~5 ~5 ~5 5 ~5"
    assert after.layouts[:2] == state.layouts[:2]
    assert (after.phase, after.draw_pile, after.discards) == (
        Phase.INITIAL_FLIP,
        state.draw_pile,
        state.discards,
    )
    assert RULES.to_move(after) == (0, 1)


def test_players_flip_in_any_order_and_the_last_flip_starts_the_turns() -> None:
    state = gnoming_state(
        (HIDDEN,) * 3, phase=Phase.INITIAL_FLIP, flipped=(), starting_seat=1
    )
    assert RULES.to_move(state) == (0, 1, 2)
    state, _ = gnoming_play(state, FlipInitial(1, (0, 1)), FlipInitial(2, (4, 8)))
    assert RULES.to_move(state) == (0,)
    after, events = gnoming_play(state, FlipInitial(0, (8, 0)))
    assert events[-1] == TurnStarted(1)
    assert (after.phase, after.active, RULES.to_move(after)) == (Phase.DRAW, 1, (1,))
    # Invariant 4: after INITIAL_FLIP every layout shows exactly two cards.
    assert all(face_down_count(layout) == 7 for layout in after.layouts)


def test_drawing_takes_the_top_of_the_draw_pile_into_the_hand() -> None:
    state = gnoming_state(draw="8 9 10")
    after, events = gnoming_play(state, DrawFromPile(0))
    assert events == (CardDrawn(0, state.draw_pile[0]),)
    assert (after.phase, after.in_hand, after.in_hand_drawn) == (
        Phase.DECIDE,
        state.draw_pile[0],
        True,
    )
    assert after.draw_pile == state.draw_pile[1:]


def test_an_empty_draw_pile_is_rebuilt_from_the_discards_but_their_tops() -> None:
    # D8, D23: the cards in canonical order, shuffled with their own label.
    state = gnoming_state(draw="", discards=("9 4 7", "12 2"), reshuffles=1)
    after, events = gnoming_play(state, DrawFromPile(0))
    taken = (*state.pile(1)[:-1], *state.pile(2)[:-1])
    expected = tuple(
        GNOMING_RNG.shuffle(reshuffle_label(1, 2), sorted(taken, key=canonical_index))
    )
    assert reshuffle_label(1, 2) == "gnoming-a-round/round-1/reshuffle-2"
    assert events == (
        DrawPileReshuffled(2, expected, 3),
        CardDrawn(0, expected[0]),
    )
    assert after.discards == ((state.pile(1)[-1],), (state.pile(2)[-1],))
    assert (after.draw_pile, after.reshuffles) == (expected[1:], 2)


def test_a_kept_card_goes_face_up_and_the_displaced_card_is_pending() -> None:
    state = gnoming_state(draw="8")
    after, events = gnoming_play(state, DrawFromPile(0), Keep(0, 4))
    hidden = layout_cards(state, 0)[4]
    assert events[-1] == CardKept(0, 4, state.draw_pile[0], True, hidden, True, False)
    assert shown(after, 0) == "1 2 ~3 ~4 8 ~6 ~7 ~8 ~9"
    assert (after.phase, after.in_hand, after.in_hand_drawn) == (
        Phase.DISCARD,
        hidden,
        False,
    )


def test_a_card_taken_from_a_discard_pile_is_kept() -> None:
    # §3.1, D9
    state = gnoming_state(discards=("6 10", "11"))
    after, events = gnoming_play(state, TakeFromDiscard(0, 1))
    assert events == (DiscardTaken(0, 1, state.pile(1)[-1]),)
    assert after.pile(1) == state.pile(1)[:-1]
    assert (after.phase, after.in_hand_drawn) == (Phase.DECIDE, False)
    assert Reject(0) not in list(RULES.legal_moves(after, 0))
    assert list(RULES.legal_moves(after, 0)) == [Keep(0, p) for p in range(9)]


def test_a_rejected_drawn_card_becomes_the_pending_card() -> None:
    state = gnoming_state(draw="8")
    after, events = gnoming_play(state, DrawFromPile(0), Reject(0))
    assert events[-1] == CardRejected(0, state.draw_pile[0])
    assert (after.phase, after.in_hand) == (Phase.DISCARD, state.draw_pile[0])
    assert after.layouts == state.layouts


def test_the_bounce_example_of_the_spec_plays_out() -> None:
    # §4.3 "Bounce": 7 at 0 and 3 at 4 face up; Ben draws a 3 and keeps it at 8.
    ben = "7 ~1 ~2 ~3 3 ~11 ~4 ~5 ~7"
    state = gnoming_state((FRESH, ben, FRESH), active=1, draw="3")
    state, events = gnoming_play(state, DrawFromPile(1), Keep(1, 8))
    assert isinstance(events[-1], CardKept)
    assert events[-1].displaced.value == 7
    assert events[-1].bounce_eligible
    assert state.phase is Phase.BOUNCE
    state, events = gnoming_play(state, Bounce(1, 3))
    assert isinstance(events[-1], CardBounced)
    assert (events[-1].displaced.value, events[-1].bounce_eligible) == (3, True)
    state, events = gnoming_play(state, Bounce(1, 5))
    assert isinstance(events[-1], CardBounced)
    assert (events[-1].displaced.value, events[-1].bounce_eligible) == (11, False)
    assert (state.phase, state.filled) == (Phase.DISCARD, (8, 3, 5))
    state, events = gnoming_play(state, Discard(1, 1))
    assert isinstance(events[0], CardDiscarded)
    assert events[0].card.value == 11
    assert shown(state, 1) == "7 ~1 ~2 7 3 3 ~4 ~5 3"
    assert state.top(1) == events[0].card


def test_a_displaced_card_matching_only_the_card_just_placed_bounces() -> None:
    # D10: "including the card just placed".
    state = gnoming_state(draw="5", in_hand=None)
    state, events = gnoming_play(state, DrawFromPile(0), Keep(0, 4))
    assert isinstance(events[-1], CardKept)
    assert (events[-1].displaced.value, events[-1].bounce_eligible) == (5, True)


def test_negative_hazard_mulligan_and_face_up_cards_never_bounce() -> None:
    # §3.3: only a positive card that was face down bounces.
    layout = "5 -2 ~-2 ~H ~M 5 ~5 ~8 ~9"
    for position in (1, 2, 3, 4, 5):
        state = gnoming_state((layout, FRESH, FRESH), draw="-2")
        after, events = gnoming_play(state, DrawFromPile(0), Keep(0, position))
        assert isinstance(events[-1], CardKept)
        assert not events[-1].bounce_eligible, position
        assert after.phase is Phase.DISCARD
    state = gnoming_state((layout, FRESH, FRESH), draw="-2")
    after, _ = gnoming_play(state, DrawFromPile(0), Keep(0, 6))
    assert after.phase is Phase.BOUNCE


def test_a_mulligan_does_not_count_as_a_match_for_a_bounce() -> None:
    state = gnoming_state(("M 2 ~3 ~4 ~6 ~6 ~7 ~8 ~9", FRESH, FRESH), draw="1")
    _, events = gnoming_play(state, DrawFromPile(0), Keep(0, 4))
    assert isinstance(events[-1], CardKept)
    assert events[-1].displaced.value == 6
    assert not events[-1].bounce_eligible


def test_bouncing_onto_a_face_up_card_ends_the_chain() -> None:
    # D11: the displaced face-up card is not bounce-eligible.
    state = gnoming_state(("7 2 ~3 ~4 ~7 ~6 ~7 ~8 ~9", FRESH, FRESH), draw="7")
    state, _ = gnoming_play(state, DrawFromPile(0), Keep(0, 4))
    after, events = gnoming_play(state, Bounce(0, 1))
    assert isinstance(events[-1], CardBounced)
    assert events[-1].displaced.value == 2
    assert not events[-1].displaced_face_down
    assert (after.phase, after.in_hand) == (Phase.DISCARD, events[-1].displaced)


def test_stopping_a_bounce_makes_the_card_to_move_pending() -> None:
    state = gnoming_state(draw="4")
    state, _ = gnoming_play(state, DrawFromPile(0), Keep(0, 3))
    assert state.phase is Phase.BOUNCE
    card = state.in_hand
    assert card is not None
    after, events = gnoming_play(state, StopBounce(0))
    assert events == (BounceStopped(0, card),)
    assert (after.phase, after.in_hand) == (Phase.DISCARD, card)


def test_a_discard_goes_on_the_pile_and_the_next_seat_draws() -> None:
    state = gnoming_state(phase=Phase.DISCARD, in_hand="4")
    after, events = gnoming_play(state, Discard(0, 2))
    assert events == (CardDiscarded(0, 2, state.in_hand, False), TurnStarted(1))  # type: ignore[arg-type]
    assert after.top(2) == state.in_hand
    assert (after.phase, after.active, after.in_hand, after.filled) == (
        Phase.DRAW,
        1,
        None,
        (),
    )


def test_a_discard_must_go_on_the_empty_pile() -> None:
    # D7
    state = gnoming_state(phase=Phase.DISCARD, in_hand="4", discards=("", "6"))
    assert list(RULES.legal_moves(state, 0)) == [Discard(0, 1)]
    after, _ = gnoming_play(state, Discard(0, 1))
    assert after.pile(1) == (state.in_hand,)


def test_with_both_piles_empty_either_pile_takes_the_discard() -> None:
    state = gnoming_state(phase=Phase.DISCARD, in_hand="4", discards=("", ""))
    assert list(RULES.legal_moves(state, 0)) == [Discard(0, 1), Discard(0, 2)]


def test_an_empty_pile_is_restarted_from_the_draw_pile_at_the_end_of_turn() -> None:
    # §3.6 step 1: the pile emptied by the take is filled by the discard here,
    # so only a hazard discard leaves one empty; see test_hazards.py.
    state = gnoming_state(discards=("6", "11"), draw="8 9")
    after, events = gnoming_play(
        state, TakeFromDiscard(0, 1), Keep(0, 2), Discard(0, 1)
    )
    assert not any(isinstance(e, DiscardPileRefilled) for e in events)
    assert after.pile(1) == (layout_cards(state, 0)[2],)


def test_a_turn_that_flips_nothing_face_down_keeps_the_count() -> None:
    state = gnoming_state(draw="8")
    after, _ = gnoming_play(state, DrawFromPile(0), Keep(0, 0), Discard(0, 1))
    assert face_down_count(after.layouts[0]) == face_down_count(state.layouts[0])
    assert after.top(1) == layout_cards(state, 0)[0]


def test_every_legal_move_of_a_fresh_deal_is_accepted() -> None:
    state = RULES.fold(
        RULES.initial_state(3, RULES.config_type()),
        RULES.setup(RULES.initial_state(3, RULES.config_type()), GNOMING_RNG),
    )
    for seat in range(3):
        moves = list(RULES.legal_moves(state, seat))
        assert len(moves) == 36
        for move in moves:
            assert isinstance(RULES.decide(state, move, GNOMING_RNG), Accepted)


def test_canonical_order_sorts_the_reshuffled_cards() -> None:
    shuffled = random.Random(3).sample(CANONICAL, len(CANONICAL))
    assert sorted(shuffled, key=canonical_index) == list(CANONICAL)
    assert canonical_index(gnoming_card("1")) == 0
