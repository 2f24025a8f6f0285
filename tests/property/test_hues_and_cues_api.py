"""Hues and Cues in its messages: what only this game's messages promise.

The cue giver's view and event messages name the drawn card and the target by
their ids, and a square is read from a move only in the spelling the server
writes (D30). That every game's messages hide what its views hide, and carry
every move and option whole, is checked by the contract suite,
``tests/contract/``.
"""

from __future__ import annotations

from tabletop.v1 import hues_and_cues_pb2

from domain.common.seats import Seat
from domain.games.hues_and_cues import (
    RULES,
    GiveFirstCue,
    HuesAndCuesConfig,
    PlaceGuess,
)
from domain.games.hues_and_cues.board import ALL_SQUARES
from services.api.convert.hues_and_cues import NAME_FORM
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


def test_a_square_is_read_only_in_the_spelling_the_server_writes() -> None:
    for square in ALL_SQUARES:
        command = convert.move_from_proto(_guess(str(square)), 1, "move")
        assert command == PlaceGuess(1, square)
        assert convert.move_to_proto(command).place_guess.square.id == str(square)
    spellings = (("h15", "H15"), ("H 15", "H15"), ("p30", "P30"), ("A01", "A1"))
    for text, name in spellings:
        problems = convert.move_from_proto(_guess(text), 1, "move")
        assert isinstance(problems, list), text
        assert problems[0].field == "move.place_guess.square.id"
        assert problems[0].description.startswith(NAME_FORM)
        assert problems[0].description.endswith(f"{text!r} is written {name}")
    for text in ("Q1", "A31", "A0", "H  15", " H15", "", "A001"):
        problems = convert.move_from_proto(_guess(text), 1, "move")
        assert isinstance(problems, list), text
        assert problems[0].field == "move.place_guess.square.id"
        assert problems[0].description == NAME_FORM


def _guess(text: str) -> hues_and_cues_pb2.HuesAndCuesMove:
    return hues_and_cues_pb2.HuesAndCuesMove(
        place_guess=hues_and_cues_pb2.HuesAndCuesPlaceGuess(
            square=hues_and_cues_pb2.HuesAndCuesSquare(id=text)
        )
    )
