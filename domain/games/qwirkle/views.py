"""What each viewer may see of a state or an event (spec §4.5, DESIGN §5).

A redacted event is the same event class with hidden fields emptied and every
count kept. The bag order is secret from every player and spectator; only the
operator's audit copy of an event keeps it, and no view ever holds it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import assert_never

from domain.common.seats import (
    Operator,
    Viewer,
    own_only,
    redacted_for,
    seated,
)
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
from domain.games.qwirkle.model import EndReason, Placement, State, Tile
from domain.games.qwirkle.rules import to_move


@dataclass(frozen=True, slots=True)
class QwirklePublic:
    """What everybody sees: grid, counts, scores, starting numbers, whose turn."""

    board: tuple[Placement, ...]  # sorted by (x, y)
    bag_size: int
    rack_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    starting_numbers: tuple[int, ...]
    to_move: tuple[int, ...]
    first_move_done: bool
    finished: bool
    end_reason: EndReason | None


@dataclass(frozen=True, slots=True)
class QwirklePrivate:
    """What only the seated viewer sees: their own rack."""

    rack: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class QwirkleView:
    """A viewer's view; ``racks`` holds every hand for the operator or at game end."""

    public: QwirklePublic
    private: QwirklePrivate | None
    racks: tuple[tuple[Tile, ...], ...] | None


def public_view(state: State) -> QwirklePublic:
    """Returns the public part of a state."""
    return QwirklePublic(
        board=tuple(
            Placement(tile, x, y) for (x, y), tile in sorted(state.board.items())
        ),
        bag_size=len(state.bag),
        rack_sizes=tuple(len(rack) for rack in state.racks),
        scores=state.scores,
        starting_numbers=state.starting_numbers,
        to_move=to_move(state),
        first_move_done=state.first_move_done,
        finished=state.finished,
        end_reason=state.end_reason,
    )


def view(state: State, viewer: Viewer) -> QwirkleView:
    """Returns what ``viewer`` may see of ``state`` (§4.5)."""
    seat = seated(viewer, state.players)
    private = None if seat is None else QwirklePrivate(rack=state.racks[seat])
    # §4.5: the remaining hands are shown at game end; the operator sees them always.
    everyone = isinstance(viewer, Operator) or state.finished
    return QwirkleView(
        public=public_view(state),
        private=private,
        racks=state.racks if everyone else None,
    )


def visible(event: Event, viewer: Viewer) -> Event | None:
    """Returns ``event`` as ``viewer`` may see it: hidden tiles emptied, counts kept."""
    return redacted_for(viewer, event, _redacted)


def _redacted(event: Event, seat: int | None) -> Event:
    """Returns ``event`` as seen by ``seat`` (None for a spectator)."""
    match event:
        case TilesDealt():
            racks = own_only(event.racks, seat)
            return replace(event, racks=racks, bag=())
        case TilesDrawn():
            return event if event.seat == seat else replace(event, tiles=())
        case TilesExchanged():
            # D9: only the count is public; the new bag order is nobody's.
            if event.seat == seat:
                return replace(event, bag=())
            return replace(event, returned=(), drawn=(), bag=())
        case (
            StartingPlayerChosen()
            | TilesPlaced()
            | TurnScored()
            | TurnPassed()
            | EndBonusScored()
            | GameEnded()
        ):
            return event
        case _:
            assert_never(event)
