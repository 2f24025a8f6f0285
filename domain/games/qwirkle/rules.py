"""``decide``: the Qwirkle rules policy (spec §4, §5; DESIGN §2, §4).

Checks run turn/phase first, then well-formedness, then the game rules; the
first failure is returned. Placement preconditions live in ``checks.py``.

Randomness: exchange number k (k = 1 + exchanges made so far, kept in the
state so an undo restores it) draws the top n tiles of the bag, then appends
the n returned tiles (in the command's order) below the rest of the bag and
shuffles the whole bag with the label ``qwirkle/round-1/exchange-<k>`` (D6, D14).
The drawn tiles and the resulting bag are recorded in ``TilesExchanged``.
"""

from __future__ import annotations

from typing import assert_never

from domain.common.decision import Accepted, Decision, Rejected, malformed, reject
from domain.common.rng import Rng
from domain.common.rules import Outcome, top_seats
from domain.games.qwirkle.checks import check_placement, check_tiles_in_rack
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
from domain.games.qwirkle.evolve import evolve
from domain.games.qwirkle.legal import can_place
from domain.games.qwirkle.model import (
    END_BONUS,
    RACK_SIZE,
    Command,
    EndReason,
    ExchangeTiles,
    Pass,
    Phase,
    PlaceTiles,
    State,
    without,
)
from domain.games.qwirkle.scoring import score_placement


def to_move(state: State) -> tuple[int, ...]:
    """Returns the seats the game waits for: the seat on turn, or none."""
    if state.phase in (Phase.FIRST_MOVE, Phase.TURN):
        return (state.to_move,)
    return ()


def self_undoable(events: tuple[Event, ...]) -> bool:
    """Tells whether a move revealed nothing, so its mover may take it back alone.

    DESIGN §6, D23: a pass, or a placement that drew no tile (the bag was empty)
    and did not end the game. Draws and exchanges show new tiles to the mover and
    use up randomness; the end of the game reveals every hand.
    """
    return not any(
        isinstance(event, TilesExchanged | GameEnded | TilesDealt)
        or (isinstance(event, TilesDrawn) and event.count > 0)
        for event in events
    )


def reveals_to_others(events: tuple[Event, ...]) -> bool:
    """Tells whether a move showed others something hidden, so no takeback crosses it.

    T19: the deal, the starting player chosen from every rack (§3), and the end
    of the game, which shows every rack. Placed tiles were the mover's own to
    show; drawn and exchanged tiles are shown to their drawer alone (D9).
    """
    return any(
        isinstance(event, TilesDealt | StartingPlayerChosen | GameEnded)
        for event in events
    )


def leaders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Returns the seats of ``seats`` with the highest score; ties share (D10).

    Mid-game these are the points scored so far: the end bonus (§5.1) counts
    only once the game has ended and scored it.
    """
    return top_seats(seats, lambda seat: (state.scores[seat],))


def outcome(state: State) -> Outcome:
    """Returns scores, the winners once over (tied leaders share, D10), and if over."""
    everyone = tuple(range(len(state.scores)))
    return Outcome(
        scores=state.scores,
        winners=leaders(state, everyone) if state.finished else (),
        finished=state.finished,
    )


def exchange_label(k: int) -> str:
    """Returns the random label of the game's k-th exchange (DESIGN §4, D14)."""
    return f"qwirkle/round-1/exchange-{k}"


def decide(state: State, command: Command, rng: Rng) -> Decision[Event]:
    """Returns the events a command produces, or why it is refused."""
    refused = _check_turn(state, command)
    if refused is not None:
        return refused
    events: tuple[Event, ...] | Rejected
    match command:
        case PlaceTiles():
            events = _place_tiles(state, command)
        case ExchangeTiles():
            events = _exchange_tiles(state, command, rng)
        case Pass():
            events = _pass(state, command)
        case _:
            assert_never(command)
    if isinstance(events, Rejected):
        return events
    return Accepted(events + _game_end(state, events))


def _check_turn(state: State, command: Command) -> Rejected | None:
    if state.phase is Phase.GAME_OVER:
        return reject("GAME_OVER", "The game is over.", "qwirkle/game_end")
    if state.phase is Phase.SETUP:
        return reject(
            "GAME_NOT_STARTED", "The tiles have not been dealt yet.", "qwirkle/setup"
        )
    if command.seat != state.to_move:
        return reject(
            "NOT_YOUR_TURN",
            f"It is seat {state.to_move}'s turn, not seat {command.seat}'s.",
            "common/turn_order",
            currentPlayer=state.to_move,
            seat=command.seat,
        )
    if state.phase is Phase.FIRST_MOVE and not isinstance(command, PlaceTiles):
        # §4.1 describes only PlaceTiles for the first move (proposed D13).
        return reject(
            "FIRST_MOVE_MUST_PLACE",
            "The first move must lay tiles on the grid.",
            "qwirkle/first_move_place",
        )
    return None


def _place_tiles(state: State, command: PlaceTiles) -> tuple[Event, ...] | Rejected:
    refused = check_placement(state, command.seat, command.placements)
    if refused is not None:
        return refused
    score = score_placement(state.board, command.placements)
    rack = without(state.racks[command.seat], (p.tile for p in command.placements))
    # §4.4: refill from the top of the bag up to six tiles.
    count = min(RACK_SIZE - len(rack), len(state.bag))
    events: tuple[Event, ...] = (
        TilesPlaced(seat=command.seat, placements=command.placements),
        TurnScored(
            seat=command.seat,
            points=score.points,
            lines=score.lines,
            qwirkles=score.qwirkles,
        ),
    )
    if count:
        events += (TilesDrawn(seat=command.seat, count=count, tiles=state.bag[:count]),)
    return events


def _check_exchange_size(command: ExchangeTiles) -> Rejected | None:
    # §4.2: 1 <= n; never more than a full rack.
    n = len(command.tiles)
    if n == 0:
        return malformed(
            "EXCHANGE_EMPTY",
            "An exchange must return at least one tile.",
            "qwirkle/exchange_size",
        )
    if n > RACK_SIZE:
        return malformed(
            "TOO_MANY_TILES",
            f"An exchange returns at most {RACK_SIZE} tiles, not {n}.",
            "qwirkle/exchange_size",
            limit=RACK_SIZE,
            requested=n,
        )
    return None


def _check_exchange_bag(state: State, command: ExchangeTiles) -> Rejected | None:
    n = len(command.tiles)
    if not state.bag:
        # D5: no exchange at all once the bag is empty.
        return reject(
            "BAG_EMPTY",
            "The bag is empty, so no tile can be exchanged.",
            "qwirkle/exchange_bag",
        )
    if n > len(state.bag):
        # D5: never more tiles than the bag holds.
        return reject(
            "EXCHANGE_TOO_LARGE",
            f"The bag holds {len(state.bag)} tiles, fewer than the {n} to exchange.",
            "qwirkle/exchange_size",
            bagSize=len(state.bag),
            requested=n,
        )
    return None


def _exchange_tiles(
    state: State, command: ExchangeTiles, rng: Rng
) -> tuple[Event, ...] | Rejected:
    refused = (
        _check_exchange_size(command)
        or check_tiles_in_rack(state.racks[command.seat], command.tiles)
        or _check_exchange_bag(state, command)
    )
    if refused is not None:
        return refused
    n = len(command.tiles)
    # D6: draw first, then return, so a player never redraws a tile just given back.
    drawn = state.bag[:n]
    bag = rng.shuffle(
        exchange_label(state.exchanges + 1), state.bag[n:] + command.tiles
    )
    return (
        TilesExchanged(
            seat=command.seat,
            count=n,
            returned=command.tiles,
            drawn=drawn,
            bag=tuple(bag),
        ),
    )


def _pass(state: State, command: Pass) -> tuple[Event, ...] | Rejected:
    # D7: no voluntary pass.
    if state.bag:
        return reject(
            "PASS_NOT_ALLOWED",
            f"Passing needs an empty bag, but it holds {len(state.bag)} tiles.",
            "qwirkle/pass",
            bagSize=len(state.bag),
        )
    if can_place(state.board, state.racks[command.seat]):
        return reject(
            "PLACEMENT_POSSIBLE",
            "Passing is not allowed while one of your tiles can be placed.",
            "qwirkle/pass",
        )
    return (TurnPassed(seat=command.seat),)


def _game_end(state: State, events: tuple[Event, ...]) -> tuple[Event, ...]:
    """Returns the events that end the game after a turn's events, if any (§5.2)."""
    seat = state.to_move
    after = state
    for event in events:
        after = evolve(after, event)
    if not after.racks[seat]:
        # §5.1: the rack can only stay empty after a refill from an empty bag.
        return (
            EndBonusScored(seat=seat, points=END_BONUS),
            GameEnded(reason=EndReason.HAND_EMPTIED, racks=after.racks),
        )
    if not after.bag and not any(can_place(after.board, rack) for rack in after.racks):
        # D8: with an empty bag and nobody able to place, the game ends, no bonus.
        return (GameEnded(reason=EndReason.DEADLOCK, racks=after.racks),)
    return ()
