"""``evolve``: the state after one event. Total over events, pure, never random."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import assert_never

from domain.common.seats import next_seat
from domain.games.qwirkle.events import (
    EndBonusScored,
    Event,
    GameEnded,
    StartingPlayerChosen,
    TilesDealt,
    TilesDrawn,
    TilesExchanged,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)
from domain.games.qwirkle.model import Phase, State, Tile, without


def evolve(state: State, event: Event) -> State:
    """Returns the state after ``event``."""
    new: State
    match event:
        case TilesDealt():
            new = replace(state, racks=event.racks, bag=event.bag)
        case StartingPlayerChosen():
            new = replace(
                state,
                phase=Phase.FIRST_MOVE,
                starting_numbers=event.starting_numbers,
                to_move=event.seat,
            )
        case TilesPlaced():
            new = _placed(state, event)
        case TurnScored():
            new = replace(
                state,
                scores=_added(state.scores, event.seat, event.points),
                to_move=next_seat(state.to_move, state.players),
            )
        case TilesDrawn():
            rack = state.racks[event.seat] + event.tiles
            new = replace(
                state,
                racks=_with_rack(state, event.seat, rack),
                bag=state.bag[event.count :],
            )
        case TilesExchanged():
            new = _exchanged(state, event)
        case TurnPassed():
            new = replace(state, to_move=next_seat(state.to_move, state.players))
        case EndBonusScored():
            new = replace(state, scores=_added(state.scores, event.seat, event.points))
        case GameEnded():
            new = replace(state, phase=Phase.GAME_OVER, end_reason=event.reason)
        case _:
            assert_never(event)
    return new


def _with_rack(
    state: State, seat: int, rack: tuple[Tile, ...]
) -> tuple[tuple[Tile, ...], ...]:
    return (*state.racks[:seat], rack, *state.racks[seat + 1 :])


def _placed(state: State, event: TilesPlaced) -> State:
    board = dict(state.board)
    board.update((p.cell, p.tile) for p in event.placements)
    rack = without(state.racks[event.seat], (p.tile for p in event.placements))
    return replace(
        state,
        phase=Phase.TURN,
        board=MappingProxyType(board),  # a fresh dict nobody else holds
        racks=_with_rack(state, event.seat, rack),
    )


def _exchanged(state: State, event: TilesExchanged) -> State:
    # D6: drawn from the top first, then the returned tiles went in and the bag
    # was shuffled; the event records the resulting bag.
    rack = without(state.racks[event.seat], event.returned) + event.drawn
    return replace(
        state,
        racks=_with_rack(state, event.seat, rack),
        bag=event.bag,
        exchanges=state.exchanges + 1,
        to_move=next_seat(state.to_move, state.players),
    )


def _added(scores: tuple[int, ...], seat: int, points: int) -> tuple[int, ...]:
    return (*scores[:seat], scores[seat] + points, *scores[seat + 1 :])
