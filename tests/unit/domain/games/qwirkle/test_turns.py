"""Accepted turns through decide then evolve: place, exchange, pass, game end."""

from __future__ import annotations

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.games.qwirkle import RULES
from domain.games.qwirkle.events import (
    GameEnded,
    TilesDrawn,
    TilesExchanged,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)
from domain.games.qwirkle.model import EndReason, ExchangeTiles, Pass, Phase
from domain.games.qwirkle.rules import exchange_label
from tests.factories import (
    QWIRKLE_SECRET_TILES,
    qwirkle_empty_bag_state,
    qwirkle_first_move_state,
    qwirkle_place,
    qwirkle_state,
    qwirkle_tiles,
    qwirkle_turn_state,
)

RNG = Rng(bytes(range(32)))


def test_placed_tiles_need_not_touch_when_old_tiles_fill_the_gap() -> None:
    # §3 rule 3: the gap between placed tiles may be filled by grid tiles.
    state = qwirkle_turn_state(
        racks=(qwirkle_tiles("green-starburst", "green-crisscross"), ())
    )
    command = qwirkle_place(0, ("green-starburst", -1, 0), ("green-crisscross", 4, 0))
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Accepted)
    assert decision.events[1] == TurnScored(seat=0, points=12, lines=(6,), qwirkles=1)


def test_an_accepted_first_move_scores_and_opens_the_turns() -> None:
    command = qwirkle_place(0, ("red-circle", 0, 0), ("red-square", 0, 1))
    state = qwirkle_first_move_state()
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Accepted)
    assert decision.events == (
        TilesPlaced(seat=0, placements=command.placements),
        TurnScored(seat=0, points=2, lines=(2,), qwirkles=0),
        TilesDrawn(seat=0, count=5, tiles=state.bag[:5]),
    )
    after = RULES.fold(state, decision.events)
    assert (after.phase, after.to_move, after.scores) == (Phase.TURN, 1, (2, 0))


def test_a_placement_refills_the_rack_from_the_top_of_the_bag() -> None:
    state = qwirkle_turn_state(
        bag=qwirkle_tiles(QWIRKLE_SECRET_TILES[2], "blue-diamond", "blue-square") * 2
    )
    command = qwirkle_place(0, ("red-circle", 2, 1), ("blue-circle", 2, 2))
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Accepted)
    assert decision.events[-1] == TilesDrawn(seat=0, count=4, tiles=state.bag[:4])
    after = RULES.fold(state, decision.events)
    assert after.racks[0] == qwirkle_tiles("red-square", "red-circle") + state.bag[:4]
    assert after.bag == state.bag[4:]


def test_a_refill_stops_when_the_bag_runs_out() -> None:
    state = qwirkle_turn_state()
    command = qwirkle_place(0, ("red-circle", 2, 1), ("blue-circle", 2, 2))
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Accepted)
    assert decision.events[2] == TilesDrawn(seat=0, count=3, tiles=state.bag)
    assert RULES.fold(state, decision.events).bag == ()


def test_an_exchange_draws_first_then_returns_and_shuffles_the_bag() -> None:
    state = qwirkle_turn_state(exchanges=4)
    returned = qwirkle_tiles("red-circle", "red-circle")
    decision = RULES.decide(state, ExchangeTiles(seat=0, tiles=returned), RNG)
    assert isinstance(decision, Accepted)
    # D6: the drawn tiles are the top of the bag before the return.
    bag = RNG.shuffle("qwirkle/round-1/exchange-5", state.bag[2:] + returned)
    assert decision.events == (
        TilesExchanged(
            seat=0, count=2, returned=returned, drawn=state.bag[:2], bag=tuple(bag)
        ),
    )
    after = RULES.fold(state, decision.events)
    assert len(after.bag) == len(state.bag)
    assert after.exchanges == 5
    assert after.to_move == 1
    assert after.scores == state.scores
    assert sorted(map(str, after.racks[0])) == sorted(
        ["blue-circle", "red-square", QWIRKLE_SECRET_TILES[2], "blue-diamond"]
    )


def test_exchange_labels_count_exchanges_from_one() -> None:
    assert exchange_label(1) == "qwirkle/round-1/exchange-1"
    assert exchange_label(12) == "qwirkle/round-1/exchange-12"


def test_an_exchange_is_allowed_even_when_a_placement_is_possible() -> None:
    command = ExchangeTiles(seat=0, tiles=qwirkle_tiles("blue-circle"))
    assert isinstance(RULES.decide(qwirkle_turn_state(), command, RNG), Accepted)


def test_a_pass_with_an_empty_bag_and_no_placement_is_accepted() -> None:
    state = qwirkle_empty_bag_state()
    decision = RULES.decide(state, Pass(seat=0), RNG)
    assert decision == Accepted((TurnPassed(seat=0),))
    assert RULES.fold(state, decision.events).to_move == 1


def test_the_game_ends_in_deadlock_without_bonus_when_nobody_can_place() -> None:
    # D8: after the turn the bag is empty and no tile fits anywhere.
    state = qwirkle_state(
        board=(("red-circle", 0, 0),),
        racks=(("red-square", "blue-diamond"), ("green-starburst",)),
        scores=(3, 4),
    )
    command = qwirkle_place(0, ("red-square", 1, 0))
    decision = RULES.decide(state, command, RNG)
    assert isinstance(decision, Accepted)
    after = RULES.fold(state, decision.events[:-1])
    assert decision.events == (
        TilesPlaced(seat=0, placements=command.placements),
        TurnScored(seat=0, points=2, lines=(2,), qwirkles=0),
        GameEnded(reason=EndReason.DEADLOCK, racks=after.racks),
    )
    final = RULES.fold(state, decision.events)
    assert final.scores == (5, 4)
    assert final.end_reason is EndReason.DEADLOCK
    assert RULES.outcome(final).winners == (0,)


def test_a_pass_that_leaves_nobody_able_to_place_ends_the_game() -> None:
    state = qwirkle_state(
        board=(("red-circle", 0, 0), ("red-square", 1, 0)),
        racks=(("blue-diamond",), ("green-starburst",)),
    )
    decision = RULES.decide(state, Pass(seat=0), RNG)
    assert isinstance(decision, Accepted)
    assert decision.events == (
        TurnPassed(seat=0),
        GameEnded(reason=EndReason.DEADLOCK, racks=state.racks),
    )


def test_the_end_bonus_is_not_given_while_the_bag_still_refills_the_rack() -> None:
    state = qwirkle_turn_state(racks=(qwirkle_tiles("red-circle"), ()))
    decision = RULES.decide(state, qwirkle_place(0, ("red-circle", 2, 1)), RNG)
    assert isinstance(decision, Accepted)
    assert [type(e) for e in decision.events] == [TilesPlaced, TurnScored, TilesDrawn]
