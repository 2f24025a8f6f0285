"""The worked examples of spec §4.3, played through ``decide`` then ``evolve``.

Seats A, B, C, D, E are 0, 1, 2, 3, 4. Every hand also holds a card or two the
example does not mention, so that the round goes on unless the example ends it.
"""

from __future__ import annotations

from domain.common.decision import Rejected
from domain.games.fool import RULES
from domain.games.fool.events import (
    CardPlayed,
    GameEnded,
    HandsDealt,
    RoundScored,
    TrickResolved,
)
from domain.games.fool.model import Color, EndReason, Phase, TrickCard
from tests.factories_fool import (
    FOOL_RNG,
    fool_cards,
    fool_play,
    fool_play_all,
    fool_state,
)

A, B, C, D, E = range(5)


def test_off_colour_cards_tie_and_the_later_one_is_the_fool() -> None:
    # 5 players, E holds the disc: A, B, C, D play; C and D have no red.
    state = fool_state(
        hands=(
            ("R9", "G2"),
            ("R14", "G3"),
            ("Y3", "G5"),
            ("B3", "G6"),
            ("G4", "Y5"),
        ),
        leader=A,
        fools=(E,),
    )
    assert state.participants == (A, B, C, D)
    after, events = fool_play_all(state, [(A, "R9"), (B, "R14"), (C, "Y3"), (D, "B3")])
    cards = fool_cards("R9", "R14", "Y3", "B3")
    seats = (A, B, C, D)
    assert events[:-1] == [CardPlayed(s, c) for s, c in zip(seats, cards, strict=True)]
    resolved = events[-1]
    assert isinstance(resolved, TrickResolved)
    assert (resolved.lead_color, resolved.winner, resolved.fools) == (
        Color.RED,
        B,
        (D,),
    )
    # D sits out the next trick, which B leads; E plays again.
    assert (after.leader, after.fools) == (B, (D,))
    assert after.participants == (B, C, E, A)
    assert RULES.to_move(after) == (B,)


def test_a_wild_1_counts_as_the_lead_colour_and_is_the_worst_card() -> None:
    # B leads; D holds the disc; E holds green yet plays a 1, which is allowed.
    state = fool_state(
        hands=(
            ("G20", "R3"),
            ("G10", "R4"),
            ("G4", "R5"),
            ("B2", "R6"),
            ("W1-1", "G7", "R7"),
        ),
        leader=B,
        fools=(D,),
    )
    after, events = fool_play_all(
        state, [(B, "G10"), (C, "G4"), (E, "W1-1"), (A, "G20")]
    )
    resolved = events[-1]
    assert isinstance(resolved, TrickResolved)
    assert resolved == TrickResolved(
        cards=(
            TrickCard(B, fool_cards("G10")[0]),
            TrickCard(C, fool_cards("G4")[0]),
            TrickCard(E, fool_cards("W1-1")[0]),
            TrickCard(A, fool_cards("G20")[0]),
        ),
        lead_color=Color.GREEN,
        winner=A,
        fools=(E,),
    )
    assert after.participants == (A, B, C, D)


def test_a_led_1_leaves_the_colour_to_the_next_card() -> None:
    state = fool_state(
        hands=(
            ("W1-1", "G2"),
            ("Y5", "G3"),
            ("Y7", "G8", "W1-2"),
            ("B4", "G9"),
        ),
        leader=A,
    )
    led, _ = fool_play_all(state, [(A, "W1-1")])
    # Nothing but a 1 so far: B may play anything, and yellow becomes the lead.
    assert {m.card for m in RULES.legal_moves(led, B)} == set(fool_cards("Y5", "G3"))
    after, _ = fool_play_all(led, [(B, "Y5")])
    refused = RULES.decide(after, fool_play(C, "G8"), FOOL_RNG)
    assert isinstance(refused, Rejected)
    assert refused.reason == "MUST_FOLLOW_LEAD_COLOUR"
    assert {m.card for m in RULES.legal_moves(after, C)} == set(
        fool_cards("Y7", "W1-2")
    )


def test_two_fools_take_the_two_worst_cards_with_seven_players() -> None:
    # 7 players, seats 5 and 6 hold the discs: five participants.
    state = fool_state(
        hands=(
            ("B7", "G3"),
            ("B12", "G4"),
            ("G2", "R3"),
            ("W1-1", "G5"),
            ("R2", "G6"),
            ("B2", "G7"),
            ("B3", "G8"),
        ),
        leader=0,
        fools=(5, 6),
    )
    after, events = fool_play_all(
        state, [(0, "B7"), (1, "B12"), (2, "G2"), (3, "W1-1"), (4, "R2")]
    )
    resolved = events[-1]
    assert isinstance(resolved, TrickResolved)
    assert (resolved.winner, resolved.fools) == (1, (4, 2))
    # The previous Fools rejoin; the new ones sit out.
    assert after.participants == (1, 3, 5, 6, 0)


def test_the_round_ends_when_hands_empty_and_the_worst_of_them_scores_zero() -> None:
    # A and C play their last cards; C's off-colour B2 is the worst. (The spec's
    # E holds Y19 and Y20, which 5 players leave out; scoring does not mind.)
    state = fool_state(
        hands=(
            ("G15",),
            ("G14", "G12", "W1-1", "B4"),
            ("B2",),
            ("G13", "R2"),
            ("Y19", "Y20"),
        ),
        leader=A,
        fools=(E,),
        dealer=E,
    )
    after, events = fool_play_all(
        state, [(A, "G15"), (B, "G14"), (C, "B2"), (D, "G13")]
    )
    kinds = [type(event) for event in events]
    assert kinds == [CardPlayed] * 4 + [TrickResolved, RoundScored, HandsDealt]
    resolved, scored, dealt = events[4:]
    assert isinstance(resolved, TrickResolved)
    assert (resolved.winner, resolved.fools) == (A, (C,))
    assert scored == RoundScored(
        round=1,
        points=(10, -21, 0, -2, -39),
        totals=(10, -21, 0, -2, -39),
        ten_counts=(1, 0, 0, 0, 0),
        hands_left=(
            (),
            fool_cards("G12", "B4", "W1-1"),
            (),
            fool_cards("R2"),
            fool_cards("Y19", "Y20"),
        ),
    )
    # D6, D7: the deal moves to A, B leads, nobody holds a disc.
    assert isinstance(dealt, HandsDealt)
    assert (dealt.round, dealt.dealer, dealt.leader) == (2, A, B)
    assert (after.phase, after.fools, after.participants) == (
        Phase.PLAY,
        (),
        (B, C, D, E, A),
    )
    assert (after.scores, after.ten_counts) == (scored.totals, scored.ten_counts)


def test_the_game_ends_at_minus_83_and_a_tie_on_top_goes_to_more_tens() -> None:
    # Before the round: A 24 (4 tens), B -10, C 30, D 34 (4 tens), E -60.
    # C holds the disc; D empties their hand but is the Fool: 0 points.
    state = fool_state(
        hands=(
            ("G15",),
            ("G14", "R2"),
            ("B3",),
            ("Y2",),
            ("G5", "Y11", "G12"),
        ),
        leader=A,
        fools=(C,),
        scores=(24, -10, 30, 34, -60),
        ten_counts=(4, 0, 0, 4, 0),
    )
    after, events = fool_play_all(state, [(A, "G15"), (B, "G14"), (D, "Y2"), (E, "G5")])
    scored, ended = events[-2:]
    assert isinstance(scored, RoundScored)
    assert scored.points == (10, -2, -3, 0, -23)
    assert scored.totals == (34, -12, 27, 34, -83)
    assert ended == GameEnded((EndReason.SCORE_LIMIT,))
    assert after.finished
    assert RULES.to_move(after) == ()
    outcome = RULES.outcome(after)
    assert (outcome.scores, outcome.winners, outcome.finished) == (
        (34, -12, 27, 34, -83),
        (A,),
        True,
    )
