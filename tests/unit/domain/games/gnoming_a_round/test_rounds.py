"""The round end, the final turns, three rounds and the game's end (§3.6, §4)."""

from __future__ import annotations

import random

from domain.common.seats import next_seat
from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.cards import CANONICAL
from domain.games.gnoming_a_round.events import (
    CardDiscarded,
    Event,
    GameEnded,
    RoundDealt,
    RoundEndTriggered,
    RoundScored,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    Discard,
    DrawFromPile,
    Keep,
    Phase,
    Reject,
    State,
    face_down_count,
)
from domain.games.gnoming_a_round.setup import deal_round
from tests.factories_gnoming import (
    FRESH,
    GNOMING_RNG,
    gnoming_play,
    gnoming_state,
    layout_cards,
)

ALMOST_OUT = "1 2 3 4 5 6 7 8 ~9"


def going_out(
    *,
    starting_seat: int = 0,
    round_number: int = 1,
    totals: tuple[int, ...] | None = None,
    round_scores: tuple[tuple[int, ...], ...] = (),
) -> tuple[State, tuple[Event, ...]]:
    """Plays seat 0 turning its last face-down card; returns state and events."""
    state = gnoming_state(
        (ALMOST_OUT, FRESH, FRESH),
        draw="10 11 12 11 10",
        starting_seat=starting_seat,
        round_number=round_number,
        totals=totals,
        round_scores=round_scores,
    )
    return gnoming_play(state, DrawFromPile(0), Keep(0, 8), Discard(0, 1))


def test_turning_the_last_face_down_card_triggers_the_round_end() -> None:
    after, events = going_out()
    assert events[-2:] == (RoundEndTriggered(0), TurnStarted(1))
    assert (after.trigger, after.active, after.phase) == (0, 1, Phase.DRAW)


def test_every_other_seat_gets_one_final_turn_then_the_round_is_scored() -> None:
    # Invariant 9: seats 1 and 2 play once more; seat 0 does not.
    state, _ = going_out()
    state, events = gnoming_play(state, DrawFromPile(1), Reject(1), Discard(1, 1))
    assert events[-1] == TurnStarted(2)
    state, events = gnoming_play(state, DrawFromPile(2), Reject(2), Discard(2, 1))
    assert isinstance(events[-2], RoundScored)
    assert isinstance(events[-1], RoundDealt)
    assert isinstance(events[-3], CardDiscarded)
    assert TurnStarted(0) not in events


def test_a_final_turn_that_turns_the_last_card_triggers_nothing_more() -> None:
    state = gnoming_state((FRESH, ALMOST_OUT, FRESH), active=1, trigger=0, draw="10 11")
    _, events = gnoming_play(state, DrawFromPile(1), Keep(1, 8), Discard(1, 1))
    assert not any(isinstance(e, RoundEndTriggered) for e in events)
    assert events[-1] == TurnStarted(2)


def test_the_round_end_shows_every_card_and_deals_the_next_round() -> None:
    state, _ = going_out(starting_seat=2)
    before = state
    state, _ = gnoming_play(state, DrawFromPile(1), Reject(1), Discard(1, 1))
    after, events = gnoming_play(state, DrawFromPile(2), Reject(2), Discard(2, 1))
    assert isinstance(events[-3], CardDiscarded)
    scored, dealt = events[-2], events[-1]
    assert isinstance(scored, RoundScored)
    assert scored.layouts == tuple(layout_cards(before, s) for s in range(3))
    assert scored.base_scores == (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 10, 45, 45)
    assert (scored.first_out, scored.adjustment) == (0, 5)
    assert scored.scores == scored.totals == (51, 45, 45)
    # D3: the next round starts to the left of this round's starting seat.
    assert dealt == deal_round(3, 2, 0, GNOMING_RNG)
    assert (after.round, after.phase, after.starting_seat) == (2, Phase.INITIAL_FLIP, 0)
    assert after.round_scores == ((51, 45, 45),)
    assert after.totals == (51, 45, 45)
    assert all(face_down_count(layout) == 9 for layout in after.layouts)
    assert after.trigger is None
    assert RULES.to_move(after) == (0, 1, 2)


def test_every_round_starts_from_all_110_cards() -> None:
    # D15: removed hazards come back.
    dealt = deal_round(5, 3, 4, GNOMING_RNG)
    cards = [c for layout in dealt.layouts for c in layout]
    cards += [*dealt.discards, *dealt.removed, *dealt.draw_pile]
    assert sorted(cards, key=CANONICAL.index) == list(CANONICAL)


def test_the_third_round_ends_the_game_with_the_lowest_total_winning() -> None:
    state, _ = going_out(
        round_number=3, totals=(0, 6, 10), round_scores=((0, 3, 5), (0, 3, 5))
    )
    state, _ = gnoming_play(state, DrawFromPile(1), Reject(1), Discard(1, 1))
    after, events = gnoming_play(state, DrawFromPile(2), Reject(2), Discard(2, 1))
    scored, ended = events[-2], events[-1]
    assert isinstance(scored, RoundScored)
    assert scored.totals == (51, 51, 55)
    # D16: seats 0 and 1 tie on 51; seat 1's third round (45) beats 51.
    assert ended == GameEnded(totals=(51, 51, 55), winners=(1,))
    assert after.phase is Phase.GAME_OVER
    assert RULES.to_move(after) == ()
    outcome = RULES.outcome(after)
    assert (outcome.scores, outcome.winners, outcome.finished) == (
        (51, 51, 55),
        (1,),
        True,
    )


def test_the_outcome_names_no_winner_before_the_end() -> None:
    outcome = RULES.outcome(gnoming_state(totals=(3, 1, 2)))
    assert (outcome.scores, outcome.winners, outcome.finished) == ((3, 1, 2), (), False)


def test_a_whole_game_plays_three_rounds_from_setup() -> None:
    state = RULES.initial_state(3, RULES.config_type(first_player=1))
    state = RULES.fold(state, RULES.setup(state, GNOMING_RNG))
    starts = [state.starting_seat]
    choose = random.Random(7)
    for _ in range(5_000):
        if state.finished:
            break
        seat = RULES.to_move(state)[0]
        move = choose.choice(list(RULES.legal_moves(state, seat)))
        state, events = gnoming_play(state, move)
        starts += [e.starting_seat for e in events if isinstance(e, RoundDealt)]
    assert state.finished
    assert starts == [1, 2, 0]
    assert len(state.round_scores) == 3
    assert state.totals == tuple(map(sum, zip(*state.round_scores, strict=True)))
    assert next_seat(2, 3) == 0
