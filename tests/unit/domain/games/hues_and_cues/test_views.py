"""Views and redaction for every viewer kind (spec §3.6, D13; DESIGN §5)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.common.seats import Operator, Seat, Spectator, Viewer
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.events import (
    CardDrawn,
    DeckShuffled,
    RoundScored,
    TargetChosen,
)
from domain.games.hues_and_cues.model import GiveFirstCue, Phase, PlaceGuess
from domain.games.hues_and_cues.views import (
    HuesAndCuesPublic,
    HuesAndCuesSecret,
    view,
    visible,
)
from tests.unit.domain.games.hues_and_cues.hues import far_round, sq, start

GAME = start(4, first=0)
assert GAME.state.card is not None
CARD = CARDS[GAME.state.card]
TARGET = CARD.squares[2]
GAME.play(GiveFirstCue(0, TARGET, "Tomato"))
GAME.play(PlaceGuess(1, sq("A1")))
STATE = GAME.state
SECRET = HuesAndCuesSecret(card_id=CARD.id, card_squares=CARD.squares, target=TARGET)
OTHERS: list[Viewer] = [Seat(1), Seat(3), Seat(7), Spectator()]


def test_everyone_sees_the_public_part() -> None:
    public = view(STATE, Spectator()).public
    assert public == HuesAndCuesPublic(
        phase=Phase.FIRST_GUESSES,
        round=1,
        regular_rounds=8,
        tiebreak=False,
        cue_giver=0,
        to_move=(2,),
        free_choice_variant=False,
        cues=("Tomato",),
        pieces=STATE.pieces,
        scores=(0, 0, 0, 0),
        deck_size=99,
        last_scored=None,
        winners=(),
        end_reason=None,
    )
    for viewer in (Seat(0), Seat(1), Operator()):
        assert view(STATE, viewer).public == public


def test_the_cue_giver_and_the_operator_see_the_card_and_the_target() -> None:
    assert view(STATE, Seat(0)).secret == SECRET
    assert view(STATE, Operator()).secret == SECRET


@pytest.mark.parametrize("viewer", OTHERS, ids=repr)
def test_guessers_and_spectators_see_no_secret(viewer: Viewer) -> None:
    seen = view(STATE, viewer)
    assert seen.secret is None
    assert CARD.id not in repr(seen)
    assert str(TARGET) not in {str(p.square) for p in seen.public.pieces}


def test_before_the_first_round_nobody_has_a_secret() -> None:
    initial = GAME.initial
    assert view(initial, Seat(0)).secret is None
    assert view(initial, Operator()).secret == HuesAndCuesSecret(None, (), None)


def test_the_deck_order_is_the_operators_only() -> None:
    shuffled = GAME.events[0]
    assert isinstance(shuffled, DeckShuffled)
    assert visible(shuffled, Operator()) == shuffled
    for viewer in (Seat(0), *OTHERS):
        assert visible(shuffled, viewer) == replace(shuffled, cards=())


def test_the_drawn_card_is_the_cue_givers_only() -> None:
    drawn = GAME.events[3]
    assert isinstance(drawn, CardDrawn)
    assert visible(drawn, Seat(0)) == drawn
    assert visible(drawn, Operator()) == drawn
    for viewer in OTHERS:
        assert visible(drawn, viewer) == CardDrawn(1, 0, None, ())


def test_the_target_is_the_cue_givers_only_until_revealed() -> None:
    chosen = GAME.events[4]
    assert isinstance(chosen, TargetChosen)
    assert visible(chosen, Seat(0)) == chosen
    assert visible(chosen, Operator()) == chosen
    for viewer in OTHERS:
        assert visible(chosen, viewer) == TargetChosen(1, 0, None)


def test_public_events_are_shown_unchanged_to_everyone() -> None:
    game = start(4, first=0)
    events = far_round(game)
    for event in (*game.events[1:3], *game.events[5:]):
        if isinstance(event, CardDrawn | TargetChosen):
            continue
        for viewer in (Seat(0), Seat(2), Spectator(), Operator()):
            assert visible(event, viewer) == event
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert view(game.state, Spectator()).public.last_scored == scored


def test_after_a_round_the_next_cue_giver_sees_only_the_new_card() -> None:
    game = start(4, first=0)
    far_round(game)
    assert game.state.card is not None
    new = view(game.state, Seat(1)).secret
    assert new == HuesAndCuesSecret(
        game.state.card, CARDS[game.state.card].squares, None
    )
    assert view(game.state, Seat(0)).secret is None
