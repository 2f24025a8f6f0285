"""Table options, the initial state and the opening events (spec §2, §3.1, D5)."""

from __future__ import annotations

import pytest

from domain.common.decision import RejectionKind
from domain.common.rng import Rng
from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.events import (
    CardDrawn,
    DeckShuffled,
    FirstCueGiverChosen,
    RoundStarted,
)
from domain.games.hues_and_cues.model import HuesAndCuesConfig, Phase
from domain.games.hues_and_cues.setup import (
    CANONICAL_CARDS,
    FIRST_CUE_GIVER_LABEL,
    check_config,
)
from tests.unit.domain.games.hues_and_cues.hues import HUES_RNG, start


def test_the_labels_follow_design_section_4() -> None:
    assert FIRST_CUE_GIVER_LABEL == "hues-and-cues/round-1/first-cue-giver-1"
    shuffled, *_ = RULES.setup(
        RULES.initial_state(4, HuesAndCuesConfig(first_cue_giver=0)), HUES_RNG
    )
    assert isinstance(shuffled, DeckShuffled)
    expected = HUES_RNG.shuffle("hues-and-cues/round-1/shuffle", CANONICAL_CARDS)
    assert shuffled == DeckShuffled(round=1, cards=tuple(expected), size=100)
    assert tuple(f"C{k:03d}" for k in range(1, 101)) == CANONICAL_CARDS


def test_the_opening_shuffles_names_the_first_cue_giver_and_draws() -> None:
    game = start(4, first=2)
    shuffled, chosen, started, drawn = game.events
    assert isinstance(shuffled, DeckShuffled)
    assert chosen == FirstCueGiverChosen(seat=2, drawn=False)
    assert started == RoundStarted(round=1, cue_giver=2, tiebreak=False)
    top = shuffled.cards[0]
    assert drawn == CardDrawn(1, 2, top, CARDS[top].squares)
    state = game.state
    assert state.phase is Phase.FIRST_CUE
    assert (state.round, state.cue_giver, state.card) == (1, 2, top)
    assert state.deck == shuffled.cards[1:]
    assert RULES.to_move(state) == (2,)
    assert state.scores == (0, 0, 0, 0)


def test_an_open_first_cue_giver_is_drawn_with_the_seed() -> None:
    for seed in range(8):
        rng = Rng(bytes([seed]) * 32)
        game = start(5, first=None, rng=rng)
        chosen = game.events[1]
        expected = rng.stream("hues-and-cues/round-1/first-cue-giver-1").uniform(5)
        assert chosen == FirstCueGiverChosen(seat=expected, drawn=True)
        assert game.state.cue_giver == expected
    seats = {
        start(5, None, rng=Rng(bytes([s]) * 32)).state.cue_giver for s in range(20)
    }
    assert len(seats) > 1


def test_the_variant_shuffles_and_draws_nothing() -> None:
    game = start(3, first=1, variant=True)
    assert game.events == [
        FirstCueGiverChosen(seat=1, drawn=False),
        RoundStarted(round=1, cue_giver=1, tiebreak=False),
    ]
    assert game.state.deck == ()
    assert game.state.card is None


@pytest.mark.parametrize(
    ("players", "rounds"),
    [(3, 6), (4, 8), (5, 10), (6, 12), (7, 7), (8, 8), (9, 9), (10, 10)],
)
def test_2n_regular_rounds_up_to_six_players_then_n(players: int, rounds: int) -> None:
    assert RULES.initial_state(players, HuesAndCuesConfig()).regular_rounds == rounds


@pytest.mark.parametrize("players", [2, 11])
def test_a_table_of_the_wrong_size_is_refused(players: int) -> None:
    refused = check_config(HuesAndCuesConfig(), players)
    assert refused is not None
    assert refused.reason == "PLAYER_COUNT_OUT_OF_RANGE"
    assert refused.kind is RejectionKind.MALFORMED
    assert refused.rule == "hues_and_cues/player_count"


@pytest.mark.parametrize("first", [-1, 4, 10])
def test_a_first_cue_giver_off_the_table_is_refused(first: int) -> None:
    refused = check_config(HuesAndCuesConfig(first_cue_giver=first), 4)
    assert refused is not None
    assert refused.reason == "FIRST_CUE_GIVER_OUT_OF_RANGE"
    assert refused.kind is RejectionKind.MALFORMED
    assert refused.metadata == {"firstCueGiver": str(first), "players": "4"}


def test_valid_options_are_accepted() -> None:
    assert check_config(HuesAndCuesConfig(), 3) is None
    assert check_config(HuesAndCuesConfig(first_cue_giver=9), 10) is None
    assert check_config(HuesAndCuesConfig(free_choice_variant=True), 10) is None


def test_a_configured_seat_beyond_fewer_players_counts_round_the_table() -> None:
    # D21: checked against the table's size at creation, taken modulo at start.
    assert start(3, first=4).state.cue_giver == 1
