"""The RPC layer's floor: server CPU per unary call that does nothing.

A bare gRPC server in a process of its own answers one unary method with empty
bytes (no messages decoded, no interceptor, no database), driven by the
Node.js generator of ``bench/node/floor.mjs`` at 64 concurrent calls, 8 per
connection, as ``make bench-moves`` drives the real server. Three servers:

* ``aio``: ``grpc.aio``, the handler answers on the event loop;
* ``aio + thread``: ``grpc.aio``, the handler hands its work to a thread pool
  and awaits it, as the real server does (its use cases are synchronous);
* ``sync``: grpcio's threaded server, the handler on its pool.

The figure is the server process's CPU time (user + system, from
``/proc/<pid>/stat``) over the timed window divided by the calls answered in
it: what any RPC costs this server before the first line of its own code. A
move is two calls (``ListLegalMoves``, ``SubmitMove``), so twice the figure is
the part of a move's CPU no change inside the handlers can remove.

Run it with ``make bench-rpc`` (``BENCH_ARGS="--seconds 10"``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc

HERE = Path(__file__).resolve().parent
METHOD = "Call"
SERVICE = "bench.Floor"
MODES = ("aio", "aio-thread", "sync")
LABELS = {"aio": "aio", "aio-thread": "aio + thread", "sync": "sync"}
_POOL_THREADS = 32  # as the real server's --workers default


def _answer() -> bytes:
    return b""


def _handlers(behaviour: Any) -> grpc.GenericRpcHandler:
    method: Any = grpc.unary_unary_rpc_method_handler(behaviour)
    return grpc.method_handlers_generic_handler(SERVICE, {METHOD: method})


def serve(mode: str) -> None:
    """Runs the bare server of ``mode``; prints its port, then serves until killed."""
    pool = ThreadPoolExecutor(_POOL_THREADS)
    if mode == "sync":
        server = grpc.server(pool)
        server.add_generic_rpc_handlers((_handlers(lambda _r, _c: b""),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        print(port, flush=True)
        server.wait_for_termination()
        return

    async def on_loop(_request: bytes, _context: object) -> bytes:
        return b""

    async def in_thread(_request: bytes, _context: object) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(pool, _answer)

    async def main() -> None:
        server = grpc.aio.server()
        handler = in_thread if mode == "aio-thread" else on_loop
        server.add_generic_rpc_handlers((_handlers(handler),))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(port, flush=True)
        await server.wait_for_termination()

    asyncio.run(main())


def cpu_seconds(pid: int) -> float:
    """Returns a process's user + system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def measure(mode: str, clients: int, seconds: float) -> tuple[float, float]:
    """Returns (calls/s, server CPU µs per call) of one bare server."""
    server = subprocess.Popen(  # noqa: S603 (our own command)
        [sys.executable, __file__, "--serve", mode], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None  # noqa: S101 (stdout=PIPE)
        address = f"127.0.0.1:{int(server.stdout.readline())}"
        generator = [
            "node",
            str(HERE / "node" / "floor.mjs"),
            address,
            str(clients),
            f"/{SERVICE}/{METHOD}",
        ]
        warm = [*generator, "2"]
        subprocess.run(warm, check=True, capture_output=True)  # noqa: S603 (ours)
        before = cpu_seconds(server.pid)
        started = time.monotonic()
        timed = [*generator, str(seconds)]
        done = subprocess.run(  # noqa: S603 (our own command)
            timed, check=True, capture_output=True, text=True
        )
        window = time.monotonic() - started
        used = cpu_seconds(server.pid) - before
        calls = int(done.stdout.strip())
        return calls / window, used / calls * 1e6
    finally:
        server.kill()
        server.wait()


def main() -> None:
    """Measures each bare server and prints a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--serve", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    print(
        f"# RPC floor: bare unary calls at {args.clients} clients, {os.cpu_count()} "
        f"cores, load average {os.getloadavg()[0]:.2f}"
    )
    print(f"{'server':14} {'calls/s':>9} {'µs CPU/call':>12} {'µs CPU/move':>12}")
    for mode in MODES:
        rate, per_call = measure(mode, args.clients, args.seconds)
        print(f"{LABELS[mode]:14} {rate:9.0f} {per_call:12.0f} {2 * per_call:12.0f}")


if __name__ == "__main__":
    main()
