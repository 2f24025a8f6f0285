"""A tiny game for testing the table: seats take turns adding to a shared count.

``Add(seat, n, draw=True)`` stands for a move that reveals something to its
mover (as a card draw does), so the game says it cannot be taken back alone;
``show=True`` for one that shows the other seats something hidden (as a round
end that shows every hand does), which no takeback may cross. The game ends
when the count reaches ``TARGET``; the seat that reached it wins.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from domain.common.decision import Accepted, Decision, Rejected, reject
from domain.common.rng import Rng
from domain.common.rules import GameRules, Outcome, top_seats
from domain.common.seats import Viewer

TARGET = 10


@dataclass(frozen=True, slots=True)
class Config:
    """No options."""


@dataclass(frozen=True, slots=True)
class Add:
    """Add ``n`` to the count."""

    seat: int
    n: int
    draw: bool = False
    show: bool = False


@dataclass(frozen=True, slots=True)
class Added:
    """``seat`` added ``n``."""

    seat: int
    n: int
    draw: bool
    show: bool = False


@dataclass(frozen=True, slots=True)
class State:
    """The count, whose turn it is and each seat's total."""

    players: int
    count: int = 0
    to_move: int = 0
    totals: tuple[int, ...] = ()


def _initial(players: int, config: Config) -> State:
    del config
    return State(players, totals=(0,) * players)


def _decide(state: State, command: Add, rng: Rng) -> Decision[Added]:
    del rng
    if command.seat != state.to_move:
        return reject("NOT_YOUR_TURN", "Not your turn.", "count/turn")
    return Accepted((Added(command.seat, command.n, command.draw, command.show),))


def _evolve(state: State, event: Added) -> State:
    totals = list(state.totals)
    totals[event.seat] += event.n
    return replace(
        state,
        count=state.count + event.n,
        to_move=(event.seat + 1) % state.players,
        totals=tuple(totals),
    )


def _outcome(state: State) -> Outcome:
    finished = state.count >= TARGET
    winners = ((state.to_move - 1) % state.players,) if finished else ()
    return Outcome(state.totals, winners, finished)


def _leaders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """The winner once over; before, the highest totals (several on a tie)."""
    winners = _outcome(state).winners
    return top_seats(seats, lambda seat: (seat in winners, state.totals[seat]))


def _legal(state: State, seat: int) -> Iterator[Add]:
    if seat == state.to_move:
        yield Add(seat, 1)


def _check(config: Config, players: int) -> Rejected | None:
    del config, players
    return None


def _view(state: State, viewer: Viewer) -> State:
    del viewer
    return state


RULES: GameRules[State, Add, Added, Config] = GameRules(
    name="counting",
    min_players=2,
    max_players=4,
    config_type=Config,
    check_config=_check,
    initial_state=_initial,
    setup=lambda _state, _rng: (),
    decide=_decide,
    evolve=_evolve,
    legal_moves=_legal,
    view=_view,
    visible=lambda event, _viewer: event,
    outcome=_outcome,
    leaders=_leaders,
    to_move=lambda state: (state.to_move,) if state.count < TARGET else (),
    actor=lambda command: command.seat,
    self_undoable=lambda events: not any(e.draw or e.show for e in events),
    reveals_to_others=lambda events: any(e.show for e in events),
    events={"counting.Added": Added},
    commands={"counting.Add": Add},
    values={"counting.Config": Config},
)
