"""The game contract: the functions every game module provides (DESIGN §2)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from domain.common.decision import Decision, Rejected
from domain.common.rng import Rng
from domain.common.seats import Viewer

S = TypeVar("S")  # game state
C = TypeVar("C")  # command union
E = TypeVar("E")  # event union
Cfg = TypeVar("Cfg")  # table options
# The same, as the role modules' protocols take them (arguments only) or give them.
Cfg_contra = TypeVar("Cfg_contra", contravariant=True)
S_contra = TypeVar("S_contra", contravariant=True)
C_contra = TypeVar("C_contra", contravariant=True)
C_co = TypeVar("C_co", covariant=True)
E_contra = TypeVar("E_contra", contravariant=True)
E_co = TypeVar("E_co", covariant=True)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Scores by seat, winning seats (several on a tie) and whether play is over."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    finished: bool


def top_seats(
    seats: Iterable[int], rank: Callable[[int], tuple[int, ...]]
) -> tuple[int, ...]:
    """Returns the seats of ``seats`` whose ``rank`` is greatest, in the order given.

    Several share a tie; none when ``seats`` is empty. A game ranks both its
    winners and its ``leaders`` with one ``rank``, so the two cannot disagree.
    """
    ranks = {seat: rank(seat) for seat in seats}
    if not ranks:
        return ()
    best = max(ranks.values())
    return tuple(seat for seat, key in ranks.items() if key == best)


@dataclass(frozen=True, slots=True)
class Option:
    """A table option: a field of the game's config type, described for people."""

    field: str
    description: str
    default_value: str


def seat_of(command: Any) -> int:
    """Returns the seat a command is issued for: its ``seat`` field."""
    seat: int = command.seat
    return seat


class SetupModule(Protocol[S, E_co, Cfg_contra]):
    """A game's ``setup.py``: its table options, initial state and opening events."""

    def check_config(self, config: Cfg_contra, players: int, /) -> Rejected | None: ...
    def initial_state(self, players: int, config: Cfg_contra, /) -> S: ...
    def setup(self, state: S, rng: Rng, /) -> tuple[E_co, ...]: ...


class RulesModule(Protocol[S_contra, C_contra, E]):
    """A game's ``rules.py``: its rules policy and what it says of a state."""

    def decide(
        self, state: S_contra, command: C_contra, rng: Rng, /
    ) -> Decision[E]: ...
    def outcome(self, state: S_contra, /) -> Outcome: ...
    def leaders(
        self, state: S_contra, seats: tuple[int, ...], /
    ) -> tuple[int, ...]: ...
    def to_move(self, state: S_contra, /) -> tuple[int, ...]: ...
    def self_undoable(self, events: tuple[E, ...], /) -> bool: ...
    def reveals_to_others(self, events: tuple[E, ...], /) -> bool: ...


class EvolveModule(Protocol[S, E_contra]):
    """A game's ``evolve.py``."""

    def evolve(self, state: S, event: E_contra, /) -> S: ...


class LegalModule(Protocol[S_contra, C_co]):
    """A game's ``legal.py``."""

    def legal_moves(self, state: S_contra, seat: int, /) -> Iterator[C_co]: ...


class ViewsModule(Protocol[S_contra, E]):
    """A game's ``views.py``: what each viewer may see."""

    def view(self, state: S_contra, viewer: Viewer, /) -> Any: ...
    def visible(self, event: E, viewer: Viewer, /) -> E | None: ...


@dataclass(frozen=True, slots=True)
class Modules(Generic[S, C, E, Cfg]):
    """A game's role modules, each checked against its protocol by mypy."""

    setup: SetupModule[S, E, Cfg]
    rules: RulesModule[S, C, E]
    evolve: EvolveModule[S, E]
    legal: LegalModule[S, C]
    views: ViewsModule[S, E]


@dataclass(frozen=True, slots=True)
class GameRules(Generic[S, C, E, Cfg]):
    """One game's rules policy and views, as pure functions.

    ``events`` and ``values`` map stable stored names (``"qwirkle.TilesPlaced"``)
    to the classes stored under them; names never change once games are stored.
    """

    name: str
    min_players: int
    max_players: int
    config_type: type[Cfg]
    # Refuses table options that make no sense, before anything is stored.
    check_config: Callable[[Cfg, int], Rejected | None]
    # The state before the opening events; setup's events are folded onto it.
    initial_state: Callable[[int, Cfg], S]
    setup: Callable[[S, Rng], tuple[E, ...]]
    decide: Callable[[S, C, Rng], Decision[E]]
    evolve: Callable[[S, E], S]
    legal_moves: Callable[[S, int], Iterator[C]]
    view: Callable[[S, Viewer], Any]
    visible: Callable[[E, Viewer], E | None]
    outcome: Callable[[S], Outcome]
    # The seats among ``seats`` that the game's own ranking puts first if play
    # stopped now (several on a tie; empty only when ``seats`` is empty). The
    # table uses it for the winners of a game abandoned mid-play and to rank
    # only the seats that did not resign.
    leaders: Callable[[S, tuple[int, ...]], tuple[int, ...]]
    # Seats the game waits for now (empty when nobody may act).
    to_move: Callable[[S], tuple[int, ...]]
    # Whether a move's events revealed nothing (no draw, reveal or random step),
    # so that its mover may take it back alone (DESIGN §6).
    self_undoable: Callable[[tuple[E, ...]], bool]
    # Whether a move's events showed a seat other than the mover, or spectators,
    # something hidden that was not the mover's own to show (a round end that
    # shows every hand, a card turned up from a hidden pile, a card dealt to
    # another seat): what was seen cannot be unseen, so no takeback crosses it
    # (DESIGN §6, T19). Cards the mover held and plays are theirs to show.
    reveals_to_others: Callable[[tuple[E, ...]], bool]
    events: Mapping[str, type[Any]]
    commands: Mapping[str, type[Any]]
    values: Mapping[str, type[Any]]
    # The seat a command is issued for; commands carry it as ``seat``.
    actor: Callable[[C], int] = seat_of
    # What ``ListGameTypes`` tells people: the game's name as they read it (the
    # name with spaces, capitalised, if empty), each table option, and which
    # moves a player may take back alone, in plain words.
    display_name: str = ""
    options: tuple[Option, ...] = ()
    self_undo: str = ""
    # Reference data a client needs to draw the game (a board's colours), if any.
    details: Callable[[], Any] | None = None

    @classmethod
    def declare(  # noqa: PLR0913 (the facts a game states beside its modules)
        cls,
        modules: Modules[S, C, E, Cfg],
        stored: tuple[Mapping[str, type[Any]], ...],
        *,
        name: str,
        players: tuple[int, int],
        config_type: type[Cfg],
        display_name: str = "",
        options: tuple[Option, ...] = (),
        self_undo: str = "",
        details: Callable[[], Any] | None = None,
    ) -> GameRules[S, C, E, Cfg]:
        """Returns a game's rules from its role modules and its own facts.

        ``stored`` is the stored names of its events, commands and values.
        """
        setup, rules, views = modules.setup, modules.rules, modules.views
        events, commands, values = stored
        return cls(
            name=name,
            min_players=players[0],
            max_players=players[1],
            config_type=config_type,
            check_config=setup.check_config,
            initial_state=setup.initial_state,
            setup=setup.setup,
            decide=rules.decide,
            evolve=modules.evolve.evolve,
            legal_moves=modules.legal.legal_moves,
            view=views.view,
            visible=views.visible,
            outcome=rules.outcome,
            leaders=rules.leaders,
            to_move=rules.to_move,
            self_undoable=rules.self_undoable,
            reveals_to_others=rules.reveals_to_others,
            events=events,
            commands=commands,
            values=values,
            display_name=display_name,
            options=options,
            self_undo=self_undo,
            details=details,
        )

    @property
    def title(self) -> str:
        """Returns the name people read: ``display_name``, or the name spaced."""
        return self.display_name or self.name.replace("_", " ").title()

    def fold(self, state: S, events: tuple[E, ...]) -> S:
        """Returns ``state`` after applying ``events`` in order."""
        for event in events:
            state = self.evolve(state, event)
        return state
