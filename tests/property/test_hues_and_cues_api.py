"""Over random Hues and Cues games, the API messages hide what the rules hide.

For every revision of a game in progress and every viewer (each seat, a
spectator), the ``HuesAndCuesView`` and ``HuesAndCuesEvent`` messages built for
that viewer hold no card, no card id and no square outside the pieces and the
revealed targets, unless the viewer is the cue giver of that round. Every legal
move and the table options survive the trip through their messages.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message
from tabletop.v1 import hues_and_cues_pb2

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.seats import Seat, Spectator, Viewer
from domain.games.hues_and_cues import (
    RULES,
    CardDrawn,
    Event,
    HuesAndCuesConfig,
    State,
    TargetChosen,
)
from services.api.convert.registry import converter_for

convert = converter_for("hues_and_cues")

PLAYER_COUNTS = (3, 4, 7, 10)
CARD_ID = re.compile(r"C\d{3}")
# Messages whose squares are public: guesses and revealed targets.
PUBLIC_SQUARES = (
    "HuesAndCuesPiece",
    "HuesAndCuesTargetRevealed",
    "HuesAndCuesRoundScore",
)
NAMES = "games/g/players/{}".format


def played(players: int, seed: int, *, free: bool = False) -> list[tuple[State, Event]]:
    """Plays a random complete game; returns each event and the state it led to."""
    chooser = random.Random(seed)
    rng = Rng(bytes([seed % 256]) * 32)
    state = RULES.initial_state(players, HuesAndCuesConfig(free_choice_variant=free))
    steps: list[tuple[State, Event]] = []
    for event in RULES.setup(state, rng):
        state = RULES.evolve(state, event)
        steps.append((state, event))
    while not state.finished:
        seat = RULES.to_move(state)[0]
        command = chooser.choice(list(RULES.legal_moves(state, seat)))
        decision = RULES.decide(state, command, rng)
        assert isinstance(decision, Accepted), decision
        for event in decision.events:
            state = RULES.evolve(state, event)
            steps.append((state, event))
    return steps


def viewers(players: int) -> list[tuple[Viewer, int | None]]:
    """Returns the spectator and every seat."""
    return [(Spectator(), None), *((Seat(s), s) for s in range(players))]


def hidden_things(message: Message, *, inside_public: bool = False) -> Iterator[str]:
    """Yields every card, card id and non-public square a message holds."""
    kind = type(message).__name__
    if kind == "HuesAndCuesCard":
        yield f"card {message}"
        return
    if kind == "HuesAndCuesSquare" and not inside_public:
        yield f"square {message}"
        return
    public = inside_public or kind in PUBLIC_SQUARES
    for descriptor, value in message.ListFields():
        items = value if descriptor.is_repeated else [value]
        for item in items:
            if descriptor.message_type is not None:
                yield from hidden_things(item, inside_public=public)
            elif isinstance(item, str) and CARD_ID.fullmatch(item):
                yield f"card id {item}"


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_no_message_shows_a_card_or_the_target_to_anyone_but_the_cue_giver(
    players: int,
) -> None:
    checked = 0
    for state, event in played(players, players):
        if state.finished:
            break  # once finished, everybody sees everything (T5)
        for viewer, seat in viewers(players):
            if seat == state.cue_giver and isinstance(event, CardDrawn | TargetChosen):
                continue
            shown = convert.event_to_proto(RULES.visible(event, viewer), NAMES)
            assert not list(hidden_things(shown)), (event, viewer)
            view = RULES.view(state, viewer)
            message = convert.view_to_proto(view, NAMES)
            if seat == state.cue_giver:
                message.ClearField("card")
                message.ClearField("target")
            assert not list(hidden_things(message)), (state.phase, viewer)
            checked += 1
    assert checked > players * 20


def test_the_cue_giver_sees_the_card_and_the_target_in_the_messages() -> None:
    steps = played(4, 11)
    for state, event in steps:
        if isinstance(event, TargetChosen) and not state.finished:
            giver = Seat(state.cue_giver)
            view = convert.view_to_proto(RULES.view(state, giver), NAMES)
            assert view.target.id == str(state.target)
            assert view.card.id == state.card
            assert str(state.target) in {s.id for s in view.card.squares}
            shown = convert.event_to_proto(RULES.visible(event, giver), NAMES)
            assert shown.target_chosen.target.id == str(state.target)
            return
    pytest.fail("no target was chosen")


@pytest.mark.parametrize("free", [False, True])
def test_every_legal_move_survives_the_round_trip_through_its_message(
    *, free: bool
) -> None:
    for state, _ in played(3, 5, free=free):
        for seat in RULES.to_move(state):
            for move in RULES.legal_moves(state, seat):
                message = convert.move_to_proto(move)
                assert convert.move_from_proto(message, seat, "move") == move
    for config in (
        HuesAndCuesConfig(),
        HuesAndCuesConfig(first_cue_giver=0),
        HuesAndCuesConfig(first_cue_giver=2, free_choice_variant=True),
    ):
        assert convert.config_from_proto(convert.config_to_proto(config)) == config


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
