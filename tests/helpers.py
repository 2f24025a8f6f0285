"""Shared test helpers: rich gRPC error details and Qwirkle tables played by bots."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import grpc
from google.rpc import error_details_pb2, status_pb2
from tabletop.v1 import common_pb2, move_pb2, qwirkle_pb2

from domain.common import table as tables
from domain.common.decision import Accepted, Decision, Rejected
from domain.common.rng import commitment
from domain.games.qwirkle import RULES, ExchangeTiles, QwirkleConfig, State
from services.api.errors import ApiError

STATUS_DETAILS_KEY = "grpc-status-details-bin"
SEED = bytes(range(32))

E = TypeVar("E")
Chooser = Callable[[State, int], Any]


# --- Rich errors ---


def status_details(error: ApiError) -> status_pb2.Status:
    """Returns the ``google.rpc.Status`` an ApiError sends in its trailer."""
    for key, value in error.status.trailing_metadata:
        if key == STATUS_DETAILS_KEY:
            assert isinstance(value, bytes)
            return status_pb2.Status.FromString(value)
    msg = f"no {STATUS_DETAILS_KEY} trailer in {error.status!r}"
    raise AssertionError(msg)


def error_info(error: ApiError) -> error_details_pb2.ErrorInfo:
    """Returns the ``ErrorInfo`` detail of an ApiError."""
    for detail in status_details(error).details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):  # False when the detail is of another type
            return info
    msg = f"no ErrorInfo detail in {error.status!r}"
    raise AssertionError(msg)


# --- Decisions ---


def accepted(decision: Decision[E]) -> tuple[E, ...]:
    """Returns the events of a decision that must be accepted."""
    assert isinstance(decision, Accepted), decision
    return decision.events


def refused(decision: object) -> Rejected:
    """Returns the refusal of a decision (or use-case result) that must be refused."""
    assert isinstance(decision, Rejected), decision
    return decision


# --- Qwirkle tables ---


def fold_table(
    events: Iterable[Any], table: tables.Table | None = None
) -> tables.Table:
    """Returns ``table`` after ``events`` (a new table when ``table`` is None)."""
    for event in events:
        table = tables.evolve(table, event, RULES)
    assert table is not None, "no events"
    return table


def open_table(
    players: int, seed: bytes = SEED, max_players: int = 0
) -> tuple[tables.Table, list[Any]]:
    """Returns a Qwirkle table with ``players`` seated (not started) and its events."""
    events = list(
        accepted(
            tables.create(
                RULES,
                tables.GameCreated(
                    RULES.name,
                    QwirkleConfig(),
                    max_players,
                    commitment(seed),
                    seed.hex(),
                ),
                tables.SeatHolder("Player 0", "hash-0"),
            )
        )
    )
    table = fold_table(events)
    for seat in range(1, players):
        joined = accepted(tables.join(table, f"Player {seat}", f"hash-{seat}"))
        table = fold_table(joined, table)
        events.extend(joined)
    return table, events


def started_table(
    players: int = 2, seed: bytes = SEED
) -> tuple[tables.Table, list[Any]]:
    """Returns a started Qwirkle table and every event so far."""
    table, events = open_table(players, seed)
    opening = accepted(tables.start(table, RULES, 0))
    events.extend(opening)
    return fold_table(opening, table), events


def seat_to_move(table: tables.Table) -> int:
    """Returns the one seat the game waits for."""
    (seat,) = RULES.to_move(table.game)
    return seat


def first_legal_move(state: State, seat: int) -> Any:
    """Returns the first command ``legal_moves`` yields."""
    return next(RULES.legal_moves(state, seat))


def random_legal_move(rnd: random.Random) -> Chooser:
    """Returns a bot that picks among the first legal moves, sometimes an exchange.

    Enumerating every placement is slow, so the bot samples the first few moves
    and, now and then, looks further for an exchange so games include them.
    """

    def choose(state: State, seat: int) -> Any:
        if state.bag and rnd.random() < 0.1:
            exchanges = [
                move
                for move in RULES.legal_moves(state, seat)
                if isinstance(move, ExchangeTiles)
            ]
            if exchanges:
                return rnd.choice(exchanges)
        return rnd.choice(list(itertools.islice(RULES.legal_moves(state, seat), 12)))

    return choose


def play_to_end(
    table: tables.Table, choose: Chooser = first_legal_move, max_turns: int = 1000
) -> tuple[tables.Table, list[Any], list[Any]]:
    """Plays until the table finishes; returns it, the events and the commands."""
    events: list[Any] = []
    commands: list[Any] = []
    for _ in range(max_turns):
        if table.status is not tables.TableStatus.IN_PROGRESS:
            return table, events, commands
        seat = seat_to_move(table)
        command = choose(table.game, seat)
        played = accepted(tables.play(table, RULES, seat, command))
        table = fold_table(played, table)
        events.extend(played)
        commands.append(command)
    msg = f"the game did not end within {max_turns} turns"
    raise AssertionError(msg)


class Aborted(Exception):  # noqa: N818 (what grpc's abort does: raise)
    """Raised by a fake servicer context's abort, as grpc's own abort raises."""

    def __init__(self, status: grpc.Status) -> None:
        super().__init__(status.code)
        self.status = status


def qwirkle_placements_message(count: int) -> move_pb2.Move:
    """Returns a Qwirkle placement of ``count`` tiles on small coordinates."""
    tile = qwirkle_pb2.QwirkleTile(
        color=qwirkle_pb2.QWIRKLE_COLOR_RED, shape=qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE
    )
    return move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            place_tiles=qwirkle_pb2.QwirklePlaceTiles(
                placements=[
                    qwirkle_pb2.QwirklePlacement(
                        tile=tile, at=common_pb2.Coordinate(x=i % 60, y=i // 60 % 60)
                    )
                    for i in range(count)
                ]
            )
        )
    )
