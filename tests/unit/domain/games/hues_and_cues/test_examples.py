"""The worked examples of spec §5.1 and §5.2, played through ``decide``/``evolve``."""

from __future__ import annotations

from dataclasses import replace

from domain.games.hues_and_cues import RULES
from domain.games.hues_and_cues.events import (
    EndReason,
    GameEnded,
    RoundScored,
    RoundStarted,
    TargetRevealed,
)
from tests.unit.domain.games.hues_and_cues.hues import far_round, play_round, sq, start


def scored(events: tuple[object, ...]) -> RoundScored:
    (found,) = [e for e in events if isinstance(e, RoundScored)]
    return found


def test_example_1_six_players_one_point_per_piece_for_the_cue_giver() -> None:
    # Cue giver seat 0; Green 1, Black 2, Yellow 3, White 4, Red 5 (the free-choice
    # variant lets the target be H15).
    game = start(6, first=0, variant=True)
    events = play_round(
        game,
        sq("H15"),
        first={1: "H15", 2: "H16", 3: "I14", 4: "H17", 5: "J16"},
        second={1: "G14", 2: "J13", 3: "F17", 4: "C3", 5: "P30"},
    )
    assert TargetRevealed(1, sq("H15")) in events
    result = scored(events)
    assert result.points == (4, 5, 3, 3, 1, 1)
    assert result.pieces_in_frame == 4
    by_square = {str(p.square): (p.distance, p.points) for p in result.pieces}
    assert by_square == {
        "H15": (0, 3),
        "G14": (1, 2),
        "H16": (1, 2),
        "J13": (2, 1),
        "I14": (1, 2),
        "F17": (2, 1),
        "H17": (2, 1),
        "C3": (12, 0),
        "J16": (2, 1),
        "P30": (15, 0),
    }
    assert game.state.scores == (4, 5, 3, 3, 1, 1)
    assert game.state.round == 2  # the next round has started
    assert RULES.fold(game.initial, tuple(game.events)) == game.state


def test_example_2_orange_scores_seven() -> None:
    # Orange 0 gives the cue; Red 1, Green 2, Yellow 3, White 4, Black 5.
    game = start(6, first=0, variant=True)
    events = play_round(
        game,
        sq("O26"),
        first={1: "O26", 2: "N25", 3: "N26", 4: "P25", 5: "O25"},
        second={1: "O27", 2: "P27", 3: "M28", 4: "A1", 5: "B2"},
    )
    result = scored(events)
    assert result.points == (7, 5, 4, 3, 2, 2)
    assert result.pieces_in_frame == 7


def test_example_3_three_players_target_on_the_edge() -> None:
    # Cue giver 0; X is seat 1, Y seat 2. First guesses 1 then 2 (D6), second
    # guesses 2 then 1. A1 is on card C001, but the variant keeps the test short.
    game = start(3, first=0, variant=True)
    events = play_round(
        game, sq("A1"), first={1: "A1", 2: "B2"}, second={1: "C3", 2: "B3"}
    )
    result = scored(events)
    assert result.points == (4, 4, 3)
    assert result.pieces_in_frame == 2  # worth 2 each with 3 players (D16)


def test_the_tiebreak_example_c_gives_the_cue_and_b_wins() -> None:
    game = start(4, first=0, variant=True)
    # The example's final regular scores are set directly (dataclasses.replace
    # is unavoidable here); every regular round below then scores nothing.
    game.state = replace(game.state, scores=(31, 31, 27, 20))
    for _ in range(8):
        events = far_round(game)
    givers = [e.cue_giver for e in game.events if isinstance(e, RoundStarted)]
    assert givers[:8] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert events[-1] == RoundStarted(round=9, cue_giver=2, tiebreak=True)
    assert game.state.scores == (31, 31, 27, 20)
    # C (seat 2) gives the cue; D guesses first, then A and B (clockwise).
    assert game.state.cue_giver == 2
    events = play_round(game, sq("H15"), first={3: "A1", 0: "G14", 1: "H15"})
    assert scored(events).points == (2, 3, 2, 0)
    assert events[-1] == GameEnded(
        scores=(33, 34, 29, 20), winners=(1,), reason=EndReason.SOLE_LEADER
    )
    assert RULES.outcome(game.state).winners == (1,)
