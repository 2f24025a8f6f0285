"""Stable stored names, and every stored value round-trips through the codec."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from domain.games.hues_and_cues import COMMANDS, EVENTS, RULES, VALUES
from domain.games.hues_and_cues.events import Event
from domain.games.hues_and_cues.model import (
    Command,
    GiveFirstCue,
    GiveSecondCue,
    HuesAndCuesConfig,
    PlaceGuess,
    SkipSecondCue,
)
from services.codec import Codec
from tests.unit.domain.games.hues_and_cues.hues import (
    far_round,
    game_target,
    play_round,
    sq,
    start,
)

CODEC = Codec({**EVENTS, **COMMANDS, **VALUES})


def test_every_name_is_the_game_name_and_the_class_name() -> None:
    names = {**EVENTS, **COMMANDS, **VALUES}
    for name, cls in names.items():
        expected = "Config" if cls is HuesAndCuesConfig else cls.__name__
        assert name == f"hues_and_cues.{expected}"
    assert (RULES.events, RULES.commands, RULES.values) == (EVENTS, COMMANDS, VALUES)
    assert set(EVENTS.values()) == set(typing.get_args(Event))
    assert set(COMMANDS.values()) == set(typing.get_args(Command))


def test_every_dataclass_inside_an_event_or_command_is_registered() -> None:
    registered = {*EVENTS.values(), *COMMANDS.values(), *VALUES.values()}
    for cls in (*EVENTS.values(), *COMMANDS.values(), HuesAndCuesConfig):
        for hint in typing.get_type_hints(cls).values():
            for inner in _classes(hint):
                if dataclasses.is_dataclass(inner):
                    assert inner in registered, (cls, inner)


def _classes(hint: Any) -> list[Any]:
    args = typing.get_args(hint)
    if not args:
        return [hint]
    return [c for arg in args if arg is not Ellipsis for c in _classes(arg)]


def test_a_played_game_round_trips_through_the_codec() -> None:
    game = start(3, first=None)
    a, b = (seat for seat in range(3) if seat != game.state.cue_giver)
    play_round(game, game_target(game), {a: "A1", b: "A2"}, {a: "B1", b: "B2"})
    for _ in range(5):
        far_round(game)
    assert game.state.finished
    for event in game.events:
        assert CODEC.decode(CODEC.encode(event)) == event
    commands = (
        GiveFirstCue(0, sq("H15"), "Sea"),
        PlaceGuess(1, sq("P30")),
        GiveSecondCue(0, "sea foam"),
        SkipSecondCue(2),
        HuesAndCuesConfig(first_cue_giver=2, free_choice_variant=True),
        HuesAndCuesConfig(),
    )
    for command in commands:
        assert CODEC.decode(CODEC.encode(command)) == command
