"""The cue checks of spec §4.1-§4.4 (D8, D10), with the spec's examples."""

from __future__ import annotations

import pytest

from domain.common.decision import Rejected, RejectionKind
from domain.games.hues_and_cues.cues import (
    BASIC_COLOR_FORMS,
    MAX_CUE_LENGTH,
    NUMBER_WORDS,
    POSITION_WORDS,
    RELATIVE_WORDS,
    Cue,
    check_cue,
    clean,
)
from domain.games.hues_and_cues.vocabulary import SUGGESTED_CUES


def accepted(text: str, cue_no: int = 1, given: tuple[str, ...] = ()) -> Cue:
    cue = check_cue(text, cue_no, given)
    assert isinstance(cue, Cue), cue
    return cue


def reason(text: str, cue_no: int = 1, given: tuple[str, ...] = ()) -> str:
    refused = check_cue(text, cue_no, given)
    assert isinstance(refused, Rejected), refused
    return refused.reason


def test_step_1_normalises_unicode_apostrophes_and_whitespace() -> None:
    assert clean("  sea \t\n  foam ") == "sea foam"
    assert (
        clean("\uff54\uff4f\uff4d\uff41\uff54\uff4f") == "tomato"
    )  # NFKC folds full-width letters
    assert clean("o\u2019hara") == "o'hara"


def test_the_display_text_keeps_case_and_the_normalised_form_folds_it() -> None:
    cue = accepted("  Sea   Foam ", 2)
    assert cue.text == "Sea Foam"
    assert cue.normalized == "sea foam"
    assert accepted("O\u2019Hara").normalized == "ohara"  # apostrophes removed
    assert accepted("Straße").normalized == "strasse"


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_an_empty_cue_is_refused(text: str) -> None:
    assert reason(text) == "CUE_EMPTY"


@pytest.mark.parametrize(
    "text", ["tomato1", "7", "tomato!", "to.mato", "tomato\U0001f345", "sea_foam"]
)
def test_digits_punctuation_and_emoji_are_refused(text: str) -> None:
    assert reason(text) == "CUE_INVALID_CHARACTERS"


def test_letters_of_any_script_are_allowed() -> None:
    assert accepted("échalote").text == "échalote"
    assert accepted("сирень").normalized == "сирень"


def test_at_most_40_characters() -> None:
    assert accepted("a" * 20 + " " + "b" * 19, 2).text  # 40 characters
    assert reason("a" * 20 + " " + "b" * 20, 2) == "CUE_TOO_LONG"
    assert reason("x" * (MAX_CUE_LENGTH + 1)) == "CUE_TOO_LONG"


def test_a_hyphen_splits_words_so_sea_foam_is_two_words() -> None:
    assert reason("sea-foam", 1) == "CUE_WORD_COUNT"
    assert accepted("sea-foam", 2).words == ("sea", "foam")


@pytest.mark.parametrize("text", ["-tomato", "tomato-", "sea--foam", "'", "sea ''"])
def test_an_empty_word_is_refused(text: str) -> None:
    assert reason(text, 2) == "CUE_EMPTY_WORD"


def test_the_first_cue_has_one_word_and_the_second_one_or_two() -> None:
    refused = check_cue("pig snout", 1)
    assert isinstance(refused, Rejected)
    assert refused.reason == "CUE_WORD_COUNT"
    assert refused.metadata == {
        "cueNo": "1",
        "words": "2",
        "minWords": "1",
        "maxWords": "1",
    }
    assert accepted("pig snout", 2).normalized == "pig snout"
    assert reason("pig snout tail", 2) == "CUE_WORD_COUNT"


def test_the_same_word_twice_in_one_cue_is_refused() -> None:
    assert reason("pig Pig", 2) == "CUE_REPEATED_WORD"


@pytest.mark.parametrize(
    "word",
    [
        "blueberry",
        "greenish",
        "offwhite",
        "evergreen",
        "reddish",
        "Red",
        "orangy",
        "GREY",
        "pinkish",
        "blackberry",
    ],
)
def test_basic_colour_words_are_refused(word: str) -> None:
    refused = check_cue(word, 1)
    assert isinstance(refused, Rejected)
    assert refused.reason == "CUE_BASIC_COLOR"
    assert word in refused.message  # the player's own word, nothing hidden


@pytest.mark.parametrize("word", ["tired", "shredded", "credit", "bored"])
def test_red_is_not_tested_as_a_substring(word: str) -> None:
    assert accepted(word).normalized == word


def test_every_listed_basic_colour_form_is_refused() -> None:
    assert all(reason(word) == "CUE_BASIC_COLOR" for word in BASIC_COLOR_FORMS)


@pytest.mark.parametrize("word", ["a", "I", "x", "ß", "o'"])
def test_a_single_letter_is_refused_as_a_board_reference(word: str) -> None:
    assert reason(word) == "CUE_BOARD_REFERENCE"


def test_number_and_position_words_are_refused() -> None:
    for word in NUMBER_WORDS | POSITION_WORDS:
        assert reason(word) == "CUE_BOARD_REFERENCE", word
    assert reason("Top-Left", 2) == "CUE_BOARD_REFERENCE"


def test_relative_words_are_refused_only_in_the_second_cue() -> None:
    for word in RELATIVE_WORDS:
        assert isinstance(check_cue(word, 1), Cue), word
        assert reason(word, 2) == "CUE_RELATIVE_WORD", word
    assert reason("darker sky", 2) == "CUE_RELATIVE_WORD"


def test_a_cue_given_before_in_the_game_is_refused_whatever_its_case() -> None:
    refused = check_cue("Tomato", 2, ("tomato",))
    assert isinstance(refused, Rejected)
    assert refused.reason == "CUE_ALREADY_GIVEN"
    assert refused.kind is RejectionKind.NOT_ALLOWED_NOW
    assert reason("sea-foam", 2, ("sea foam",)) == "CUE_ALREADY_GIVEN"


def test_a_word_may_be_reused_inside_a_different_cue() -> None:
    # D10: "pig" then "pig snout" is allowed.
    pig = accepted("pig", 1)
    assert accepted("pig snout", 2, (pig.normalized,)).normalized == "pig snout"


def test_the_text_checks_are_malformed_and_the_repeat_is_not_allowed_now() -> None:
    malformed = [
        check_cue(text, 2)
        for text in ("", "7", "x" * 41, "a--b", "a b c", "pig pig", "blue", "row")
    ]
    malformed.append(check_cue("darker", 2))
    assert all(isinstance(r, Rejected) for r in malformed)
    assert {r.kind for r in malformed if isinstance(r, Rejected)} == {
        RejectionKind.MALFORMED
    }


def test_every_suggested_cue_passes_every_check_as_first_and_second_cue() -> None:
    assert len(SUGGESTED_CUES) >= 100
    assert len(set(SUGGESTED_CUES)) == len(SUGGESTED_CUES)
    for word in SUGGESTED_CUES:
        assert accepted(word, 1).normalized == word
        assert accepted(word, 2).normalized == word
    # 12 regular and 10 tie-break rounds of two cues never exhaust the words.
    assert len(SUGGESTED_CUES) > 2 * (12 + 10)
