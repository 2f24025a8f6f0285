"""Spectator fan-out: how fast a move reaches every StreamGame client.

Starts a real ``tabletop serve`` on PostgreSQL, opens the spectators' streams
(each first receives its snapshot, so it is open), then plays Qwirkle moves and
records, for every spectator, the time from the recording of a move's last event
(its ``create_time``, taken by the server as it decides the move, before the
commit) to that event's arrival, on the machine's wall clock. The SubmitMove
reply is no reference: the server may send a move to the spectators before it
answers the mover, and a client may handle its spectators' messages before the
reply, so deliveries seemed to precede their moves. Two scenarios:

* one game followed by ``--spectators`` streams (default 1,000);
* ``--games`` games (default 100) followed by ``--per-game`` streams each (10).

Each runs in two modes: ``event``, one stream item per event (the default), and
``batch``, streams that ask for ``batch_events`` and get the events ready at
once in one item. The spectators run in ``--procs`` processes of their own (the
mover in this one), so that the load generator can be kept from being the
bottleneck; what it costs is measured and printed beside the server's.

It prints latency p50/p95/p99/max, the items a spectator got per move, the
server's resident memory per open stream, the server's CPU time per delivered
event (all its threads, from ``/proc``, and its event loop's thread alone; the
mover's calls included), and the CPU time of the load generator (spectators
and mover) beside the server's over the same moves. It drops the schema it
created. ``--baseline REVISION`` measures the server of
that commit first (from a temporary work tree); ``--profile FILE`` runs this
checkout's server under cProfile and writes its statistics to FILE when it
stops. Run it with ``make bench-fanout``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import grpc
import psycopg
from psycopg import sql
from tabletop.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

from bench.length import default_database

_LISTENING = re.compile(r"listening on ([\d.]+):(\d+)")
STREAMS_PER_CHANNEL = 100  # like many phones behind few connections
SETTLE_SECONDS = 10.0  # how long the last move may take to reach everybody
_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Table:
    """A started two-seat game and its seat tokens."""

    name: str
    tokens: list[str]
    # The revision of each move's last event -> when the server recorded it.
    answered: dict[int, float] = field(default_factory=dict)


@dataclass
class Watched:
    """What one spectator process saw of a game."""

    # revision -> when it arrived, once per stream
    arrived: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    items: int = 0  # stream items that carried events, over all its spectators


def start_server(
    database: str,
    *options: str,
    cwd: Path | None = None,
    profile: str | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """Starts ``tabletop serve`` on a free port; returns it and its address.

    With ``cwd`` the server runs from that checkout (another commit's code);
    with ``profile`` under cProfile, writing its statistics there as it stops.
    """
    command = [sys.executable]
    if profile is not None:
        command += ["-m", "cProfile", "-o", profile]
    command += ["-m", "infra.cli", "serve", "--listen", "127.0.0.1:0"]
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


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """Returns the CPU time (user and system) a process has used.

    That of all its threads, or with ``thread`` of that one alone (the main
    thread's id is the process's: the server's event loop runs there).
    """
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def own_cpu() -> float:
    """Returns this process's CPU time (user and system, all threads)."""
    return time.process_time()


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
    """Plays the first legal move of the player to act; notes when it was recorded."""
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
    name: str,
    watched: Watched,
    opened: asyncio.Event,
    *,
    batch: bool,
) -> None:
    """Follows a game's stream, noting when each revision arrives."""
    call = stub.StreamGame(
        game_service_pb2.StreamGameRequest(
            name=name, snapshot_first=True, batch_events=batch
        )
    )
    try:
        async for item in call:
            kind = item.WhichOneof("item")
            if kind == "snapshot":
                opened.set()
            elif kind in ("event", "events"):
                now = time.time()
                watched.items += 1
                events = [item.event] if kind == "event" else item.events.events
                for event in events:
                    watched.arrived[event.revision].append(now)
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            raise


def spectate(address: str, names: list[str], pipe: Connection, *, batch: bool) -> None:
    """A spectator process: follows one stream per name in ``names``.

    Tells the pipe when every stream is open, is then sent the revisions to
    wait for ({game: [revision]}), and answers with what arrived and its CPU.
    """
    asyncio.run(_spectate(address, names, pipe, batch=batch))


async def _spectate(
    address: str, names: list[str], pipe: Connection, *, batch: bool
) -> None:
    channels = [
        grpc.aio.insecure_channel(address)
        for _ in range(max(1, len(names) // STREAMS_PER_CHANNEL))
    ]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    watched: dict[str, Watched] = defaultdict(Watched)
    opened = [asyncio.Event() for _ in names]
    followers = [
        asyncio.create_task(
            follow(stubs[i % len(stubs)], name, watched[name], opened[i], batch=batch)
        )
        for i, name in enumerate(names)
    ]
    await asyncio.gather(*(event.wait() for event in opened))
    start = own_cpu()
    pipe.send("open")
    expected: dict[str, list[int]] = await asyncio.to_thread(pipe.recv)
    count = sum(
        len(revisions) * names.count(name) for name, revisions in expected.items()
    )
    deadline = time.perf_counter() + SETTLE_SECONDS
    while time.perf_counter() < deadline:
        delivered = sum(
            len(watched[name].arrived[revision])
            for name, revisions in expected.items()
            for revision in revisions
        )
        if delivered >= count:
            break
        await asyncio.sleep(0.01)
    cpu = own_cpu() - start
    for task in followers:
        task.cancel()
    await asyncio.gather(*followers, return_exceptions=True)
    for channel in channels:
        await channel.close()
    arrived = {
        name: {r: watched[name].arrived[r] for r in revisions}
        for name, revisions in expected.items()
    }
    items = {name: w.items for name, w in watched.items()}
    pipe.send((arrived, items, cpu))


def percentile(ordered: list[float], fraction: float) -> float:
    """Returns the value below which ``fraction`` of ``ordered`` lies."""
    return ordered[int(fraction * (len(ordered) - 1))]


async def scenario(
    address: str,
    pid: int,
    games: int,
    per_game: int,
    moves: int,
    *,
    batch: bool,
    procs: int,
) -> dict[str, float]:
    """Runs one scenario; returns its figures."""
    streams = games * per_game
    channel = grpc.aio.insecure_channel(address)
    mover = game_service_pb2_grpc.GameServiceStub(channel)
    tables = [await open_table(mover) for _ in range(games)]
    names = [tables[i % games].name for i in range(streams)]
    before = rss_kib(pid)
    context = multiprocessing.get_context("spawn")
    pipes: list[Connection] = []
    workers = []
    for index in range(procs):
        ours, theirs = context.Pipe()
        worker = context.Process(
            target=spectate,
            args=(address, names[index::procs], theirs),
            kwargs={"batch": batch},
        )
        worker.start()
        pipes.append(ours)
        workers.append(worker)
    for pipe in pipes:
        if await asyncio.to_thread(pipe.recv) != "open":
            raise RuntimeError("a spectator process failed")
    after = rss_kib(pid)
    server_start, mover_start = cpu_seconds(pid), own_cpu()
    loop_start = cpu_seconds(pid, pid)
    for _ in range(moves):
        for table in tables:
            await play_one(mover, table)
    mover_cpu = own_cpu() - mover_start
    expected = {table.name: list(table.answered) for table in tables}
    for pipe in pipes:
        pipe.send(expected)
    results: list[Any] = [await asyncio.to_thread(pipe.recv) for pipe in pipes]
    server_cpu = cpu_seconds(pid) - server_start
    loop_cpu = cpu_seconds(pid, pid) - loop_start
    for worker in workers:
        worker.join()
    await channel.close()
    by_name = {table.name: table for table in tables}
    delays: list[float] = []
    items = 0
    spectator_cpu = 0.0
    for arrived, counts, cpu in results:
        spectator_cpu += cpu
        items += sum(counts.values())
        for name, revisions in arrived.items():
            answered = by_name[name].answered
            for revision, times in revisions.items():
                delays.extend((t - answered[revision]) * 1000 for t in times)
    wanted = games * moves * per_game
    ordered = sorted(delays)
    return {
        "streams": streams,
        "deliveries": len(delays),
        "missing": wanted - len(delays),
        "p50": statistics.median(ordered),
        "p95": percentile(ordered, 0.95),
        "p99": percentile(ordered, 0.99),
        "max": ordered[-1],
        "items_per_move": items / wanted,
        "kib_per_stream": (after - before) / streams,
        "server_us": server_cpu / max(1, len(delays)) * 1e6,
        "loop_us": loop_cpu / max(1, len(delays)) * 1e6,
        "server_cpu": server_cpu,
        "generator_cpu": spectator_cpu + mover_cpu,
    }


def measure(label: str, root: Path | None, args: argparse.Namespace) -> None:
    """Starts a server (of ``root``'s checkout) and prints its rows."""
    database = args.database or default_database()
    # A thousand spectators on one address would be rate limited and over the
    # streams an address may open; this measures the feed, not the limits.
    unlimited = ("--rate-limit", "0", "--max-streams-per-address", "0")
    profile = args.profile if root is None else None
    server, address = start_server(database, *unlimited, cwd=root, profile=profile)
    scenarios = (
        ("one", f"1 game x {args.spectators}", 1, args.spectators, args.moves),
        ("many", f"{args.games} games x {args.per_game}", args.games, args.per_game, 2),
    )
    try:
        for key, name, games, per_game, moves in scenarios:
            if args.scenario not in ("all", key):
                continue
            for mode, batch in (("event", False), ("batch", True)):
                if args.mode not in ("all", mode):
                    continue
                result = asyncio.run(
                    scenario(
                        address,
                        server.pid,
                        games,
                        per_game,
                        moves,
                        batch=batch,
                        procs=args.procs,
                    )
                )
                print(
                    f"{label:<10}{name:<18}{mode:<6}{result['streams']:>7.0f}"
                    f"{result['deliveries']:>10.0f}{result['missing']:>8.0f}"
                    f"{result['p50']:>8.1f}{result['p95']:>8.1f}{result['p99']:>8.1f}"
                    f"{result['max']:>8.1f}{result['items_per_move']:>7.2f}"
                    f"{result['kib_per_stream']:>8.1f}{result['server_us']:>10.1f}"
                    f"{result['loop_us']:>9.1f}"
                    f"{result['server_cpu']:>8.2f}{result['generator_cpu']:>8.2f}",
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(timeout=30)
        if args.database is None:
            drop_schema(database)


@contextmanager
def checkout(revision: str | None) -> Iterator[Path | None]:
    """Yields a temporary work tree of ``revision`` (None: yields None)."""
    if revision is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="tabletop-baseline-") as parent:
        tree = Path(parent) / "tree"
        git = ["git", "worktree"]
        subprocess.run([*git, "add", "-q", "--detach", str(tree), revision], check=True)  # noqa: S603
        try:
            yield tree
        finally:
            subprocess.run([*git, "remove", "--force", str(tree)], check=True)  # noqa: S603


def main() -> None:
    """Starts a server, runs the scenarios and prints their figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", default=None, help="default: a new schema")
    parser.add_argument("--spectators", type=int, default=1_000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--per-game", type=int, default=10)
    parser.add_argument("--moves", type=int, default=20, help="per game")
    parser.add_argument(
        "--procs", type=int, default=1, help="processes the spectators run in"
    )
    parser.add_argument("--scenario", choices=("all", "one", "many"), default="all")
    parser.add_argument("--mode", choices=("all", "event", "batch"), default="all")
    parser.add_argument(
        "--baseline", metavar="REVISION", help="also measure the server at this commit"
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="cProfile this checkout's server into FILE"
    )
    args = parser.parse_args()
    print(
        f"# spectator fan-out, {os.cpu_count()} cores, spectators in "
        f"{args.procs} process(es); server CPU: all its threads; generator CPU: "
        "the spectators' processes and the mover"
    )
    print(
        f"{'server':<10}{'scenario':<18}{'mode':<6}{'streams':>7}{'delivered':>10}"
        f"{'missing':>8}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}{'max ms':>8}"
        f"{'it/mv':>7}{'KiB/st':>8}{'srv us/ev':>10}{'loop us':>9}{'srv s':>8}"
        f"{'gen s':>8}"
    )
    with checkout(args.baseline) as tree:
        if tree is not None:
            measure(str(args.baseline)[:9], tree, args)
        measure("this tree", None, args)


if __name__ == "__main__":
    main()
