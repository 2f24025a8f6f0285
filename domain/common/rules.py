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
Cfg_contra = TypeVar(
    "Cfg_contra", contravariant=True
)  # table options, as hooks take them


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


class Hooks(Protocol[S, C, E, Cfg_contra]):
    """What a game's package exports, by these names: its rules as functions.

    A package passes itself (``import domain.games.<game> as this``) to
    ``GameRules.declare``, so that a game is declared once and type-checked.
    """

    def check_config(self, config: Cfg_contra, players: int, /) -> Rejected | None: ...
    def initial_state(self, players: int, config: Cfg_contra, /) -> S: ...
    def setup(self, state: S, rng: Rng, /) -> tuple[E, ...]: ...
    def decide(self, state: S, command: C, rng: Rng, /) -> Decision[E]: ...
    def evolve(self, state: S, event: E, /) -> S: ...
    def legal_moves(self, state: S, seat: int, /) -> Iterator[C]: ...
    def view(self, state: S, viewer: Viewer, /) -> Any: ...
    def visible(self, event: E, viewer: Viewer, /) -> E | None: ...
    def outcome(self, state: S, /) -> Outcome: ...
    def leaders(self, state: S, seats: tuple[int, ...], /) -> tuple[int, ...]: ...
    def to_move(self, state: S, /) -> tuple[int, ...]: ...
    def self_undoable(self, events: tuple[E, ...], /) -> bool: ...
    def reveals_to_others(self, events: tuple[E, ...], /) -> bool: ...
    @property
    def EVENTS(self) -> Mapping[str, type[Any]]: ...  # noqa: N802 (a module constant)
    @property
    def COMMANDS(self) -> Mapping[str, type[Any]]: ...  # noqa: N802
    @property
    def VALUES(self) -> Mapping[str, type[Any]]: ...  # noqa: N802


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
    def declare(
        cls,
        hooks: Hooks[S, C, E, Cfg],
        *,
        name: str,
        players: tuple[int, int],
        config_type: type[Cfg],
        display_name: str = "",
        options: tuple[Option, ...] = (),
        self_undo: str = "",
        details: Callable[[], Any] | None = None,
    ) -> GameRules[S, C, E, Cfg]:
        """Returns a game's rules from its package's hooks and its own facts."""
        return cls(
            name=name,
            min_players=players[0],
            max_players=players[1],
            config_type=config_type,
            check_config=hooks.check_config,
            initial_state=hooks.initial_state,
            setup=hooks.setup,
            decide=hooks.decide,
            evolve=hooks.evolve,
            legal_moves=hooks.legal_moves,
            view=hooks.view,
            visible=hooks.visible,
            outcome=hooks.outcome,
            leaders=hooks.leaders,
            to_move=hooks.to_move,
            self_undoable=hooks.self_undoable,
            reveals_to_others=hooks.reveals_to_others,
            events=hooks.EVENTS,
            commands=hooks.COMMANDS,
            values=hooks.VALUES,
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
