"""Tiny state builders for Fool! tests; cards are named by their ids (``G17``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games.fool import RULES
from domain.games.fool.events import Event
from domain.games.fool.evolve import participants
from domain.games.fool.model import (
    Card,
    FoolConfig,
    Phase,
    PlayCard,
    State,
    TrickCard,
    card_from_id,
    sorted_cards,
)

FOOL_RNG = Rng(bytes(range(32)))


def fool_card(name: str) -> Card:
    """Returns the card an id names, e.g. ``"G17"`` or ``"W1-4"``."""
    card = card_from_id(name)
    assert card is not None, name
    return card


def fool_cards(*names: str) -> tuple[Card, ...]:
    """Returns the cards named, in order."""
    return tuple(fool_card(name) for name in names)


def fool_play(seat: int, name: str) -> PlayCard:
    """Returns a ``PlayCard`` command for the card named."""
    return PlayCard(seat=seat, card=fool_card(name))


def fool_state(
    *,
    hands: Sequence[Iterable[str]],
    leader: int = 0,
    fools: Iterable[int] = (),
    trick: Iterable[tuple[int, str]] = (),
    dealer: int | None = None,
    round_number: int = 1,
    scores: Iterable[int] | None = None,
    ten_counts: Iterable[int] | None = None,
    phase: Phase = Phase.PLAY,
) -> State:
    """Returns a state in the middle of a round, one hand per seat.

    ``trick`` holds the (seat, card) pairs already played into the current trick;
    the participants are the seats without a disc, clockwise from ``leader``.
    Card conservation does not hold for such a state: rules tests need only the
    cards that matter.
    """
    players = len(hands)
    holding = tuple(fools)
    return State(
        players=players,
        config=FoolConfig(),
        phase=phase,
        round=round_number,
        dealer=(leader - 1) % players if dealer is None else dealer,
        leader=leader,
        hands=tuple(sorted_cards(fool_cards(*hand)) for hand in hands),
        participants=participants(players, leader, holding),
        trick=tuple(TrickCard(seat, fool_card(name)) for seat, name in trick),
        fools=holding,
        played=(),
        scores=tuple(scores) if scores is not None else (0,) * players,
        ten_counts=tuple(ten_counts) if ten_counts is not None else (0,) * players,
        end_reasons=(),
    )


def fool_play_all(
    state: State, plays: Iterable[tuple[int, str]], rng: Rng = FOOL_RNG
) -> tuple[State, list[Event]]:
    """Plays (seat, card) pairs through ``decide`` and ``evolve``; returns the
    state after them and every event, failing the test on a refusal."""
    events: list[Event] = []
    for seat, name in plays:
        decision = RULES.decide(state, fool_play(seat, name), rng)
        assert isinstance(decision, Accepted), (seat, name, decision)
        events.extend(decision.events)
        state = RULES.fold(state, decision.events)
    return state, events
