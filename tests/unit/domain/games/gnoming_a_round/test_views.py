"""Views and redaction (spec §3.7, D18, DESIGN §5).

A face-down card is in no view and no visible event for anybody, its owner
included; the draw pile's order is nobody's; a drawn card is its drawer's
alone until it is placed or discarded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from domain.common.seats import Operator, Seat, Spectator, Viewer
from domain.games.gnoming_a_round.cards import Card
from domain.games.gnoming_a_round.events import (
    CardDrawn,
    CardRejected,
    DrawPileReshuffled,
    RoundDealt,
    TurnStarted,
)
from domain.games.gnoming_a_round.model import (
    Discard,
    DrawFromPile,
    Keep,
    Reject,
    State,
    TakeFromDiscard,
)
from domain.games.gnoming_a_round.setup import deal_round
from domain.games.gnoming_a_round.views import view, visible
from tests.factories_gnoming import GNOMING_RNG, gnoming_play, gnoming_state

PLAYERS: list[Viewer] = [Seat(0), Seat(1), Seat(2), Spectator()]


def cards_in(value: object) -> Iterator[Card]:
    """Yields every card named anywhere inside a view or an event."""
    if isinstance(value, Card):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from cards_in(getattr(value, field.name))
    elif isinstance(value, tuple):
        for item in value:
            yield from cards_in(item)


def secret_cards(state: State) -> set[Card]:
    """Returns every card of a state nobody but the server knows."""
    hidden = {s.card for layout in state.layouts for s in layout if not s.face_up}
    return hidden | set(state.draw_pile)


@pytest.mark.parametrize("viewer", PLAYERS)
def test_nobody_sees_a_face_down_card_not_even_its_owner(viewer: Viewer) -> None:
    state = gnoming_state()
    seen = view(state, viewer)
    assert not set(cards_in(seen)) & secret_cards(state)
    assert seen.public.layouts[0] == (
        state.layouts[0][0].card,
        state.layouts[0][1].card,
        *[None] * 7,
    )
    assert seen.public.draw_pile_size == 3
    assert seen.revealed is None


def test_a_spectator_has_no_private_part_and_a_seat_has_one() -> None:
    state = gnoming_state()
    assert view(state, Spectator()).private is None
    assert view(state, Seat(1)).private is not None
    assert view(state, Seat(1)).public == view(state, Spectator()).public


def test_the_public_part_shows_discard_tops_and_counts() -> None:
    state = gnoming_state(discards=("3 4 5", ""), removed="H")
    public = view(state, Spectator()).public
    assert public.discard_tops == (state.pile(1)[-1], None)
    assert public.discard_sizes == (3, 0)
    assert public.removed == state.removed
    assert (public.to_move, public.active_seat, public.round) == ((0,), 0, 1)


def test_a_drawn_card_is_seen_by_its_drawer_only_until_it_is_placed() -> None:
    # D18
    state, _ = gnoming_play(gnoming_state(draw="8 9"), DrawFromPile(0))
    drawn = state.in_hand
    mine = view(state, Seat(0))
    assert mine.private is not None
    assert mine.private.drawn_card == drawn
    for viewer in PLAYERS[1:]:
        seen = view(state, viewer)
        assert drawn not in set(cards_in(seen))
        assert (seen.public.holding, seen.public.held_card) == (True, None)
    placed, _ = gnoming_play(state, Keep(0, 5))
    assert view(placed, Spectator()).public.layouts[0][5] == drawn


def test_a_rejected_drawn_card_stays_private_until_discarded() -> None:
    state, _ = gnoming_play(gnoming_state(draw="8 9"), DrawFromPile(0), Reject(0))
    drawn = state.in_hand
    assert drawn not in set(cards_in(view(state, Seat(1))))
    mine = view(state, Seat(0)).private
    assert mine is not None
    assert mine.drawn_card == drawn
    after, _ = gnoming_play(state, Discard(0, 1))
    assert view(after, Seat(1)).public.discard_tops[0] == drawn


def test_a_card_taken_from_a_discard_pile_and_a_displaced_card_are_public() -> None:
    state = gnoming_state(discards=("3 4", "5"))
    taken, _ = gnoming_play(state, TakeFromDiscard(0, 1))
    assert view(taken, Seat(2)).public.held_card == state.pile(1)[-1]
    placed, _ = gnoming_play(taken, Keep(0, 6))
    displaced = state.layouts[0][6].card
    assert view(placed, Seat(2)).public.held_card == displaced
    assert view(placed, Seat(0)).public.held_card == displaced


def test_the_operator_sees_everything() -> None:
    state, _ = gnoming_play(gnoming_state(draw="8 9"), DrawFromPile(0))
    seen = view(state, Operator())
    assert seen.revealed is not None
    assert seen.revealed.layouts[0] == tuple(s.card for s in state.layouts[0])
    assert seen.revealed.draw_pile == state.draw_pile
    assert seen.revealed.held_card == state.in_hand


@pytest.mark.parametrize("viewer", PLAYERS)
def test_a_deal_shows_nobody_a_layout_or_the_draw_pile(viewer: Viewer) -> None:
    dealt = deal_round(3, 1, 0, GNOMING_RNG)
    seen = visible(dealt, viewer)
    assert isinstance(seen, RoundDealt)
    assert (seen.layouts, seen.draw_pile) == ((), ())
    assert (seen.discards, seen.removed) == (dealt.discards, dealt.removed)
    assert seen.draw_pile_size == dealt.draw_pile_size
    assert visible(dealt, Operator()) == dealt


@pytest.mark.parametrize("viewer", PLAYERS)
def test_a_reshuffle_shows_its_size_but_not_its_order(viewer: Viewer) -> None:
    event = DrawPileReshuffled(1, tuple(deal_round(3, 1, 0, GNOMING_RNG).draw_pile), 80)
    seen = visible(event, viewer)
    assert seen == DrawPileReshuffled(1, (), 80)


def test_a_drawn_or_rejected_card_is_shown_to_the_drawer_only() -> None:
    card = gnoming_state().draw_pile[0]
    for event in (CardDrawn(1, card), CardRejected(1, card)):
        assert visible(event, Seat(1)) == event
        assert visible(event, Operator()) == event
        for viewer in (Seat(0), Seat(2), Spectator()):
            assert visible(event, viewer) == type(event)(1, None)


def test_public_events_are_shown_unchanged() -> None:
    state, events = gnoming_play(
        gnoming_state(discards=("3 4", "5")), TakeFromDiscard(0, 1), Keep(0, 2)
    )
    state, more = gnoming_play(state, Discard(0, 1))
    assert more[-1] == TurnStarted(1)
    for event in (*events, *more):
        assert all(visible(event, viewer) == event for viewer in PLAYERS)
