"""Every precondition of ``decide`` refused with its own reason and rule (§3, §4)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.common.decision import Rejected, RejectionKind
from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.board import ALL_SQUARES, Square
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    HuesAndCuesConfig,
    Phase,
    PlaceGuess,
    SkipSecondCue,
    State,
)
from tests.unit.domain.games.hues_and_cues.hues import HUES_RNG, Game, sq, start


def _states() -> dict[str, State]:
    """Returns one state per step of a 4-player round, cue giver seat 0."""
    game = start(4, first=0)
    states = {"first_cue": game.state}
    assert game.state.card is not None
    target = CARDS[game.state.card].squares[0]
    game.play(GiveFirstCue(0, target, "tomato"))
    states["first_guesses"] = game.state
    game.play(PlaceGuess(1, sq("A1")))
    states["one_guess"] = game.state
    game.play(PlaceGuess(2, sq("A2")))
    game.play(PlaceGuess(3, sq("A3")))
    states["second_cue"] = game.state
    game.play(GiveSecondCue(0, "sea foam"))
    states["second_guesses"] = game.state
    return states


STATES = _states()
FIRST_CUE = STATES["first_cue"]
FIRST_GUESSES = STATES["first_guesses"]
ONE_GUESS = STATES["one_guess"]
SECOND_CUE = STATES["second_cue"]
SECOND_GUESSES = STATES["second_guesses"]
SETUP = RULES.initial_state(4, HuesAndCuesConfig(first_cue_giver=0))
OVER = replace(FIRST_CUE, phase=Phase.GAME_OVER)
assert FIRST_CUE.card is not None
ON_CARD = CARDS[FIRST_CUE.card].squares[0]
OFF_CARD = next(s for s in ALL_SQUARES if s not in CARDS[FIRST_CUE.card].squares)
A1 = sq("A1")
B1 = sq("B1")


def first(cue: str) -> GiveFirstCue:
    return GiveFirstCue(0, ON_CARD, cue)


def second(cue: str) -> GiveSecondCue:
    return GiveSecondCue(0, cue)


CASES: list[tuple[str, State, Command, str, str]] = [
    ("not started", SETUP, first("tomato"), "GAME_NOT_STARTED", "hues_and_cues/setup"),
    ("game over", OVER, PlaceGuess(1, A1), "GAME_OVER", "hues_and_cues/game_end"),
    (
        "guesser gives a cue",
        FIRST_CUE,
        GiveFirstCue(1, ON_CARD, "tomato"),
        "NOT_THE_CUE_GIVER",
        "hues_and_cues/cue_giver",
    ),
    (
        "guesser skips the second cue",
        SECOND_CUE,
        SkipSecondCue(2),
        "NOT_THE_CUE_GIVER",
        "hues_and_cues/cue_giver",
    ),
    (
        "cue giver guesses",
        FIRST_GUESSES,
        PlaceGuess(0, B1),
        "CUE_GIVER_CANNOT_GUESS",
        "hues_and_cues/cue_giver_no_guess",
    ),
    (
        "first cue twice",
        FIRST_GUESSES,
        first("lavender"),
        "FIRST_CUE_ALREADY_GIVEN",
        "hues_and_cues/first_cue_once",
    ),
    (
        "second cue before the first",
        FIRST_CUE,
        second("lavender"),
        "SECOND_CUE_TOO_EARLY",
        "hues_and_cues/second_cue_after_guesses",
    ),
    (
        "skip during the first guesses",
        ONE_GUESS,
        SkipSecondCue(0),
        "SECOND_CUE_TOO_EARLY",
        "hues_and_cues/second_cue_after_guesses",
    ),
    (
        "second cue twice",
        SECOND_GUESSES,
        second("lavender"),
        "SECOND_CUE_ALREADY_GIVEN",
        "hues_and_cues/second_cue_once",
    ),
    (
        "guess before the first cue",
        FIRST_CUE,
        PlaceGuess(1, B1),
        "WAITING_FOR_CUE",
        "hues_and_cues/guess_after_cue",
    ),
    (
        "guess before the second cue",
        SECOND_CUE,
        PlaceGuess(3, B1),
        "WAITING_FOR_CUE",
        "hues_and_cues/guess_after_cue",
    ),
    (
        "first guess out of turn",
        FIRST_GUESSES,
        PlaceGuess(2, B1),
        "NOT_YOUR_TURN",
        "hues_and_cues/guess_order",
    ),
    (
        "second guesses go counter-clockwise",
        SECOND_GUESSES,
        PlaceGuess(1, B1),
        "NOT_YOUR_TURN",
        "hues_and_cues/guess_order",
    ),
    (
        "target off the board",
        FIRST_CUE,
        GiveFirstCue(0, Square(16, 0), "tomato"),
        "SQUARE_OFF_BOARD",
        "hues_and_cues/square_on_board",
    ),
    (
        "guess off the board",
        FIRST_GUESSES,
        PlaceGuess(1, Square(0, 30)),
        "SQUARE_OFF_BOARD",
        "hues_and_cues/square_on_board",
    ),
    (
        "target not on the card",
        FIRST_CUE,
        GiveFirstCue(0, OFF_CARD, "tomato"),
        "TARGET_NOT_ON_CARD",
        "hues_and_cues/target_on_card",
    ),
    (
        "square taken",
        ONE_GUESS,
        PlaceGuess(2, A1),
        "SQUARE_TAKEN",
        "hues_and_cues/one_piece_per_square",
    ),
    (
        "square taken by a first guess",
        SECOND_GUESSES,
        PlaceGuess(3, sq("A2")),
        "SQUARE_TAKEN",
        "hues_and_cues/one_piece_per_square",
    ),
    ("empty cue", FIRST_CUE, first("  "), "CUE_EMPTY", "hues_and_cues/cue_empty"),
    (
        "digits",
        FIRST_CUE,
        first("tomato2"),
        "CUE_INVALID_CHARACTERS",
        "hues_and_cues/cue_characters",
    ),
    (
        "too long",
        SECOND_CUE,
        second("a" * 41),
        "CUE_TOO_LONG",
        "hues_and_cues/cue_length",
    ),
    (
        "doubled hyphen",
        SECOND_CUE,
        second("sea--foam"),
        "CUE_EMPTY_WORD",
        "hues_and_cues/cue_words",
    ),
    (
        "two words first",
        FIRST_CUE,
        first("sea-foam"),
        "CUE_WORD_COUNT",
        "hues_and_cues/cue_word_count",
    ),
    (
        "three words second",
        SECOND_CUE,
        second("pig snout tail"),
        "CUE_WORD_COUNT",
        "hues_and_cues/cue_word_count",
    ),
    (
        "a word twice",
        SECOND_CUE,
        second("moss Moss"),
        "CUE_REPEATED_WORD",
        "hues_and_cues/cue_repeated_word",
    ),
    (
        "basic colour",
        FIRST_CUE,
        first("blueberry"),
        "CUE_BASIC_COLOR",
        "hues_and_cues/basic_colors",
    ),
    (
        "board reference",
        FIRST_CUE,
        first("corner"),
        "CUE_BOARD_REFERENCE",
        "hues_and_cues/board_references",
    ),
    (
        "relative word",
        SECOND_CUE,
        second("darker"),
        "CUE_RELATIVE_WORD",
        "hues_and_cues/relative_words",
    ),
    (
        "second cue repeats the first",
        SECOND_CUE,
        second("TOMATO"),
        "CUE_ALREADY_GIVEN",
        "hues_and_cues/cue_repeats",
    ),
]

MALFORMED = {
    "SQUARE_OFF_BOARD",
    "CUE_EMPTY",
    "CUE_INVALID_CHARACTERS",
    "CUE_TOO_LONG",
    "CUE_EMPTY_WORD",
    "CUE_WORD_COUNT",
    "CUE_REPEATED_WORD",
    "CUE_BASIC_COLOR",
    "CUE_BOARD_REFERENCE",
    "CUE_RELATIVE_WORD",
}


@pytest.mark.parametrize(
    ("state", "command", "reason", "rule"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_broken_precondition_is_refused_and_changes_nothing(
    state: State, command: Command, reason: str, rule: str
) -> None:
    before = replace(state)
    decision = RULES.decide(state, command, HUES_RNG)
    assert isinstance(decision, Rejected)
    assert (decision.reason, decision.rule) == (reason, rule)
    expected = RejectionKind.MALFORMED if reason in MALFORMED else None
    assert decision.kind is (expected or RejectionKind.NOT_ALLOWED_NOW)
    assert state == before


def test_every_reason_has_its_own_rule() -> None:
    rules: dict[str, set[str]] = {}
    for _, _, _, reason, rule in CASES:
        rules.setdefault(reason, set()).add(rule)
    assert all(len(found) == 1 for found in rules.values()), rules
    assert len(set(rules)) == len({rule for found in rules.values() for rule in found})


def test_the_target_refusal_never_names_the_card_or_its_squares() -> None:
    assert FIRST_CUE.card is not None
    refused = Game(FIRST_CUE, FIRST_CUE).refuse(GiveFirstCue(0, OFF_CARD, "tomato"))
    text = f"{refused.message} {dict(refused.metadata)}"
    assert FIRST_CUE.card not in text
    for square in CARDS[FIRST_CUE.card].squares:
        assert str(square) not in text


def test_the_role_is_checked_before_the_step_and_the_turn_before_the_square() -> None:
    refused = Game(FIRST_CUE, FIRST_CUE).refuse(GiveSecondCue(2, "darker"))
    assert refused.reason == "NOT_THE_CUE_GIVER"
    refused = Game(ONE_GUESS, ONE_GUESS).refuse(PlaceGuess(3, A1))
    assert refused.reason == "NOT_YOUR_TURN"
    refused = Game(FIRST_CUE, FIRST_CUE).refuse(GiveFirstCue(0, OFF_CARD, "blue"))
    assert refused.reason == "TARGET_NOT_ON_CARD"


def test_the_not_your_turn_refusal_names_the_seat_to_guess() -> None:
    refused = Game(FIRST_GUESSES, FIRST_GUESSES).refuse(PlaceGuess(3, B1))
    assert refused.metadata == {"currentPlayer": "1", "seat": "3"}


def test_the_target_square_may_be_guessed_when_empty() -> None:
    game = Game(FIRST_GUESSES, FIRST_GUESSES)
    assert FIRST_GUESSES.target is not None
    game.play(PlaceGuess(1, FIRST_GUESSES.target))
    assert game.state.pieces[-1].square == FIRST_GUESSES.target
