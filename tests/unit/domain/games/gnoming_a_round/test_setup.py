"""Cards, table options and each round's deal (spec §1.1, §2, D1-D3, D6, DESIGN §4)."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.common.decision import Rejected, RejectionKind
from domain.common.rng import Rng
from domain.games.gnoming_a_round import RULES
from domain.games.gnoming_a_round.cards import (
    CANONICAL,
    Kind,
    card_from_id,
    hazard,
    mulligan,
    negative,
    positive,
)
from domain.games.gnoming_a_round.events import RoundDealt
from domain.games.gnoming_a_round.model import GnomingARoundConfig, Phase
from domain.games.gnoming_a_round.setup import (
    check_config,
    deal_round,
    initial_state,
    setup,
    shuffle_label,
)

RNG = Rng(bytes(range(32)))


def hazard_seed(at: int) -> Rng:
    """Returns an Rng whose round-1 shuffle for 3 players turns a hazard up at 27+at."""
    for n in range(10_000):
        rng = Rng(n.to_bytes(32, "big"))
        if rng.shuffle(shuffle_label(1), CANONICAL)[27 + at].kind is Kind.HAZARD:
            return rng
    msg = "no seed found"
    raise AssertionError(msg)


def test_the_deck_has_the_composition_of_the_spec() -> None:
    assert len(CANONICAL) == 110
    assert len(set(CANONICAL)) == 110
    kinds = Counter(card.kind for card in CANONICAL)
    assert kinds == {
        Kind.POSITIVE: 82,
        Kind.NEGATIVE: 22,
        Kind.HAZARD: 3,
        Kind.MULLIGAN: 3,
    }
    values = Counter(c.value for c in CANONICAL if c.kind is Kind.POSITIVE)
    assert values == {**dict.fromkeys(range(1, 11), 7), 11: 6, 12: 6}
    negatives = Counter(c.value for c in CANONICAL if c.kind is Kind.NEGATIVE)
    assert negatives == {-1: 6, -2: 6, -3: 4, -4: 3, -5: 3}


def test_the_canonical_order_is_positives_negatives_hazards_mulligans() -> None:
    # DESIGN §4: values in order, copies inner.
    assert CANONICAL[:8] == (*(positive(1, c) for c in range(1, 8)), positive(2, 1))
    assert CANONICAL[81] == positive(12, 6)
    assert CANONICAL[82:84] == (negative(-1, 1), negative(-1, 2))
    assert CANONICAL[103] == negative(-5, 3)
    assert CANONICAL[104:] == (
        *(hazard(c) for c in (1, 2, 3)),
        mulligan(1),
        mulligan(2),
        mulligan(3),
    )


@pytest.mark.parametrize(
    ("card", "card_id"),
    [
        (positive(7, 3), "P07-3"),
        (positive(12, 6), "P12-6"),
        (negative(-2, 1), "N02-1"),
        (hazard(1), "HZ-1"),
        (mulligan(3), "MU-3"),
    ],
)
def test_card_ids_follow_the_spec(card: object, card_id: str) -> None:
    assert str(card) == card_id
    assert card_from_id(card_id) == card


@pytest.mark.parametrize("text", ["P13-1", "P11-7", "N06-1", "HZ-4", "X", "P7-1"])
def test_ids_of_cards_not_in_the_deck_name_nothing(text: str) -> None:
    assert card_from_id(text) is None


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_three_to_seven_players_are_accepted(players: int) -> None:
    # D2
    assert check_config(GnomingARoundConfig(), players) is None
    assert check_config(GnomingARoundConfig(first_player=players - 1), players) is None


@pytest.mark.parametrize("players", [0, 2, 8])
def test_other_player_counts_are_refused(players: int) -> None:
    refused = check_config(GnomingARoundConfig(), players)
    assert isinstance(refused, Rejected)
    assert (refused.reason, refused.rule, refused.kind) == (
        "PLAYER_COUNT_OUT_OF_RANGE",
        "gnoming_a_round/player_count",
        RejectionKind.MALFORMED,
    )


@pytest.mark.parametrize("first_player", [-1, 4])
def test_a_first_player_outside_the_table_is_refused(first_player: int) -> None:
    refused = check_config(GnomingARoundConfig(first_player=first_player), 4)
    assert isinstance(refused, Rejected)
    assert (refused.reason, refused.rule) == (
        "INVALID_FIRST_PLAYER",
        "gnoming_a_round/first_player",
    )


def test_the_initial_state_has_nothing_dealt_and_nobody_to_move() -> None:
    state = initial_state(3, GnomingARoundConfig())
    assert (state.phase, state.round, state.totals) == (Phase.SETUP, 0, (0, 0, 0))
    assert RULES.to_move(state) == ()


@pytest.mark.parametrize("players", [3, 5, 7])
def test_layouts_are_dealt_as_blocks_of_nine_from_the_round_shuffle(
    players: int,
) -> None:
    dealt = deal_round(players, 1, 0, RNG)
    shuffled = RNG.shuffle("gnoming-a-round/round-1/shuffle", CANONICAL)
    assert dealt.layouts == tuple(
        tuple(shuffled[9 * s : 9 * s + 9]) for s in range(players)
    )
    rest = shuffled[9 * players :]
    turned = [c for c in rest if c.kind is not Kind.HAZARD][:2]
    assert dealt.discards == tuple(turned)
    used = rest.index(turned[1]) + 1
    assert dealt.draw_pile == tuple(rest[used:])
    assert dealt.draw_pile_size == 110 - 9 * players - used
    assert dealt.removed == tuple(c for c in rest[:used] if c.kind is Kind.HAZARD)


def test_round_two_and_three_use_their_own_shuffle_labels() -> None:
    for round_number in (2, 3):
        dealt = deal_round(4, round_number, 1, RNG)
        shuffled = RNG.shuffle(
            f"gnoming-a-round/round-{round_number}/shuffle", CANONICAL
        )
        assert dealt.layouts[0] == tuple(shuffled[:9])
        assert dealt.round == round_number
    assert deal_round(4, 2, 1, RNG) != deal_round(4, 3, 1, RNG)


@pytest.mark.parametrize("at", [0, 1])
def test_a_hazard_turned_up_at_setup_is_removed_and_replaced(at: int) -> None:
    # §2 step 3, D6
    rng = hazard_seed(at)
    shuffled = rng.shuffle(shuffle_label(1), CANONICAL)
    dealt = deal_round(3, 1, 0, rng)
    assert shuffled[27 + at] in dealt.removed
    assert shuffled[27 + at] not in dealt.discards
    assert all(card.kind is not Kind.HAZARD for card in dealt.discards)
    state = RULES.fold(initial_state(3, GnomingARoundConfig()), (dealt,))
    assert state.removed == dealt.removed
    assert state.top(1) == dealt.discards[0]
    assert state.top(2) == dealt.discards[1]


def test_setup_deals_round_one_face_down_and_waits_for_every_initial_flip() -> None:
    state = initial_state(4, GnomingARoundConfig(first_player=2))
    events = setup(state, RNG)
    assert len(events) == 1
    dealt = events[0]
    assert isinstance(dealt, RoundDealt)
    assert (dealt.round, dealt.starting_seat) == (1, 2)
    after = RULES.fold(state, events)
    assert after.phase is Phase.INITIAL_FLIP
    assert all(not slot.face_up for layout in after.layouts for slot in layout)
    assert after.discards == ((dealt.discards[0],), (dealt.discards[1],))
    assert RULES.to_move(after) == (0, 1, 2, 3)


def test_a_first_player_beyond_the_seated_players_wraps_around() -> None:
    # D24: options are checked against max_players; fewer may be seated.
    dealt = setup(initial_state(3, GnomingARoundConfig(first_player=4)), RNG)[0]
    assert isinstance(dealt, RoundDealt)
    assert dealt.starting_seat == 1
