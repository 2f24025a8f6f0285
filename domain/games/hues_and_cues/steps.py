"""The automatic steps of spec §3.1, §3.5 and §5.2: round start, scoring, game end.

They run inside the move that completes a round (D22): ``TargetRevealed`` and
``RoundScored``, then the next round's ``RoundStarted`` and ``CardDrawn`` or
``GameEnded``. A round starting on an empty deck first shuffles the used cards,
in canonical order, with the label ``hues-and-cues/round-<r>/shuffle`` (D15).
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.common.rng import Rng
from domain.games.hues_and_cues.cards import CARDS
from domain.games.hues_and_cues.events import (
    CardDrawn,
    DeckShuffled,
    EndReason,
    Event,
    GameEnded,
    RoundScored,
    RoundStarted,
    TargetRevealed,
)
from domain.games.hues_and_cues.evolve import evolve
from domain.games.hues_and_cues.model import MAX_TIEBREAK_ROUNDS, State
from domain.games.hues_and_cues.scoring import (
    leaders,
    regular_cue_giver,
    round_points,
    score_pieces,
    tiebreak_cue_giver,
)


def shuffle_label(round_number: int) -> str:
    """Returns the random label of the shuffle made for a round (DESIGN §4)."""
    return f"hues-and-cues/round-{round_number}/shuffle"


def fold(state: State, events: Iterable[Event]) -> State:
    """Returns ``state`` after ``events``."""
    for event in events:
        state = evolve(state, event)
    return state


def round_start(
    state: State, round_number: int, cue_giver: int, rng: Rng, *, tiebreak: bool
) -> tuple[Event, ...]:
    """Returns §3.1's events: the round, a reshuffle if needed, the draw."""
    started = RoundStarted(round=round_number, cue_giver=cue_giver, tiebreak=tiebreak)
    if state.config.free_choice_variant:
        return (started,)  # D12: the cue giver picks any square; no card
    events: list[Event] = [started]
    after = evolve(state, started)
    if not after.deck:
        # D15: the used cards, in canonical order (ids sort so), make a new deck.
        cards = tuple(rng.shuffle(shuffle_label(round_number), sorted(after.used)))
        shuffled = DeckShuffled(round=round_number, cards=cards, size=len(cards))
        events.append(shuffled)
        after = evolve(after, shuffled)
    card = CARDS[after.deck[0]]
    events.append(CardDrawn(round_number, cue_giver, card.id, card.squares))
    return tuple(events)


def round_end(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns §3.5's events after the last guess or a skipped second cue."""
    if state.target is None:
        msg = "a round cannot be scored before its target is chosen"
        raise ValueError(msg)
    revealed = TargetRevealed(round=state.round, target=state.target)
    pieces = score_pieces(state.target, state.pieces)
    points, in_frame = round_points(state.players, state.cue_giver, pieces)
    scored = RoundScored(
        round=state.round,
        target=state.target,
        points=points,
        pieces=pieces,
        cue_giver=state.cue_giver,
        pieces_in_frame=in_frame,
    )
    after = fold(state, (revealed, scored))
    return (revealed, scored, *next_round(after, rng))


def end_reason(state: State, tied: tuple[int, ...]) -> EndReason | None:
    """Returns why the game ends after the regular rounds or a tie-break (§5.2)."""
    if len(tied) == 1:
        return EndReason.SOLE_LEADER
    if len(tied) == state.players:
        return EndReason.ALL_TIED  # nobody may give the tie-break cue
    if state.tiebreak_rounds >= MAX_TIEBREAK_ROUNDS:
        return EndReason.TIEBREAK_CAP
    return None


def next_round(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the next regular round, a tie-break round, or the game's end."""
    first = 0 if state.first_cue_giver is None else state.first_cue_giver
    if not state.tiebreak and state.round < state.regular_rounds:
        regular = regular_cue_giver(first, state.round, state.players)
        return round_start(state, state.round + 1, regular, rng, tiebreak=False)
    tied = leaders(state.scores)
    reason = end_reason(state, tied)
    cue_giver = tiebreak_cue_giver(state.cue_giver, tied, state.players)
    if reason is not None or cue_giver is None:
        return (
            GameEnded(
                scores=state.scores,
                winners=tied,
                reason=reason or EndReason.ALL_TIED,
            ),
        )
    return round_start(state, state.round + 1, cue_giver, rng, tiebreak=True)
