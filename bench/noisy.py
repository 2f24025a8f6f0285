"""Noisy neighbour: one client's refused calls must not slow eight honest players.

Starts a real ``tabletop serve`` on PostgreSQL with its real limits (every
``TABLETOP_*`` variable is dropped from its environment, so a ``make soak`` run
with ``TABLETOP_RATE_LIMIT=0`` does not turn them off here). ``--clients``
honest clients (default 8) play Split (``bench/noisy_players.py``); only
their ``SubmitMove`` calls are timed.

They play ``--seconds`` alone, then ``--seconds`` beside the noisy client of
``bench/noisy_calls.py`` (moves as large as the server reads, with its own seat token,
made-up tokens, no token, and as many undecodable bytes), paced by the server's
``RetryInfo`` delays, and with ``--flood`` once more while it ignores them (``--bytes``
makes its calls smaller: what a lower receive limit would leave). Every client connects
from 127.0.0.1: honest calls carry seat tokens (a bucket per token); the noisy client's
calls without a known token share the address's bucket with the honest clients'
CreateGame and JoinGame, so a refusal of those is counted.

It prints the honest clients' p50/p99 and moves/s in each phase, the ratio of
p50s, and the noisy calls sent and their answers, and checks the store: every
game holds exactly the events its clients heard of, gap-free. Run it with
``python -m bench.noisy`` after ``set -a; . .ci/.pg.env; set +a``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeAlias
from urllib.parse import unquote, urlsplit

import grpc
import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo
from tabletop.v1 import game_pb2, game_service_pb2_grpc

from bench.length import default_database
from bench.moves import connection_of, run_sql, schema_of
from bench.noisy_calls import KINDS, RECEIVE_LIMIT, NoisyTally, Target, run_noisy
from bench.noisy_players import Honest, one_move, open_table, play

Heard: TypeAlias = dict[str, int]  # game name -> the last revision a client heard
READY_SECONDS = 60.0  # for the noisy process to build its calls
# Answers that are no refusal: a success, or a failure the server did not mean.
NOT_REFUSALS = frozenset({"OK", "INTERNAL", "UNKNOWN"})
# Answers without ErrorInfo that are no fault: those the client makes up, and
# RESOURCE_EXHAUSTED from gRPC itself for a call over its receive limit.
SILENT = frozenset({"DEADLINE_EXCEEDED", "CANCELLED", "RESOURCE_EXHAUSTED"})


def start_server(database: str, log: IO[str]) -> tuple[subprocess.Popen[str], str]:
    """Starts ``tabletop serve`` with its default limits, logging to ``log``.

    Returns the process and its address.
    """
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    command = [sys.executable, "-m", "infra.cli", "serve", "--listen", "127.0.0.1:0"]
    command += ["--database", database, "--log-level", "WARNING"]
    server = subprocess.Popen(  # noqa: S603 (our own command)
        command, stdout=subprocess.PIPE, stderr=log, text=True, env=environ
    )
    assert server.stdout is not None  # noqa: S101 (stdout=PIPE)
    line = server.stdout.readline()
    if "listening on " not in line:
        server.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return server, line.split("listening on ", 1)[1].split()[0]


def cpu_seconds(pid: int) -> float:
    """Returns the CPU time (user and system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_play(
    pid: int, address: str, clients: int, seconds: float, label: str, heard: Heard
) -> Honest:
    """Runs the honest clients, noting the CPU time the server ``pid`` used."""
    before = cpu_seconds(pid)
    honest = asyncio.run(play(address, clients, seconds, label, heard))
    honest.server_cpu = cpu_seconds(pid) - before
    return honest


def beside_noisy(
    pid: int, clients: int, seconds: float, target: Target, heard: Heard
) -> tuple[Honest, NoisyTally]:
    """Runs the honest clients while the noisy client sends from its own process."""
    context = multiprocessing.get_context("spawn")
    ready: multiprocessing.Queue[str] = context.Queue()
    done: multiprocessing.Queue[NoisyTally] = context.Queue()
    noisy = context.Process(target=run_noisy, args=(target, ready, done))
    noisy.start()
    try:
        ready.get(timeout=READY_SECONDS)
        label = "beside noisy, flooding" if target.flood else "beside noisy, paced"
        honest = timed_play(pid, target.address, clients, seconds, label, heard)
        tally = done.get(timeout=seconds + 60)
    finally:
        noisy.join(timeout=30)
        if noisy.is_alive():
            noisy.kill()
    return honest, tally


@dataclass
class Figures:
    """The phases of one run, the noisy client's tallies and the store's check."""

    phases: list[Honest]
    noisy: list[NoisyTally]
    problems: list[str]
    log_lines: list[str]

    def faults(self, clients: int) -> list[str]:
        """Returns what went wrong, whatever the timings (nothing: [])."""
        faults = list(self.problems)
        for tally in self.noisy:
            faults += [
                f"{calls} {kind} calls answered {code} {reason}"
                for (kind, code, reason), calls in sorted(tally.answers.items())
                if code in NOT_REFUSALS or (reason == "-" and code not in SILENT)
            ]
            faults += [f"no {kind} call sent" for kind in KINDS if not tally.sent[kind]]
        for phase in self.phases:
            if len(phase.moves_by_client) < clients:
                faults.append(
                    f"{phase.label}: {clients - len(phase.moves_by_client)} "
                    "honest clients made no move"
                )
        return faults

    def ratios(self) -> list[float]:
        """Returns each noisy phase's honest p50 over the p50 of the phase alone."""
        alone = self.phases[0].p50()
        return [p.p50() / alone if alone else 0.0 for p in self.phases[1:]]

    def lines(self) -> list[str]:
        """Returns the printed table."""
        head = f"{'honest clients':<24}{'moves':>7}{'moves/s':>9}{'p50 ms':>9}"
        out = [
            f"{head}{'p99 ms':>9}{'tables':>7}  refused",
            *(phase.row() for phase in self.phases),
        ]
        for phase, ratio in zip(self.phases[1:], self.ratios(), strict=True):
            out.append(f"p50 {phase.label} / alone: {ratio:.2f} (target <= 1.5)")
        for phase, tally in zip(self.phases[1:], self.noisy, strict=True):
            rate = sum(tally.sent.values()) / max(tally.seconds, 1e-9)
            out.append(
                f"noisy client, {phase.label}: {sum(tally.sent.values())} calls in "
                f"{tally.seconds:.1f} s ({rate:.0f}/s, {tally.megabytes:.0f} MB), "
                f"its own CPU {tally.cpu / max(tally.seconds, 1e-9) * 100:.0f}%"
            )
            for (kind, code, reason), calls in sorted(tally.answers.items()):
                out.append(f"  {kind:<12}{code:<20}{reason:<28}{calls:>8}")
        tracebacks = sum(line.startswith("Traceback") for line in self.log_lines)
        out.append(f"server log: {len(self.log_lines)} lines, {tracebacks} tracebacks")
        out += [f"PROBLEM {problem}" for problem in self.problems[:20]]
        return out


def stored(database: str) -> dict[str, tuple[int, int]]:
    """Returns each stored game's event count and last revision, by game name."""
    query = sql.SQL(
        "SELECT originator_id::text, count(*), max(originator_version) FROM {}.{} "
        "GROUP BY originator_id"
    ).format(sql.Identifier(schema_of(database)), sql.Identifier("tabletop_events"))
    password = unquote(urlsplit(database).password or "")
    conninfo = make_conninfo("", **connection_of(database), password=password)
    with psycopg.connect(conninfo) as db:
        rows = db.execute(query).fetchall()
    return {f"games/{game}": (int(count), int(last)) for game, count, last in rows}


def check_store(database: str, heard: Heard) -> list[str]:
    """Returns how the store differs from what the clients heard (none: [])."""
    problems = []
    found = stored(database)
    for name, revision in sorted(heard.items()):
        count, last = found.pop(name, (0, 0))
        if count != last or last != revision:
            problems.append(
                f"{name}: {count} events stored up to revision {last}, "
                f"its clients heard of revision {revision}"
            )
    problems += [f"{name}: stored, opened by no client" for name in sorted(found)]
    return problems


async def noisy_table(address: str) -> tuple[str, str, int]:
    """Opens the noisy client's own table; returns it, its mover's token, revision.

    Each seat makes one move first, so both tokens have acted: the server knows
    them, and charges each to a bucket of its own, not to the address's.
    """
    tally = Honest("noisy table", 1.0)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        qwirkle = game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE)
        game, tokens = await open_table(stub, tally, qwirkle)
        for _ in tokens:
            after = await one_move(stub, game, tokens, 0, tally)
            game = after or game
    token = tokens[int(game.current_player.rsplit("/", 1)[1])]
    return game.name, token, game.revision


def noisy_run(
    database: str,
    *,
    clients: int = 8,
    seconds: float = 20.0,
    per_kind: int = 4,
    flood: bool = False,
    size: int = RECEIVE_LIMIT,
) -> Figures:
    """Plays honest clients alone, then beside the noisy client; checks the store."""
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed below)
    server, address = start_server(database, log)
    heard: Heard = {}
    try:
        asyncio.run(play(address, 2, 1.0, "warm-up", heard))
        game, token, revision = asyncio.run(noisy_table(address))
        heard[game] = revision
        pid = server.pid
        phases = [timed_play(pid, address, clients, seconds, "alone", heard)]
        tallies = []
        for flooding in (False, True) if flood else (False,):
            # The noisy client sends a little longer than the honest ones play.
            target = Target(address, game, token, seconds + 1, per_kind, flooding, size)
            honest, tally = beside_noisy(pid, clients, seconds, target, heard)
            phases.append(honest)
            tallies.append(tally)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.seek(0)
        log_lines = log.read().splitlines()
        log.close()
    return Figures(phases, tallies, check_store(database, heard), log_lines)


def main() -> int:
    """Runs the scenario on a new schema; returns 1 if the store disagrees."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0, help="per phase")
    parser.add_argument("--clients", type=int, default=8, help="honest clients")
    parser.add_argument(
        "--per-kind",
        type=int,
        default=4,
        help=f"noisy calls in flight per kind {KINDS}",
    )
    parser.add_argument(
        "--bytes", type=int, default=RECEIVE_LIMIT, help="size of a noisy call"
    )
    parser.add_argument(
        "--flood", action="store_true", help="also a phase ignoring RetryInfo"
    )
    args = parser.parse_args()
    database = default_database()
    print(
        f"# noisy neighbour: {args.clients} honest clients, {args.seconds:g} s a "
        f"phase, noisy calls of {args.bytes} bytes, {os.cpu_count()} cores, all on "
        "127.0.0.1, server limits as default",
        flush=True,
    )
    try:
        figures = noisy_run(
            database,
            clients=args.clients,
            seconds=args.seconds,
            per_kind=args.per_kind,
            size=args.bytes,
            flood=args.flood,
        )
    finally:
        run_sql(database, f"DROP SCHEMA IF EXISTS {schema_of(database)} CASCADE")
    print("\n".join(figures.lines()), flush=True)
    return 1 if figures.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
