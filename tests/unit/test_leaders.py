"""``leaders``: each game's ranking of the seats if play stopped now.

The table names the winners of a game abandoned mid-play with it, and ranks
only the seats that did not resign, so it must be the game's own end-of-game
ranking restricted to the candidate seats: on a finished game with every seat
a candidate it gives exactly ``outcome(state).winners``.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import pytest

from domain.bots import choose_move
from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.rules import GameRules, top_seats
from domain.games import fool, gnoming_a_round, hues_and_cues, qwirkle, split
from domain.games.gnoming_a_round.model import Phase as GnomingPhase
from domain.games.registry import GAMES
from tests import counting_game

MAX_MOVES = 20_000


def started(rules: GameRules[Any, Any, Any, Any], players: int, rng: Rng) -> Any:
    """Returns a game of ``players`` just after its setup."""
    state = rules.initial_state(players, rules.config_type())
    return rules.fold(state, rules.setup(state, rng))


def fresh(rules: GameRules[Any, Any, Any, Any], players: int) -> Any:
    """Returns the state before setup, for fields set by hand."""
    return rules.initial_state(players, rules.config_type())


# --- the shared helper ---


def test_top_seats_keeps_every_seat_of_the_best_rank_in_the_order_given() -> None:
    ranks = {0: (3, 1), 1: (5, 0), 2: (5, 0), 3: (5, -1)}

    assert top_seats((2, 0, 1, 3), ranks.__getitem__) == (2, 1)
    assert top_seats((0, 3), ranks.__getitem__) == (3,)
    assert top_seats((), ranks.__getitem__) == ()


# --- every game ---


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_candidate_seats_have_no_leader(game: str) -> None:
    rules = GAMES[game]
    state = started(rules, rules.min_players, Rng(bytes(32)))

    assert rules.leaders(state, ()) == ()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_at_the_start_every_candidate_shares_the_lead(game: str) -> None:
    rules = GAMES[game]
    state = started(rules, rules.max_players, Rng(bytes(32)))
    seats = tuple(range(rules.max_players))

    assert rules.leaders(state, seats) == seats
    assert rules.leaders(state, (1, 2)) == (1, 2)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_on_a_finished_game_the_leaders_are_its_winners(game: str) -> None:
    # Bots play a seeded game to its end; at every move the leaders are some of
    # the candidates, and at the end all seats' leaders are outcome's winners.
    rules = GAMES[game]
    players = rules.min_players + 1
    everyone = tuple(range(players))
    rng = Rng(hashlib.sha256(f"leaders/{game}".encode()).digest())
    state = started(rules, players, rng)
    for move in range(MAX_MOVES):
        if rules.outcome(state).finished:
            break
        candidates = everyone[move % players :]
        leading = rules.leaders(state, candidates)
        assert leading
        assert set(leading) <= set(candidates)
        seat = rules.to_move(state)[0]
        command = choose_move(game, state, seat) or next(rules.legal_moves(state, seat))
        decision = rules.decide(state, command, rng)
        assert isinstance(decision, Accepted), (command, decision)
        state = rules.fold(state, decision.events)
    outcome = rules.outcome(state)

    assert outcome.finished
    assert outcome.winners
    assert rules.leaders(state, everyone) == outcome.winners


# --- each game's ranking ---


def test_qwirkle_leaders_have_the_highest_score_among_the_candidates() -> None:
    rules = qwirkle.RULES
    state = replace(fresh(rules, 4), scores=(5, 9, 9, 2))

    assert rules.leaders(state, (0, 1, 2, 3)) == (1, 2)  # D10: ties share
    assert rules.leaders(state, (0, 3)) == (0,)
    assert rules.leaders(state, (0, 2)) == (2,)


def test_hues_and_cues_leaders_share_a_tie_with_no_tie_break_round() -> None:
    rules = hues_and_cues.RULES
    state = replace(fresh(rules, 4), scores=(7, 12, 12, 3))

    assert rules.leaders(state, (0, 1, 2, 3)) == (1, 2)
    assert rules.leaders(state, (0, 3)) == (0,)


def test_hues_and_cues_leaders_of_a_game_over_are_its_recorded_winners() -> None:
    # After tie-break rounds the scores hold them: the sole leader has won.
    rules = hues_and_cues.RULES
    state = replace(
        fresh(rules, 3),
        phase=hues_and_cues.Phase.GAME_OVER,
        scores=(14, 17, 15),
        winners=(1,),
    )

    assert rules.leaders(state, (0, 1, 2)) == rules.outcome(state).winners
    assert rules.leaders(state, (0, 2)) == (2,)


def test_split_leaders_have_the_best_total_then_fewer_negative_marks() -> None:
    # Totals: 6, 10 - 2 x 2 = 6, 6 and 3; seat 1's negatives break the tie (D15).
    rules = split.RULES
    rows = [(3,), (4,), (3,), (2,)]
    state = replace(
        fresh(rules, 4),
        marks=tuple(row + (0,) * 12 for row in rows),
        negatives=(0, 2, 0, 0),
    )

    assert rules.outcome(state).scores == (6, 6, 6, 3)
    assert rules.leaders(state, (0, 1, 2, 3)) == (0, 2)
    assert rules.leaders(state, (1, 3)) == (1,)
    assert rules.leaders(state, (1, 2)) == (2,)


def test_gnoming_leaders_have_the_lowest_total_and_share_a_tie_mid_game() -> None:
    rules = gnoming_a_round.RULES
    state = replace(
        fresh(rules, 3),
        round=2,
        round_scores=((10, 4, 4),),
        totals=(10, 4, 4),
    )

    assert rules.leaders(state, (0, 1, 2)) == (1, 2)
    assert rules.leaders(state, (0, 2)) == (2,)
    assert rules.leaders(state, (0,)) == (0,)


def test_gnoming_leaders_break_a_tie_on_the_third_round_once_it_is_scored() -> None:
    # D16: seats 1 and 2 tie on 4; seat 1 scored less in round 3.
    rules = gnoming_a_round.RULES
    state = replace(
        fresh(rules, 3),
        phase=GnomingPhase.GAME_OVER,
        round=3,
        round_scores=((5, 1, 0), (2, 2, 2), (3, 1, 2)),
        totals=(10, 4, 4),
        winners=(1,),
    )

    assert rules.leaders(state, (0, 1, 2)) == rules.outcome(state).winners == (1,)
    assert rules.leaders(state, (0, 2)) == (2,)


def test_fool_leaders_have_the_best_total_then_the_best_ten_count() -> None:
    rules = fool.RULES
    state = replace(
        fresh(rules, 5),
        scores=(-5, 3, 3, 3, 3),
        ten_counts=(4, 1, 2, 2, 0),
    )

    assert rules.leaders(state, (0, 1, 2, 3, 4)) == (2, 3)  # D8: then shared
    assert rules.leaders(state, (1, 4)) == (1,)
    assert rules.leaders(state, (0,)) == (0,)


# --- the table tests' counting game ---


def test_the_counting_game_leads_with_its_winner_once_over() -> None:
    rules = counting_game.RULES
    state = counting_game.State(2, count=3, to_move=1, totals=(3, 0))
    over = counting_game.State(2, count=10, to_move=1, totals=(4, 6))

    assert rules.leaders(state, (0, 1)) == (0,)
    assert rules.leaders(state, (1,)) == (1,)
    assert rules.leaders(over, (0, 1)) == rules.outcome(over).winners == (0,)
    assert rules.leaders(over, ()) == ()
