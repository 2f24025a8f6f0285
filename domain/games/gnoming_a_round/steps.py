"""What happens without a command: END_OF_TURN, reshuffles, round and game end.

Spec §3.6, §4, D6-D8. Every function here returns events and is run inside the
decision of the move that got there, so replay never calls the generator.

Randomness (DESIGN §4, D23): the n-th reshuffle of round r (n counted in the
state from 1) puts the discard cards it takes in canonical order and shuffles
them with the label ``gnoming-a-round/round-<r>/reshuffle-<n>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.common.rng import Rng
from domain.common.seats import next_seat
from domain.games.gnoming_a_round.cards import Kind, canonical_index
from domain.games.gnoming_a_round.events import (
    DiscardPileRefilled,
    DrawPileReshuffled,
    Event,
    GameEnded,
    HazardTurnedUp,
    RoundEndTriggered,
    RoundScored,
    TurnStarted,
)
from domain.games.gnoming_a_round.evolve import evolve
from domain.games.gnoming_a_round.model import (
    PILES,
    ROUNDS,
    State,
    face_down_count,
    reshuffle_source,
)
from domain.games.gnoming_a_round.scoring import (
    first_out_adjustment,
    score_layout,
    winners,
)
from domain.games.gnoming_a_round.setup import deal_round


@dataclass
class Script:
    """Events being written for one decision, and the state they lead to."""

    state: State
    events: list[Event] = field(default_factory=list)

    def emit(self, *events: Event) -> None:
        """Appends events and folds them into the state."""
        for event in events:
            self.events.append(event)
            self.state = evolve(self.state, event)


def reshuffle_label(round_number: int, number: int) -> str:
    """Returns the random label of round r's n-th reshuffle (DESIGN §4, D23)."""
    return f"gnoming-a-round/round-{round_number}/reshuffle-{number}"


def reshuffle(state: State, rng: Rng) -> DrawPileReshuffled | None:
    """Returns the reshuffle of an empty draw pile, None if no card is there (D8)."""
    cards = sorted(reshuffle_source(state), key=canonical_index)
    if not cards:
        return None
    number = state.reshuffles + 1
    pile = tuple(rng.shuffle(reshuffle_label(state.round, number), cards))
    return DrawPileReshuffled(number=number, draw_pile=pile, draw_pile_size=len(pile))


def refill(script: Script, pile: int, rng: Rng) -> None:
    """Restarts an empty discard pile from the draw pile when it can (§3.6 step 1)."""
    while not script.state.pile(pile):
        if not script.state.draw_pile:
            shuffled = reshuffle(script.state, rng)
            if shuffled is None:
                return  # D27: nothing left to restart it with; it stays empty.
            script.emit(shuffled)
        card = script.state.draw_pile[0]
        if card.kind is Kind.HAZARD:
            script.emit(HazardTurnedUp(card))  # D6: removed without effect
        else:
            script.emit(DiscardPileRefilled(pile, card))


def end_of_turn(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns END_OF_TURN's events: refills, the trigger, the next turn (§3.6)."""
    script = Script(state)
    for pile in PILES:
        refill(script, pile, rng)
    active = script.state.active
    if script.state.trigger is None and not face_down_count(
        script.state.layouts[active]
    ):
        script.emit(RoundEndTriggered(active))
    following = next_seat(active, state.players)
    if script.state.trigger == following:
        # Every other seat has had its final turn: the round is over (§3.6 step 3).
        script.emit(*end_of_round(script.state, rng))
    else:
        script.emit(TurnStarted(following))
    return tuple(script.events)


def end_of_round(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the round's scoring, then the next round's deal or the game's end."""
    if state.trigger is None:
        msg = "only a triggered round end scores a round"
        raise ValueError(msg)
    layouts = tuple(tuple(slot.card for slot in layout) for layout in state.layouts)
    scored = [score_layout(cards) for cards in layouts]
    base = tuple(score.points for score in scored)
    adjustment = first_out_adjustment(base, state.trigger)
    scores = tuple(
        points + (adjustment if seat == state.trigger else 0)
        for seat, points in enumerate(base)
    )
    totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
    events: tuple[Event, ...] = (
        RoundScored(
            round=state.round,
            layouts=layouts,
            wild=tuple(score.wild for score in scored),
            base_scores=base,
            first_out=state.trigger,
            adjustment=adjustment,
            scores=scores,
            totals=totals,
        ),
    )
    if state.round < ROUNDS:
        # D3: the next round starts to the left of this round's starting seat.
        starting = next_seat(state.starting_seat, state.players)
        return (*events, deal_round(state.players, state.round + 1, starting, rng))
    return (*events, GameEnded(totals=totals, winners=winners(totals, scores)))
