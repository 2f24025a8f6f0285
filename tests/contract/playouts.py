"""Random complete games played through a game's ``GameRules`` alone, recorded.

Each game of the contract suite is played from ``setup`` to its end with the
deterministic ``Rng`` of its own seed; at every move a seat the game waits for
picks a command type at random among its legal moves, then one command of that
type (so that rare commands are played as often as common ones). The record
keeps every state, so the contract's tests check the same games without
playing them again.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from domain.common.decision import Accepted
from domain.common.rng import Rng
from domain.common.seats import Viewer
from tests.contract.games import GAMES, ContractGame
from tests.contract.seen import pieces

GAMES_PER_TABLE = 2  # random games per game and table size
MAX_MOVES = 20_000


@dataclass(frozen=True)
class Move:
    """One move: who made it from which state, what was legal, what it caused."""

    at: int  # the index of the state before the move in ``Playout.states``
    seat: int
    legal: tuple[Any, ...]  # the seat's legal moves, in the order listed
    command: Any
    events: tuple[Any, ...]
    states: tuple[Any, ...]  # the state before the move, then after each event

    @property
    def before(self) -> Any:
        """Returns the state the move was made in."""
        return self.states[0]

    @property
    def after(self) -> Any:
        """Returns the state once every event of the move is applied."""
        return self.states[-1]

    @property
    def end(self) -> int:
        """Returns the index of the state after the move."""
        return self.at + len(self.events)


@dataclass(frozen=True)
class Revision:
    """One event, by the indices of the states around it and of its move's end."""

    at: int  # the state after the event; ``at - 1`` is the one before
    event: Any
    end: int
    move: Move | None  # None for the opening events


@dataclass(frozen=True, eq=False)
class Playout:
    """A finished random game of one game at one table size."""

    game: ContractGame
    players: int
    number: int
    rng: Rng
    opening: tuple[Any, ...]
    moves: tuple[Move, ...]
    states: tuple[Any, ...]  # ``initial_state``, then the state after each event
    _views: dict[tuple[int, Viewer], Any] = field(default_factory=dict, repr=False)
    _sights: dict[tuple[int, Viewer], Counter[object]] = field(
        default_factory=dict, repr=False
    )
    _public: dict[int, Counter[object]] = field(default_factory=dict, repr=False)
    memo: dict[tuple[Any, ...], list[object]] = field(default_factory=dict, repr=False)

    @property
    def initial(self) -> Any:
        """Returns the state before the opening events."""
        return self.states[0]

    @property
    def final(self) -> Any:
        """Returns the state at the end."""
        return self.states[-1]

    @property
    def key(self) -> tuple[str, int, int]:
        """Returns what the game was recorded under."""
        return self.game.name, self.players, self.number

    def events(self) -> tuple[Any, ...]:
        """Returns every event, the opening ones first."""
        return (*self.opening, *(e for move in self.moves for e in move.events))

    def revisions(self) -> Iterator[Revision]:
        """Yields every event with the indices of the states around it."""
        dealt = len(self.opening)
        for at, event in enumerate(self.opening, 1):
            yield Revision(at, event, dealt, None)
        for move in self.moves:
            for offset, event in enumerate(move.events, 1):
                yield Revision(move.at + offset, event, move.end, move)

    def view(self, at: int, viewer: Viewer) -> Any:
        """Returns the view of state ``at`` for ``viewer`` (made once)."""
        known = self._views.get((at, viewer))
        if known is None:
            known = self.game.rules.view(self.states[at], viewer)
            self._views[at, viewer] = known
        return known

    def sight(self, at: int, viewer: Viewer) -> Counter[object]:
        """Returns the pieces of the view of state ``at`` for ``viewer``, counted.

        The public part, which every viewer shares (``test_hidden`` checks it),
        is counted once per state.
        """
        known = self._sights.get((at, viewer))
        if known is None:
            view, skip = self.view(at, viewer), self.game.reference_fields
            public = self._public.get(at)
            if public is None:
                public = self._public[at] = Counter(
                    pieces(view.public, skip, self.memo)
                )
            rest = [getattr(view, name) for name in _parts(view) if name != "public"]
            known = public + Counter(pieces(rest, skip, self.memo))
            self._sights[at, viewer] = known
        return known


def _parts(view: Any) -> tuple[str, ...]:
    """Returns the field names of a view."""
    return tuple(item.name for item in dataclasses.fields(view))


def playout_id(key: tuple[str, int, int]) -> str:
    """Returns a test id: game, table size, game number."""
    name, players, number = key
    return f"{name}-{players}p-{number}"


PLAYOUTS = [
    (game.name, players, number)
    for game in GAMES
    for players in game.players
    for number in range(GAMES_PER_TABLE)
]


def game_named(name: str) -> ContractGame:
    """Returns the contract entry of a game type."""
    return next(game for game in GAMES if game.name == name)


@functools.cache
def played(name: str, players: int, number: int) -> Playout:
    """Returns random game ``number`` of ``name`` at a table of ``players``."""
    game = game_named(name)
    rules = game.rules
    text = f"contract/{name}/{players}/{number}"
    rng = Rng(hashlib.sha256(text.encode()).digest())
    choose = random.Random(text)
    states = [rules.initial_state(players, game.table_options(players, number))]
    opening = rules.setup(states[0], rng)
    for event in opening:
        states.append(rules.evolve(states[-1], event))
    moves: list[Move] = []
    while rules.to_move(states[-1]):
        assert len(moves) < MAX_MOVES, f"{name} did not end in {MAX_MOVES} moves"
        at, before = len(states) - 1, states[-1]
        seat = choose.choice(rules.to_move(before))
        legal = tuple(rules.legal_moves(before, seat))
        command = pick(legal, choose)
        decision = rules.decide(before, command, rng)
        assert isinstance(decision, Accepted), (command, decision)
        for event in decision.events:
            states.append(rules.evolve(states[-1], event))
        after = tuple(states[at:])
        moves.append(Move(at, seat, legal, command, decision.events, after))
    return Playout(game, players, number, rng, opening, tuple(moves), tuple(states))


def pick(legal: tuple[Any, ...], choose: random.Random) -> Any:
    """Returns a random command of a random type among ``legal``."""
    assert legal, "a seat the game waits for has a legal move"
    kinds: dict[type, list[Any]] = defaultdict(list)
    for command in legal:
        kinds[type(command)].append(command)
    return choose.choice(kinds[choose.choice(list(kinds))])
