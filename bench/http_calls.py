"""Server CPU per call on the gRPC port and on the HTTP port (Connect, gRPC-Web).

One server (``tabletop serve`` on the in-memory store, no rate limit, the HTTP
port on) answers ``GetGame`` for one started Qwirkle game, as a spectator sees
it, from 8 client threads at once: over gRPC (one channel), over Connect in
its binary and JSON forms, and over gRPC-Web (a keep-alive HTTP/1.1 connection
per thread). The rounds alternate between the protocols, so a machine that
slows down slows them alike; the figure is the server process's CPU time
(user + system, ``/proc/<pid>/stat``) over a round divided by its calls, and
the median of the rounds is printed with its ratio to gRPC's.

Run it with ``make bench-http`` (``BENCH_ARGS="--rounds 5 --calls 2000"``).
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import grpc
from google.protobuf import json_format
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

THREADS = 8
PATH = "/tabletop.v1.GameService/GetGame"
_LISTENING = re.compile(r"listening on ([\d.]+:\d+)")
_HTTP = re.compile(r"http on (http://[\d.:]+)/")


def cpu_seconds(pid: int) -> float:
    """Returns a process's user + system CPU time so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()  # noqa: PTH123, SIM115
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start() -> tuple[subprocess.Popen[str], str, str]:
    """Starts the server; returns it, its gRPC address and its HTTP URL."""
    command = [sys.executable, "-m", "infra.cli", "serve", "--database", "memory:"]
    command += ["--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0"]
    command += ["--rate-limit", "0", "--log-level", "WARNING"]
    process = subprocess.Popen(  # noqa: S603 (our own CLI)
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    lines = (
        process.stdout.readline() + process.stdout.readline() if process.stdout else ""
    )
    listening, http_line = _LISTENING.search(lines), _HTTP.search(lines)
    if listening is None or http_line is None:
        process.kill()
        msg = f"the server did not start: {lines!r}"
        raise RuntimeError(msg)
    return process, listening.group(1), http_line.group(1)


def started_game(stub: GameServiceStub) -> str:
    """Opens a Qwirkle table, seats two and starts it; returns its name."""
    created = stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Ana",
        ),
        timeout=10,
    )
    name = created.game.name
    stub.JoinGame(api.JoinGameRequest(name=name, display_name="Ben"), timeout=10)
    stub.StartGame(
        api.StartGameRequest(name=name),
        metadata=(("authorization", f"Bearer {created.seat_token}"),),
        timeout=10,
    )
    return name


def http_caller(url: str, content_type: str, body: bytes) -> Callable[[int], None]:
    """Returns a function making n calls on a keep-alive connection of its own."""
    parts = urlsplit(url)

    def calls(count: int) -> None:
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
        try:
            for _ in range(count):
                connection.request(
                    "POST", PATH, body=body, headers={"content-type": content_type}
                )
                response = connection.getresponse()
                answer = response.read()
                if response.status != 200:  # noqa: PLR2004
                    msg = f"{content_type}: HTTP {response.status} {answer[:200]!r}"
                    raise RuntimeError(msg)
        finally:
            connection.close()

    return calls


def grpc_caller(
    stub: GameServiceStub, request: api.GetGameRequest
) -> Callable[[int], None]:
    """Returns a function making n calls on the shared channel."""

    def calls(count: int) -> None:
        for _ in range(count):
            stub.GetGame(request, timeout=10)

    return calls


def main() -> None:
    """Prints CPU per call on each protocol."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--calls", type=int, default=2000, help="per protocol and round"
    )
    args = parser.parse_args()
    process, address, url = start()
    try:
        channel = grpc.insecure_channel(address)
        stub = GameServiceStub(channel)
        name = started_game(stub)
        request = api.GetGameRequest(name=name)
        binary = request.SerializeToString()
        framed = len(binary).to_bytes(5, "big") + binary
        protocols: dict[str, Callable[[int], None]] = {
            "gRPC": grpc_caller(stub, request),
            "Connect (binary)": http_caller(url, "application/proto", binary),
            "Connect (JSON)": http_caller(
                url, "application/json", json_format.MessageToJson(request).encode()
            ),
            "gRPC-Web": http_caller(url, "application/grpc-web+proto", framed),
        }
        per_call: dict[str, list[float]] = {label: [] for label in protocols}
        share = args.calls // THREADS
        with ThreadPoolExecutor(THREADS) as pool:
            for calls in protocols.values():  # warm up
                list(pool.map(calls, [20] * THREADS))
            for _ in range(args.rounds):
                for label, calls in protocols.items():
                    before = cpu_seconds(process.pid)
                    list(pool.map(calls, [share] * THREADS))
                    used = cpu_seconds(process.pid) - before
                    per_call[label].append(used / (share * THREADS) * 1e6)
        channel.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    base = statistics.median(per_call["gRPC"])
    print(f"GetGame (a started Qwirkle game, as a spectator), {THREADS} threads,")
    print(f"{args.rounds} rounds of {share * THREADS} calls per protocol:")
    for label, figures in per_call.items():
        median = statistics.median(figures)
        print(
            f"  {label:18} {median:7.0f} µs server CPU per call "
            f"(median; {median / base:.2f}x gRPC; rounds "
            f"{', '.join(f'{f:.0f}' for f in figures)})"
        )


if __name__ == "__main__":
    main()
