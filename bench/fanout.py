"""Spectator fan-out: how fast a move reaches every StreamGame client.

Starts a real ``tabletop serve`` on PostgreSQL, opens the spectators' streams
(each first receives its snapshot, so it is open), then plays Qwirkle moves and
records, for every spectator, the time from the recording of a move's last event
(its ``create_time``, taken by the server as it decides the move, before the
commit) to that event's arrival, on the machine's wall clock. Spectators and the
mover share this process (the load generator is included in the figures). The
SubmitMove reply is no reference: the server may send a move to the spectators
before it answers the mover, and this process may handle its spectators'
messages before the reply, so deliveries seemed to precede their moves. Two
scenarios:

* one game followed by ``--spectators`` streams (default 1,000);
* ``--games`` games (default 100) followed by ``--per-game`` streams each (10).

Each runs in two modes: ``event``, one stream item per event (the default), and
``batch``, streams that ask for ``batch_events`` and get the events ready at
once in one item. It prints latency p50/p99/max, the items a spectator got per
move, and the server's resident memory per open stream, and drops the schema it
created. Run it with ``make bench-fanout``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import grpc
import psycopg
from psycopg import sql
from tabletop.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

from bench.length import default_database

_LISTENING = re.compile(r"listening on ([\d.]+):(\d+)")
STREAMS_PER_CHANNEL = 100  # like many phones behind few connections
SETTLE_SECONDS = 10.0  # how long the last move may take to reach everybody


@dataclass
class Table:
    """A started two-seat game and its seat tokens."""

    name: str
    tokens: list[str]
    # The revision of each move's last event -> when the server recorded it.
    answered: dict[int, float] = field(default_factory=dict)
    arrived: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    items: int = 0  # stream items that carried events, over all its spectators


def start_server(
    database: str, *options: str, cwd: Path | None = None
) -> tuple[subprocess.Popen[str], str]:
    """Starts ``tabletop serve`` on a free port; returns it and its address.

    With ``cwd`` the server runs from that checkout (another commit's code).
    """
    command = [sys.executable, "-m", "infra.cli", "serve", "--listen", "127.0.0.1:0"]
    command += ["--database", database, "--log-level", "WARNING", *options]
    server = subprocess.Popen(  # noqa: S603 (our own command)
        command, stdout=subprocess.PIPE, text=True, cwd=cwd
    )
    assert server.stdout is not None  # noqa: S101 (stdout=PIPE)
    found = _LISTENING.search(server.stdout.readline())
    if found is None:
        server.kill()
        raise RuntimeError("the server did not start")
    return server, f"{found.group(1)}:{found.group(2)}"


def drop_schema(database: str) -> None:
    """Drops the schema a PostgreSQL URL selects, with everything in it."""
    parts = urlsplit(database)
    schema = parse_qs(parts.query)["schema"][0]
    statement = sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
        sql.Identifier(schema)
    )
    with psycopg.connect(urlunsplit(parts._replace(query="")), autocommit=True) as db:
        db.execute(statement)


def rss_kib(pid: int) -> int:
    """Returns a process's resident memory in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def auth(token: str) -> tuple[tuple[str, str], ...]:
    """Returns call metadata that presents a seat token."""
    return (("authorization", f"Bearer {token}"),)


async def open_table(stub: game_service_pb2_grpc.GameServiceAsyncStub) -> Table:
    """Creates and starts a two-seat Qwirkle game."""
    created = await stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Ana",
        )
    )
    joined = await stub.JoinGame(
        game_service_pb2.JoinGameRequest(name=created.game.name, display_name="Ben")
    )
    tokens = [created.seat_token, joined.seat_token]
    await stub.StartGame(
        game_service_pb2.StartGameRequest(name=created.game.name),
        metadata=auth(tokens[0]),
    )
    return Table(created.game.name, tokens)


async def play_one(
    stub: game_service_pb2_grpc.GameServiceAsyncStub, table: Table
) -> None:
    """Plays the first legal move of the player to act; notes when it was answered."""
    game = (await stub.GetGame(game_service_pb2.GetGameRequest(name=table.name))).game
    token = table.tokens[int(game.current_player.rsplit("/", 1)[1])]
    moves = await stub.ListLegalMoves(
        game_service_pb2.ListLegalMovesRequest(name=table.name, page_size=1),
        metadata=auth(token),
    )
    reply = await stub.SubmitMove(
        game_service_pb2.SubmitMoveRequest(name=table.name, move=moves.moves[0]),
        metadata=auth(token),
    )
    recorded = reply.events[-1].create_time
    table.answered[reply.game.revision] = recorded.seconds + recorded.nanos / 1e9


async def follow(
    stub: game_service_pb2_grpc.GameServiceAsyncStub,
    table: Table,
    opened: asyncio.Event,
    *,
    batch: bool,
) -> None:
    """Follows a game's stream, noting when each revision arrives."""
    call = stub.StreamGame(
        game_service_pb2.StreamGameRequest(
            name=table.name, snapshot_first=True, batch_events=batch
        )
    )
    try:
        async for item in call:
            kind = item.WhichOneof("item")
            if kind == "snapshot":
                opened.set()
            elif kind in ("event", "events"):
                now = time.time()
                table.items += 1
                events = [item.event] if kind == "event" else item.events.events
                for event in events:
                    table.arrived[event.revision].append(now)
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            raise


async def arrivals(tables: list[Table], per_game: int) -> None:
    """Waits until every spectator has every answered move, or ``SETTLE_SECONDS``.

    Deliveries still missing then are reported as missing; stopping at a fixed
    pause instead would leave out the slowest ones and flatter the percentiles.
    """
    expected = sum(len(table.answered) for table in tables) * per_game
    deadline = time.perf_counter() + SETTLE_SECONDS
    while time.perf_counter() < deadline:
        delivered = sum(
            len(table.arrived[revision])
            for table in tables
            for revision in table.answered
        )
        if delivered >= expected:
            return
        await asyncio.sleep(0.05)


async def scenario(
    address: str, pid: int, games: int, per_game: int, moves: int, *, batch: bool
) -> dict[str, float]:
    """Runs one scenario; returns its figures."""
    streams = games * per_game
    channels = [
        grpc.aio.insecure_channel(address)
        for _ in range(max(1, streams // STREAMS_PER_CHANNEL))
    ]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    mover = stubs[0]
    tables = [await open_table(mover) for _ in range(games)]
    before = rss_kib(pid)
    opened = [asyncio.Event() for _ in range(streams)]
    followers = [
        asyncio.create_task(
            follow(stubs[i % len(stubs)], tables[i % games], opened[i], batch=batch)
        )
        for i in range(streams)
    ]
    await asyncio.gather(*(event.wait() for event in opened))
    after = rss_kib(pid)
    for _ in range(moves):
        for table in tables:
            await play_one(mover, table)
    await arrivals(tables, per_game)
    for task in followers:
        task.cancel()
    await asyncio.gather(*followers, return_exceptions=True)
    for channel in channels:
        await channel.close()
    delays = [
        (arrival - answered) * 1000
        for table in tables
        for revision, answered in table.answered.items()
        for arrival in table.arrived[revision]
    ]
    expected = games * moves * per_game
    ordered = sorted(delays)
    return {
        "streams": streams,
        "deliveries": len(delays),
        "missing": expected - len(delays),
        "p50": statistics.median(ordered),
        "p99": ordered[int(0.99 * (len(ordered) - 1))],
        "max": ordered[-1],
        "items_per_move": sum(table.items for table in tables) / expected,
        "kib_per_stream": (after - before) / streams,
    }


def main() -> None:
    """Starts a server, runs both scenarios and prints their figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", default=None, help="default: a new schema")
    parser.add_argument("--spectators", type=int, default=1_000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--per-game", type=int, default=10)
    parser.add_argument("--moves", type=int, default=20, help="per game")
    args = parser.parse_args()
    database = args.database or default_database()
    # A thousand spectators on one address would be rate limited and over the
    # streams an address may open; this measures the feed, not the limits.
    unlimited = ("--rate-limit", "0", "--max-streams-per-address", "0")
    server, address = start_server(database, *unlimited)
    try:
        print(f"# spectator fan-out, server pid {server.pid}, {os.cpu_count()} cores")
        print(
            f"{'scenario':<22}{'mode':<7}{'streams':>8}{'delivered':>10}"
            f"{'missing':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
            f"{'items/move':>11}{'KiB/stream':>11}"
        )
        for label, games, per_game, moves in (
            (f"1 game x {args.spectators}", 1, args.spectators, args.moves),
            (f"{args.games} games x {args.per_game}", args.games, args.per_game, 2),
        ):
            for mode, batch in (("event", False), ("batch", True)):
                result = asyncio.run(
                    scenario(address, server.pid, games, per_game, moves, batch=batch)
                )
                print(
                    f"{label:<22}{mode:<7}{result['streams']:>8.0f}"
                    f"{result['deliveries']:>10.0f}{result['missing']:>8.0f}"
                    f"{result['p50']:>9.2f}{result['p99']:>9.2f}{result['max']:>9.2f}"
                    f"{result['items_per_move']:>11.2f}"
                    f"{result['kib_per_stream']:>11.1f}",
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(timeout=30)
        if args.database is None:
            drop_schema(database)


if __name__ == "__main__":
    main()
