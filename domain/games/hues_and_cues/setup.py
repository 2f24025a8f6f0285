"""Table options, the initial state and the opening events (spec §2, D5, D12).

Randomness (DESIGN §4): the 100 card ids in canonical order C001..C100 are
shuffled with the label ``hues-and-cues/round-1/shuffle`` (index 0 is the top).
A first cue giver left open is drawn with ``uniform(N)`` from the label
``hues-and-cues/round-1/first-cue-giver-1``. With the free-choice variant no
card is ever drawn, so no deck is shuffled (D18). A deck that runs out is
reshuffled in ``steps.py`` (D15).
"""

from __future__ import annotations

from domain.common.decision import Rejected, malformed
from domain.common.rng import Rng
from domain.games.hues_and_cues.cards import DECK
from domain.games.hues_and_cues.events import DeckShuffled, Event, FirstCueGiverChosen
from domain.games.hues_and_cues.evolve import evolve
from domain.games.hues_and_cues.model import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    HuesAndCuesConfig,
    Phase,
    State,
)
from domain.games.hues_and_cues.scoring import regular_round_count
from domain.games.hues_and_cues.steps import round_start, shuffle_label

CANONICAL_CARDS: tuple[str, ...] = tuple(card.id for card in DECK)
FIRST_CUE_GIVER_LABEL = "hues-and-cues/round-1/first-cue-giver-1"


def check_config(config: HuesAndCuesConfig, players: int) -> Rejected | None:
    """Returns why a table cannot start with these options, or None (§2, D4, D5)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return malformed(
            "PLAYER_COUNT_OUT_OF_RANGE",
            f"Hues and Cues takes {MIN_PLAYERS} to {MAX_PLAYERS} players, "
            f"not {players}.",
            "hues_and_cues/player_count",
            minPlayers=MIN_PLAYERS,
            maxPlayers=MAX_PLAYERS,
            players=players,
        )
    first = config.first_cue_giver
    if first is not None and not 0 <= first < players:
        return malformed(
            "FIRST_CUE_GIVER_OUT_OF_RANGE",
            f"The first cue giver must be a seat from 0 to {players - 1}, not {first}.",
            "hues_and_cues/first_cue_giver",
            firstCueGiver=first,
            players=players,
        )
    return None


def initial_state(players: int, config: HuesAndCuesConfig) -> State:
    """Returns the state before the opening events: no deck, scores 0 (§2)."""
    return State(
        players=players,
        config=config,
        phase=Phase.SETUP,
        round=0,
        regular_rounds=regular_round_count(players),
        tiebreak=False,
        tiebreak_rounds=0,
        first_cue_giver=None,
        cue_giver=0,
        deck=(),
        card=None,
        used=(),
        shuffles=0,
        target=None,
        pieces=(),
        guess_order=(),
        cues=(),
        round_cues=(),
        scores=(0,) * players,
        last_scored=None,
        winners=(),
        end_reason=None,
    )


def choose_first_cue_giver(state: State, rng: Rng) -> FirstCueGiverChosen:
    """Returns the configured first cue giver, or one drawn with the seed (D5).

    A configured seat beyond a smaller table is counted round the seats (D21).
    """
    first = state.config.first_cue_giver
    if first is not None:
        return FirstCueGiverChosen(seat=first % state.players, drawn=False)
    seat = rng.stream(FIRST_CUE_GIVER_LABEL).uniform(state.players)
    return FirstCueGiverChosen(seat=seat, drawn=True)


def setup(state: State, rng: Rng) -> tuple[Event, ...]:
    """Returns the opening events: shuffle, first cue giver, round 1 (§2, §3.1)."""
    events: list[Event] = []
    if not state.config.free_choice_variant:
        cards = tuple(rng.shuffle(shuffle_label(1), CANONICAL_CARDS))
        events.append(DeckShuffled(round=1, cards=cards, size=len(cards)))
    chosen = choose_first_cue_giver(state, rng)
    events.append(chosen)
    for event in events:
        state = evolve(state, event)
    events.extend(round_start(state, 1, chosen.seat, rng, tiebreak=False))
    return tuple(events)
