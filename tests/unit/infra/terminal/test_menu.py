"""The move list: numbers, filters, pages, and moves typed directly."""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from tabletop.v1 import game_pb2, hues_and_cues_pb2, move_pb2

from infra.terminal.menu import (
    Quit,
    Show,
    Submit,
    choose,
    matching,
    menu_of,
    pages,
    render_menu,
    with_page_size,
)
from infra.terminal.render_hues_and_cues import square_id
from tests.unit.infra.terminal.drawing import fitted, new_game

h = hues_and_cues_pb2


def _guess(name: str) -> move_pb2.Move:
    return move_pb2.Move(
        hues_and_cues=h.HuesAndCuesMove(
            place_guess=h.HuesAndCuesPlaceGuess(square=h.HuesAndCuesSquare(id=name))
        )
    )


def _guessing() -> tuple[game_pb2.Game, list[move_pb2.Move]]:
    game = new_game(game_pb2.GAME_TYPE_HUES_AND_CUES, "Ana", "Ben", "Cy")
    game.hues_and_cues_view.phase = h.HUES_AND_CUES_PHASE_FIRST_GUESSES
    moves = [_guess(square_id(r, c)) for r in range(16) for c in range(30)]
    return game, moves


def test_a_number_chooses_that_move_and_an_out_of_range_one_is_refused() -> None:
    game, moves = _guessing()
    menu = menu_of(moves, 7)
    assert choose(menu, "3", game) == Submit(moves[2])
    refused = choose(menu, "999", game)
    assert isinstance(refused, Show)
    assert refused.message == "no move 999: choose 1 to 480"


def test_480_squares_take_40_pages_and_a_filter_narrows_them() -> None:
    game, moves = _guessing()
    menu = menu_of(moves, 7)
    assert pages(menu) == 40
    shown = choose(menu, "/ h1", game)
    assert isinstance(shown, Show)
    assert [menu.labels[i].plain for i in matching(shown.menu)][:2] == [
        "guess H1",
        "guess H10",
    ]
    cleared = choose(shown.menu, "/", game)
    assert isinstance(cleared, Show)
    assert len(matching(cleared.menu)) == 480


def test_n_and_p_page_within_bounds() -> None:
    game, moves = _guessing()
    menu = menu_of(moves, 7)
    back = choose(menu, "p", game)
    assert isinstance(back, Show)
    assert back.menu.page == 0
    last = choose(replace(menu, page=39), "n", game)
    assert isinstance(last, Show)
    assert last.menu.page == 39


def test_a_typed_square_is_a_guess() -> None:
    game, moves = _guessing()
    chosen = choose(menu_of(moves, 7), "h 15", game)
    assert isinstance(chosen, Submit)
    assert chosen.move.hues_and_cues.place_guess.square.id == "H15"
    assert isinstance(choose(menu_of(moves, 7), "Q15", game), Show)


def test_the_cue_giver_types_a_target_and_a_cue() -> None:
    game = new_game(game_pb2.GAME_TYPE_HUES_AND_CUES, "Ana", "Ben", "Cy")
    game.hues_and_cues_view.phase = h.HUES_AND_CUES_PHASE_FIRST_CUE
    listed = move_pb2.Move(
        hues_and_cues=h.HuesAndCuesMove(
            give_first_cue=h.HuesAndCuesGiveFirstCue(
                target=h.HuesAndCuesSquare(id="C4"), cue="suggested"
            )
        )
    )
    menu = menu_of([listed], 3)
    typed = choose(menu, "H15 ocean", game)
    assert isinstance(typed, Submit)
    assert typed.move.hues_and_cues.give_first_cue.target.id == "H15"
    assert typed.move.hues_and_cues.give_first_cue.cue == "ocean"
    numbered = choose(menu, "1 lagoon", game)
    assert isinstance(numbered, Submit)
    first = numbered.move.hues_and_cues.give_first_cue
    assert (first.target.id, first.cue) == ("C4", "lagoon")


def test_the_second_cue_is_typed_or_skipped() -> None:
    game = new_game(game_pb2.GAME_TYPE_HUES_AND_CUES, "Ana", "Ben", "Cy")
    game.hues_and_cues_view.phase = h.HUES_AND_CUES_PHASE_SECOND_CUE
    skip = move_pb2.Move(
        hues_and_cues=h.HuesAndCuesMove(skip_second_cue=h.HuesAndCuesSkipSecondCue())
    )
    menu = menu_of([skip], 3)
    cue = choose(menu, "deep sea", game)
    assert isinstance(cue, Submit)
    assert cue.move.hues_and_cues.give_second_cue.cue == "deep sea"
    skipped = choose(menu, "skip", game)
    assert isinstance(skipped, Submit)
    assert skipped.move.hues_and_cues.HasField("skip_second_cue")


def test_q_quits_and_nonsense_is_explained() -> None:
    game = new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana", "Ben")
    menu = menu_of([], 3)
    assert choose(menu, "q", game) == Quit()
    nonsense = choose(menu, "H15", game)
    assert isinstance(nonsense, Show)
    assert nonsense.message == "not understood: 'H15'"


HINT = "or type a square, e.g. H15"


def test_the_help_takes_as_few_lines_as_80_columns_allow() -> None:
    game, moves = _guessing()
    menu = with_page_size(menu_of(moves, 3), 5)
    lines = fitted(80, 24, Text("a table with no board"), render_menu(menu, game))
    assert lines[6:] == [
        f"{len(moves)} legal moves; page 1/{pages(menu)}   q: quit   number: play it",
        ("/words: filter (/ clears)   n/p: next/previous page   " + HINT),
        "u: take back a move that revealed nothing   t: propose a takeback   r: resign",
    ]
