"""Moves end to end: SubmitMove through a real server, beside pgbench's limit.

Starts a real ``tabletop serve`` on PostgreSQL and, as the load generator, the
Node.js program bench/node/moves.mjs (@grpc/grpc-js; ``make bench-moves`` runs
``npm ci`` for it), so the generator costs less CPU than the server it measures
on the same cores. At each client count (default 1, 8 and 64) that many clients
play for ``--seconds``: each opens a table (Qwirkle for even-numbered clients,
Fool! with four seats for odd ones), holds every seat's token, and until the
game ends asks the seat to move for one legal move (``ListLegalMoves`` with
``page_size=1``) and submits it. A client starts a new game when its game ends.
``SubmitMove`` is timed alone and with the ``ListLegalMoves`` before it (the
pair), p50/p95/p99.

CPU per move: the user and system time of the server process and of every
process it started (``/proc/<pid>/stat``), and of the generator, over the timed
window only, divided by the moves stored in it (opening tables included).

In the same run pgbench plays the database's limit on the same PostgreSQL: one
transaction per statement, each a one-row INSERT, at the same client counts.
The ratio column is moves/s divided by pgbench's transactions/s.

Each server setup runs on a new schema: this checkout with each ``--processes``
count (``auto`` when the server takes it) and each ``--workers`` count, and with
``--baseline REVISION`` first the server of that commit, from a temporary git
work tree, for a before/after in one run. The generator reads the protos of the
server it plays (the baseline's own for the baseline), so it sends only fields
that server knows; ``--view`` chooses SubmitMoveRequest.view (default: the
leanest GameView those protos offer; none without the field).

Run it with ``make bench-moves`` (``BENCH_ARGS="--baseline 6d9f8ce --seconds 10"``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import psycopg
from psycopg.conninfo import make_conninfo

from bench.fanout import checkout, rss_kib, start_server
from bench.length import default_database

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "bench" / "node" / "moves.mjs"
PGBENCH_TABLE = "bench_pgbench_rows"
_TPS = re.compile(r"tps = ([\d.]+) \(without initial connection time\)")


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
    """Returns the nearest-rank percentile of sorted seconds, in milliseconds."""
    return ordered[round(share * (len(ordered) - 1))] * 1000


@dataclass(frozen=True)
class Setup:
    """A server to measure: its label, the checkout it runs from, its options."""

    label: str
    root: Path | None  # None: this checkout
    options: tuple[str, ...] = ()


def generator_command(
    address: str, server_pid: int, protos: Path, args: argparse.Namespace
) -> list[str]:
    """Returns the command line of the Node.js generator for one server."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not installed (Node.js 20 or later)")
    if not (GENERATOR.parent / "node_modules" / "@grpc" / "grpc-js").is_dir():
        raise RuntimeError("run `npm ci --prefix bench/node` (make bench-moves does)")
    return [
        node,
        str(GENERATOR),
        f"--address={address}",
        f"--clients={args.clients}",
        f"--seconds={args.seconds}",
        f"--view={args.view}",
        f"--protos={protos}",
        f"--server-pid={server_pid}",
        f"--clock-ticks={os.sysconf('SC_CLK_TCK')}",
        f"--clients-per-channel={args.clients_per_channel}",
    ]


def row(setup: Setup, level: dict[str, Any], tps: float | None, mib: float) -> str:
    """Formats one client count's figures as a line of the table."""
    submit, pair = level["submit_ms"], level["pair_ms"]
    ratio = f"{level['moves_per_s'] / tps:>7.3f}" if tps else f"{'-':>7}"

    def ms(value: float | None, width: int = 8) -> str:
        return f"{value:>{width}.2f}" if value is not None else f"{'-':>{width}}"

    return (
        f"{setup.label:<26}{level['clients']:>7}{level['moves']:>7}"
        f"{level['moves_per_s']:>9.1f}{ms(submit['p50'])}{ms(submit['p95'])}"
        f"{ms(submit['p99'])}{ms(pair['p50'], 9)}{ms(pair['p95'], 9)}"
        f"{ms(pair['p99'], 9)}{level['refused']:>8}{level['games']:>6}{ratio}"
        f"{ms(level['server_cpu_ms_per_move'], 10)}"
        f"{ms(level['generator_cpu_ms_per_move'], 10)}{mib:>11.1f}"
    )


HEADER = (
    f"{'server':<26}{'clients':>7}{'moves':>7}{'moves/s':>9}{'p50 ms':>8}"
    f"{'p95 ms':>8}{'p99 ms':>8}{'pair p50':>9}{'pair p95':>9}{'pair p99':>9}"
    f"{'refused':>8}{'games':>6}{'ratio':>7}{'srv ms/mv':>10}{'gen ms/mv':>10}"
    f"{'server MiB':>11}"
)


def measure(
    setup: Setup, args: argparse.Namespace, limits: dict[int, float]
) -> list[dict[str, Any]]:
    """Starts the setup's server on a new schema and prints one row per count."""
    database = default_database()
    # Every client plays as fast as it can from one address, far above the
    # rate limits: main() turns them off for every server through the
    # environment, which a baseline that predates --rate-limit ignores.
    server, address = start_server(database, *setup.options, cwd=setup.root)
    protos = (setup.root or ROOT) / "protos"
    levels: list[dict[str, Any]] = []
    try:
        command = generator_command(address, server.pid, protos, args)
        with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as generator:  # noqa: S603
            assert generator.stdout is not None  # noqa: S101 (stdout=PIPE)
            for line in generator.stdout:
                level = json.loads(line)
                if not levels:
                    print(f"# {setup.label}: SubmitMove view {level['view'] or 'none'}")
                levels.append({"server": setup.label, **level})
                mib = group_rss_kib(server.pid) / 1024
                print(row(setup, level, limits.get(level["clients"]), mib), flush=True)
                if level["errors"]:
                    print(f"#   {level['errors']} failed calls: {level['last_error']}")
        if generator.returncode != 0:
            raise RuntimeError(f"the generator failed ({generator.returncode})")
    finally:
        server.terminate()
        server.wait(timeout=30)
        run_sql(database, f"DROP SCHEMA IF EXISTS {schema_of(database)} CASCADE")
    return levels


def takes_auto_processes() -> bool:
    """Tells whether this checkout's ``tabletop serve`` takes ``--processes auto``."""
    shown = subprocess.run(
        [sys.executable, "-m", "infra.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    found = re.search(r"\n  --processes .*?(?=\n  -)", shown.stdout, re.DOTALL)
    return found is not None and "auto" in found.group()


def setups_of(args: argparse.Namespace, tree: Path | None) -> list[Setup]:
    """Returns the server setups to measure, the baseline's first."""
    setups = [Setup(f"{args.baseline}, 1 process", tree)] if tree else []
    workers = [w for w in args.workers.split(",") if w] or [""]
    for processes in args.processes.split(","):
        if processes == "auto" and not takes_auto_processes():
            print("# --processes auto: this server does not take it; left out")
            continue
        options = ("--processes", processes) if processes != "1" else ()
        for count in workers:
            label = f"this tree, {processes} proc."
            if count:
                label += f" {count} w."
            extra = ("--workers", count) if count else ()
            setups.append(Setup(label, None, (*options, *extra)))
    return setups


def main() -> None:
    """Runs pgbench, then every server setup at every client count."""
    # No rate limits: the servers inherit this (all read TABLETOP_RATE_LIMIT).
    os.environ["TABLETOP_RATE_LIMIT"] = "0"
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", default="1,8,64", help="client counts")
    parser.add_argument("--seconds", type=float, default=10.0, help="per level")
    parser.add_argument(
        "--processes",
        default="1,2",
        help="server process counts to measure; auto if the server takes it",
    )
    parser.add_argument(
        "--workers", default="", help="server --workers counts (default its own)"
    )
    parser.add_argument(
        "--baseline", metavar="REVISION", help="also measure the server at this commit"
    )
    parser.add_argument(
        "--view",
        default="auto",
        help="SubmitMoveRequest.view: auto (the leanest), none, a name or a number",
    )
    parser.add_argument(
        "--clients-per-channel",
        type=int,
        default=8,
        help="clients sharing one connection (a few phones behind one)",
    )
    parser.add_argument(
        "--no-pgbench", action="store_true", help="leave pgbench out (no ratio)"
    )
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    limits: dict[int, float] = {}
    if not args.no_pgbench:
        pgbench_database = default_database()
        try:
            limits = {n: pgbench_tps(pgbench_database, n, args.seconds) for n in counts}
        finally:
            schema = schema_of(pgbench_database)
            run_sql(pgbench_database, f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# moves end to end, {os.cpu_count()} cores, load average {load}")
    if limits:
        print("# pgbench one-row INSERT tps: ", end="")
        print(", ".join(f"{n} clients {tps:.0f}" for n, tps in limits.items()))
    print("# ms per move (mv): CPU time of the server's processes, of the generator")
    print(HEADER)
    results: list[dict[str, Any]] = []
    with checkout(args.baseline) as tree:
        for setup in setups_of(args, tree):
            results += measure(setup, args, limits)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# load average at the end {load}")
    if args.json:
        document = {"pgbench_tps": limits, "levels": results}
        args.json.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
