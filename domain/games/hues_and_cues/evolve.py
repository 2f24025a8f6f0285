"""``evolve``: the state after one event. Total over events, pure, never random."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from domain.games.hues_and_cues.events import (
    CardDrawn,
    CueGiven,
    DeckShuffled,
    Event,
    FirstCueGiverChosen,
    GameEnded,
    GuessPlaced,
    RoundScored,
    RoundStarted,
    SecondCueSkipped,
    TargetChosen,
    TargetRevealed,
)
from domain.games.hues_and_cues.model import Phase, Piece, State
from domain.games.hues_and_cues.scoring import first_guess_order, second_guess_order


def evolve(state: State, event: Event) -> State:
    """Returns the state after ``event``."""
    match event:
        case DeckShuffled():
            # D15: a reshuffle takes the used cards back into the deck.
            cards = set(event.cards)
            used = tuple(card for card in state.used if card not in cards)
            return replace(
                state, deck=event.cards, used=used, shuffles=state.shuffles + 1
            )
        case FirstCueGiverChosen():
            return replace(state, first_cue_giver=event.seat, cue_giver=event.seat)
        case RoundStarted():
            return _round_started(state, event)
        case CardDrawn():
            return replace(state, card=event.card_id, deck=state.deck[1:])
        case TargetChosen():
            return replace(state, target=event.target)
        case CueGiven():
            return _cue_given(state, event)
        case GuessPlaced():
            return _guess_placed(state, event)
        case SecondCueSkipped():
            # D11, D27: the second guesses are an empty turn; nobody is to move.
            return replace(state, phase=Phase.SECOND_GUESSES, guess_order=())
        case TargetRevealed():
            # The target is public from now on; RoundScored keeps it for views.
            return state
        case RoundScored():
            scores = tuple(
                score + points
                for score, points in zip(state.scores, event.points, strict=True)
            )
            return replace(state, scores=scores, last_scored=event)
        case GameEnded():
            return replace(
                state,
                phase=Phase.GAME_OVER,
                guess_order=(),
                scores=event.scores,
                winners=event.winners,
                end_reason=event.reason,
            )
        case _:
            assert_never(event)


def _round_started(state: State, event: RoundStarted) -> State:
    # §3.1: the pieces come off the board; the last card joins the used pile (D22).
    used = state.used if state.card is None else (*state.used, state.card)
    return replace(
        state,
        phase=Phase.FIRST_CUE,
        round=event.round,
        tiebreak=event.tiebreak,
        tiebreak_rounds=state.tiebreak_rounds + (1 if event.tiebreak else 0),
        cue_giver=event.cue_giver,
        card=None,
        used=used,
        target=None,
        pieces=(),
        guess_order=(),
        round_cues=(),
    )


def _cue_given(state: State, event: CueGiven) -> State:
    first = event.cue_no == 1
    order = first_guess_order if first else second_guess_order
    return replace(
        state,
        phase=Phase.FIRST_GUESSES if first else Phase.SECOND_GUESSES,
        guess_order=order(event.seat, state.players),
        cues=(*state.cues, event.normalized),
        round_cues=(*state.round_cues, event.text),
    )


def _guess_placed(state: State, event: GuessPlaced) -> State:
    order = state.guess_order[1:]
    # After the last first guess the cue giver decides on a second cue (§3.3).
    done_first = not order and event.guess_no == 1
    return replace(
        state,
        phase=Phase.SECOND_CUE if done_first else state.phase,
        pieces=(*state.pieces, Piece(event.seat, event.guess_no, event.square)),
        guess_order=order,
    )
