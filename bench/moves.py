"""Moves end to end: SubmitMove through a real server, beside pgbench's limit.

Starts a real ``tabletop serve`` on PostgreSQL; this process is the load
generator. At each client count (default 1, 8 and 64) that many clients play
for ``--seconds``: each opens a table (Qwirkle for even-numbered clients, Fool!
with four seats for odd ones), holds every seat's token, and until the game
ends asks the seat to move for one legal move (``ListLegalMoves`` with
``page_size=1``) and submits it. A client starts a new game when its game ends.
Only ``SubmitMove`` calls are counted and timed (p50/p95/p99 of their latency).

In the same run pgbench plays the database's limit on the same PostgreSQL: one
transaction per statement, each a one-row INSERT, at the same client counts.
The last column is moves/s divided by pgbench's transactions/s.

Each server setup runs on a new schema: this checkout with one process and with
two (``tabletop serve --processes 2``), and with ``--baseline REVISION`` first
the server of that commit, from a temporary git work tree, for a before/after
in one run.

Run it with ``make bench-moves`` (``BENCH_ARGS="--baseline 6d9f8ce --seconds 10"``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias
from urllib.parse import parse_qs, unquote, urlsplit

import grpc
import psycopg
from psycopg.conninfo import make_conninfo
from tabletop.v1 import fool_pb2, game_pb2, game_service_pb2, game_service_pb2_grpc

from bench.fanout import auth, rss_kib, start_server
from bench.length import default_database

CLIENTS_PER_CHANNEL = 8  # a few phones share one connection in this generator
PGBENCH_TABLE = "bench_pgbench_rows"
_TPS = re.compile(r"tps = ([\d.]+) \(without initial connection time\)")
if TYPE_CHECKING:
    Stub: TypeAlias = game_service_pb2_grpc.GameServiceAsyncStub


@dataclass
class Tally:
    """What the clients of one level did: SubmitMove latencies, refusals."""

    latencies: list[float] = field(default_factory=list)  # seconds
    refused: int = 0
    games: int = 0


async def open_table(stub: Stub, client: int) -> tuple[str, list[str], str]:
    """Opens and starts a table; returns its name, seat tokens and current player."""
    if client % 2 == 0:
        game = game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE)
        seats = 2
    else:
        game = game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_FOOL, fool_config=fool_pb2.FoolConfig()
        )
        seats = 4
    created = await stub.CreateGame(
        game_service_pb2.CreateGameRequest(game=game, display_name="Seat 0")
    )
    name, tokens = created.game.name, [created.seat_token]
    for seat in range(1, seats):
        joined = await stub.JoinGame(
            game_service_pb2.JoinGameRequest(name=name, display_name=f"Seat {seat}")
        )
        tokens.append(joined.seat_token)
    started = await stub.StartGame(
        game_service_pb2.StartGameRequest(name=name), metadata=auth(tokens[0])
    )
    return name, tokens, started.game.current_player


async def one_move(
    stub: Stub, name: str, tokens: list[str], current: str, tally: Tally
) -> game_pb2.Game | None:
    """Submits one legal move of the seat to act; returns the game after it."""
    seats = [int(current.rsplit("/", 1)[1])] if current else range(len(tokens))
    for seat in seats:
        moves = await stub.ListLegalMoves(
            game_service_pb2.ListLegalMovesRequest(name=name, page_size=1),
            metadata=auth(tokens[seat]),
        )
        if not moves.moves:
            continue
        request = game_service_pb2.SubmitMoveRequest(
            name=name, move=moves.moves[0], expected_revision=moves.revision
        )
        started = time.perf_counter()
        try:
            reply = await stub.SubmitMove(request, metadata=auth(tokens[seat]))
        except grpc.aio.AioRpcError:
            tally.refused += 1
            return None
        tally.latencies.append(time.perf_counter() - started)
        return reply.game
    return None


async def client(stub: Stub, index: int, until: float, tally: Tally) -> None:
    """Plays games one after another until ``until``."""
    while time.perf_counter() < until:
        name, tokens, current = await open_table(stub, index)
        tally.games += 1
        while time.perf_counter() < until:
            game = await one_move(stub, name, tokens, current, tally)
            if game is None:
                break
            if game.state != game_pb2.GAME_STATE_IN_PROGRESS:
                break
            current = game.current_player


async def level(address: str, clients: int, seconds: float) -> Tally:
    """Runs ``clients`` concurrent clients for ``seconds``; returns their tally."""
    channels = [
        grpc.aio.insecure_channel(address)
        for _ in range(max(1, clients // CLIENTS_PER_CHANNEL))
    ]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    tally = Tally()
    until = time.perf_counter() + seconds
    await asyncio.gather(
        *(client(stubs[i % len(stubs)], i, until, tally) for i in range(clients))
    )
    for channel in channels:
        await channel.close()
    return tally


def connection_of(database: str) -> dict[str, str]:
    """Returns the host, port, user and database name of a PostgreSQL URL."""
    parts = urlsplit(database)
    return {
        "host": parts.hostname or "127.0.0.1",
        "port": str(parts.port or 5432),
        "user": unquote(parts.username or "postgres"),
        "dbname": unquote(parts.path.lstrip("/")) or "postgres",
    }


def run_sql(database: str, statement: str) -> None:
    """Runs one statement on the database of a PostgreSQL URL."""
    password = unquote(urlsplit(database).password or "")
    conninfo = make_conninfo("", **connection_of(database), password=password)
    with psycopg.connect(conninfo, autocommit=True) as db:
        db.execute(statement.encode())


def schema_of(database: str) -> str:
    """Returns the schema a PostgreSQL URL selects."""
    return parse_qs(urlsplit(database).query).get("schema", ["public"])[0]


def pgbench_tps(database: str, clients: int, seconds: float) -> float:
    """Returns pgbench's one-row INSERT transactions/s at ``clients`` clients."""
    parts = urlsplit(database)
    table = f"{schema_of(database)}.{PGBENCH_TABLE}"
    connection = connection_of(database)
    run_sql(database, f"CREATE SCHEMA IF NOT EXISTS {schema_of(database)}")
    run_sql(database, f"CREATE TABLE IF NOT EXISTS {table} (id bigserial, v int)")
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as script:
        script.write(f"INSERT INTO {table} (v) VALUES (1);\n")  # noqa: S608 (our schema)
        script.flush()
        command = [
            pgbench_path(),
            "--no-vacuum",
            f"--client={clients}",
            f"--jobs={min(clients, os.cpu_count() or 1)}",
            f"--time={max(1, round(seconds))}",
            f"--file={script.name}",
            f"--host={connection['host']}",
            f"--port={connection['port']}",
            f"--username={connection['user']}",
            connection["dbname"],
        ]
        env = {**os.environ, "PGPASSWORD": unquote(parts.password or "")}
        done = subprocess.run(  # noqa: S603 (our own arguments)
            command, capture_output=True, text=True, check=True, env=env
        )
    found = _TPS.search(done.stdout)
    if found is None:
        raise RuntimeError(f"pgbench printed no tps:\n{done.stdout}{done.stderr}")
    return float(found.group(1))


def pgbench_path() -> str:
    """Returns pgbench: on the PATH, or where Debian installs the server."""
    found = shutil.which("pgbench")
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pgbench"))
    if not candidates:
        raise RuntimeError("pgbench is not installed (Debian: postgresql-15)")
    return str(candidates[-1])


def group_rss_kib(pid: int) -> int:
    """Returns the resident memory of a server and of the servers it started."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return rss_kib(pid) + sum(group_rss_kib(int(child)) for child in children)


def percentile(ordered: list[float], share: float) -> float:
    """Returns the nearest-rank percentile of sorted values, in milliseconds."""
    return ordered[round(share * (len(ordered) - 1))] * 1000


@dataclass(frozen=True)
class Setup:
    """A server to measure: its label, the checkout it runs from, its options."""

    label: str
    root: Path | None  # None: this checkout
    options: tuple[str, ...] = ()


def measure(
    setup: Setup, counts: list[int], seconds: float, limits: dict[int, float]
) -> None:
    """Starts the setup's server on a new schema and prints one row per count."""
    database = default_database()
    # Every client plays as fast as it can from one address, far above the
    # rate limit; a baseline checkout may predate --rate-limit, so only this
    # checkout is told to turn it off.
    unlimited = ("--rate-limit", "0") if setup.root is None else ()
    server, address = start_server(database, *setup.options, *unlimited, cwd=setup.root)
    try:
        asyncio.run(level(address, 2, 2.0))  # warm up imports, pools, caches
        for clients in counts:
            tally = asyncio.run(level(address, clients, seconds))
            ordered = sorted(tally.latencies)
            rate = len(ordered) / seconds
            print(
                f"{setup.label:<22}{clients:>7}{len(ordered):>8}{rate:>9.1f}"
                f"{statistics.median(ordered) * 1000:>8.2f}"
                f"{percentile(ordered, 0.95):>8.2f}{percentile(ordered, 0.99):>8.2f}"
                f"{tally.refused:>8}{tally.games:>6}{rate / limits[clients]:>7.3f}"
                f"{group_rss_kib(server.pid) / 1024:>11.1f}",
                flush=True,
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
        run_sql(database, f"DROP SCHEMA IF EXISTS {schema_of(database)} CASCADE")


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
    """Runs pgbench, then every server setup at every client count."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", default="1,8,64", help="client counts")
    parser.add_argument("--seconds", type=float, default=10.0, help="per level")
    parser.add_argument(
        "--processes", default="1,2", help="server process counts to measure"
    )
    parser.add_argument(
        "--baseline", metavar="REVISION", help="also measure the server at this commit"
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    pgbench_database = default_database()
    try:
        limits = {n: pgbench_tps(pgbench_database, n, args.seconds) for n in counts}
    finally:
        schema = schema_of(pgbench_database)
        run_sql(pgbench_database, f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    print(f"# moves end to end, {os.cpu_count()} cores; pgbench one-row INSERT tps:")
    print("# " + ", ".join(f"{n} clients {tps:.0f}" for n, tps in limits.items()))
    print(
        f"{'server':<22}{'clients':>7}{'moves':>8}{'moves/s':>9}{'p50 ms':>8}"
        f"{'p95 ms':>8}{'p99 ms':>8}{'refused':>8}{'games':>6}{'ratio':>7}"
        f"{'server MiB':>11}"
    )
    with checkout(args.baseline) as tree:
        setups = [Setup(f"{args.baseline}, 1 process", tree)] if tree else []
        for processes in (int(n) for n in args.processes.split(",")):
            options = ("--processes", str(processes)) if processes > 1 else ()
            setups.append(Setup(f"this tree, {processes} proc.", None, options))
        for setup in setups:
            measure(setup, counts, args.seconds, limits)


if __name__ == "__main__":
    main()
