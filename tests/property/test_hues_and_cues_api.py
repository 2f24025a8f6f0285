"""Hues and Cues in its messages: what only this game's messages promise.

The cue giver's view and event messages name the drawn card and the target by
their ids, and a square is read from a move case-insensitively with one
optional space. That every game's messages hide what its views hide, and carry
every move and option whole, is checked by the contract suite,
``tests/contract/``.
"""

from __future__ import annotations

from tabletop.v1 import hues_and_cues_pb2

from domain.common.seats import Seat
from domain.games.hues_and_cues import RULES, GiveFirstCue, HuesAndCuesConfig
from services.api.convert.registry import converter_for
from tests.property.random_games import set_up

convert = converter_for("hues_and_cues")
NAMES = "games/g/players/{}".format


def test_the_cue_giver_sees_the_card_and_the_target_in_the_messages() -> None:
    game = set_up(RULES, 4, HuesAndCuesConfig(), "hues-api/4/11")
    giver = RULES.to_move(game.state)[0]
    cue = next(
        move
        for move in RULES.legal_moves(game.state, giver)
        if isinstance(move, GiveFirstCue)
    )
    (chosen, *_) = game.move(cue)
    state = game.state
    view = convert.view_to_proto(RULES.view(state, Seat(giver)), NAMES)
    assert view.target.id == str(state.target)
    assert view.card.id == state.card
    assert str(state.target) in {s.id for s in view.card.squares}
    shown = convert.event_to_proto(RULES.visible(chosen, Seat(giver)), NAMES)
    assert shown.target_chosen.target.id == str(state.target)


def test_a_square_is_read_case_insensitively_with_one_optional_space() -> None:
    for text, expected in (("h15", "H15"), ("H 15", "H15"), ("p30", "P30")):
        command = convert.move_from_proto(_guess(text), 1, "move")
        assert not isinstance(command, list), text
        assert convert.move_to_proto(command).place_guess.square.id == expected
    for text in ("Q1", "A31", "A0", "H  15", " H15", ""):
        problems = convert.move_from_proto(_guess(text), 1, "move")
        assert isinstance(problems, list), text
        assert problems[0].field == "move.place_guess.square.id"


def _guess(text: str) -> hues_and_cues_pb2.HuesAndCuesMove:
    return hues_and_cues_pb2.HuesAndCuesMove(
        place_guess=hues_and_cues_pb2.HuesAndCuesPlaceGuess(
            square=hues_and_cues_pb2.HuesAndCuesSquare(id=text)
        )
    )
