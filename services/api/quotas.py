"""Per-address quotas of ``CreateGame``: tables waiting for players, timed games.

One client address may hold at most ``max_waiting`` tables that were created
and have not started, and at most ``max_timed`` unfinished games with a turn
time limit (each keeps the turn clock busy, and plays a bot's move at every
timeout, until it ends). Beyond either, ``CreateGame`` is refused with
``RESOURCE_EXHAUSTED`` (``TOO_MANY_WAITING_TABLES``, ``TOO_MANY_TIMED_GAMES``)
before anything is stored: it is a quota on what the client holds, as
google.rpc.Code describes ``RESOURCE_EXHAUSTED`` ("a per-user quota"), not a
state of the table the call is about (``FAILED_PRECONDITION``). The refusal
carries no retry advice: only the client frees its quota, by starting or
finishing a table.

The ledger remembers the tables each address opened through this process and
learns only when one stops counting: an address at its cap has its tables
looked up again, first in the folds kept in memory and then in the store (at
most once per ``recheck_seconds`` for each table, so a client that keeps
calling at its cap costs few reads), and the tables that started or finished
meanwhile, through any process, are dropped. A retry of a request the ledger
holds (the same ``request_id``, kept as its key) passes, so a client that
lost the answer still gets it.

Like the rate limits (decision T15) the ledger is per server process and lives
on the event loop; it is bounded: beyond ``max_tables`` tables the least
recently active address is forgotten and starts afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias
from uuid import UUID

import grpc
from tabletop.v1 import game_service_pb2

from domain.common.table_state import TableStatus
from services.api.connections import client_of
from services.api.errors import resource_exhausted
from services.games import GamesApp
from services.records import GameRecord
from services.request_ids import request_key

DEFAULT_MAX_TABLES = 100_000  # ~200 bytes each: at most ~20 MB
RECHECK_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Held:
    """What a table still holds of its creator's quotas."""

    waiting: bool  # created, not started
    finished: bool


# Returns what a game holds, or None when it is unknown (there, or kept).
Lookup: TypeAlias = Callable[[UUID], Held | None]


@dataclass(slots=True)
class _Table:
    timed: bool
    request: str  # the key of the request_id that created it, or ""
    waiting: bool = True
    checked: float = -math.inf  # when the store was last asked


# A table being created: keyed by an object of its own until it has an id.
Key: TypeAlias = UUID | object


class TableQuotas:
    """The tables each address holds; a cap of 0 is no cap."""

    def __init__(
        self,
        max_waiting: int,
        max_timed: int,
        kept: Lookup,
        stored: Lookup,
        *,
        clock: Callable[[], float] = time.monotonic,
        recheck_seconds: float = RECHECK_SECONDS,
        max_tables: int = DEFAULT_MAX_TABLES,
    ) -> None:
        self.max_waiting = max_waiting
        self.max_timed = max_timed
        self._kept = kept
        self._stored = stored
        self._clock = clock
        self._recheck = recheck_seconds
        self._max_tables = max_tables
        self._size = 0
        self._addresses: OrderedDict[str, dict[Key, _Table]] = OrderedDict()

    @contextlib.asynccontextmanager
    async def opening(
        self, context: Any, request: game_service_pb2.CreateGameRequest
    ) -> AsyncIterator[Callable[[str], None]]:
        """Admits a CreateGame call or aborts it; yields what records its table.

        The caller passes the created game's name to what it is given; a call
        that fails records nothing.
        """
        address, _ = client_of(context.peer())
        timed = request.game.turn_time_limit.seconds > 0
        key = request_key(request.request_id)
        if not (self.max_waiting or (timed and self.max_timed)):
            yield _ignore
            return
        tables = self._tables(address)
        if not (key and any(t.request == key for t in tables.values())):
            refusal = await self._refusal(tables, timed=timed)
            if refusal is not None:
                await context.abort_with_status(refusal)
        pending = object()
        self._add(address, pending, _Table(timed and bool(self.max_timed), key))
        try:
            yield lambda name: self._opened(address, pending, name)
        finally:
            self._drop(address, pending)

    def held(self, address: str) -> tuple[int, int]:
        """Returns how many waiting tables and timed games ``address`` holds."""
        return _counts(self._addresses.get(address, {}).values())

    def __len__(self) -> int:
        return self._size

    def _tables(self, address: str) -> dict[Key, _Table]:
        tables = self._addresses.get(address)
        if tables is None:
            tables = self._addresses[address] = {}
        self._addresses.move_to_end(address)
        return tables

    async def _refusal(
        self, tables: dict[Key, _Table], *, timed: bool
    ) -> grpc.Status | None:
        if self._over(tables, timed=timed) is None:
            return None
        await self._recheck_tables(tables)
        match self._over(tables, timed=timed):
            case "waiting":
                return _too_many_waiting(self.max_waiting)
            case "timed":
                return _too_many_timed(self.max_timed)
        return None

    def _over(self, tables: dict[Key, _Table], *, timed: bool) -> str | None:
        waiting, open_timed = _counts(tables.values())
        if self.max_waiting and waiting >= self.max_waiting:
            return "waiting"
        if timed and self.max_timed and open_timed >= self.max_timed:
            return "timed"
        return None

    async def _recheck_tables(self, tables: dict[Key, _Table]) -> None:
        """Drops the tables that started or finished; refreshes the rest."""
        now = self._clock()
        due: list[UUID] = []
        for game_id in [key for key in tables if isinstance(key, UUID)]:
            held = self._kept(game_id)
            if held is not None and not self._holds(tables, game_id, held):
                continue
            if now - tables[game_id].checked >= self._recheck:
                due.append(game_id)
        if not due:
            return
        found = await asyncio.to_thread(_look_up, self._stored, due)
        for game_id, held in found.items():
            table = tables.get(game_id)  # other calls ran meanwhile
            if table is not None:
                table.checked = now
                self._holds(tables, game_id, held)

    def _holds(
        self, tables: dict[Key, _Table], game_id: UUID, held: Held | None
    ) -> bool:
        """Updates a table from what it holds; returns whether it still counts."""
        table = tables[game_id]
        table.waiting = held is not None and held.waiting
        if held is None or held.finished or not (table.waiting or table.timed):
            del tables[game_id]
            self._size -= 1
            return False
        return True

    def _opened(self, address: str, pending: object, name: str) -> None:
        tables = self._addresses.get(address)
        table = tables.get(pending) if tables is not None else None
        if tables is None or table is None:
            return  # the address was forgotten meanwhile
        game_id = UUID(name.removeprefix("games/"))
        if game_id not in tables:  # a retry finds its table there
            self._add(address, game_id, _Table(table.timed, table.request))

    def _add(self, address: str, key: Key, table: _Table) -> None:
        self._tables(address)[key] = table
        self._size += 1
        while self._size > self._max_tables and len(self._addresses) > 1:
            _, forgotten = self._addresses.popitem(last=False)
            self._size -= len(forgotten)

    def _drop(self, address: str, key: Key) -> None:
        tables = self._addresses.get(address)
        if tables is not None and tables.pop(key, None) is not None:
            self._size -= 1
            if not tables:
                del self._addresses[address]


def table_quotas(app: GamesApp, max_waiting: int, max_timed: int) -> TableQuotas:
    """Returns quotas that look tables up in ``app``'s kept folds and store."""
    return TableQuotas(
        max_waiting,
        max_timed,
        kept=lambda game_id: held_by(app.kept.latest(game_id)),
        stored=lambda game_id: held_by(app.get_game(game_id)),
    )


def held_by(record: GameRecord | None) -> Held | None:
    """Returns what a game holds of its creator's quotas."""
    if record is None:
        return None
    status = record.table.status
    return Held(
        waiting=status is TableStatus.WAITING_FOR_PLAYERS,
        finished=status in (TableStatus.FINISHED, TableStatus.CLOSED),
    )


def _look_up(stored: Lookup, game_ids: Sequence[UUID]) -> dict[UUID, Held | None]:
    return {game_id: stored(game_id) for game_id in game_ids}


def _counts(tables: Any) -> tuple[int, int]:
    waiting = timed = 0
    for table in tables:
        waiting += table.waiting
        timed += table.timed
    return waiting, timed


def _ignore(_name: str) -> None:
    """Records nothing: no quota is on."""


def _too_many_waiting(limit: int) -> grpc.Status:
    return resource_exhausted(
        "TOO_MANY_WAITING_TABLES",
        f"This client address already holds {limit} tables waiting for players, "
        "the most it may: start or finish one of them before creating another.",
        {"maxWaitingTables": str(limit)},
    )


def _too_many_timed(limit: int) -> grpc.Status:
    return resource_exhausted(
        "TOO_MANY_TIMED_GAMES",
        f"This client address already has {limit} unfinished games with a turn "
        "time limit, the most it may: finish one, or create this game without "
        "a turn time limit.",
        {"maxTimedGames": str(limit)},
    )
