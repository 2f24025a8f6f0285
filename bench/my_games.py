"""ListMyGames for a player with 1,000 games: latency and server CPU per call.

Builds, through the application's use cases on PostgreSQL (a new schema), one
signed-in player with ``--games`` games (default 1,000) against three other
players: a third started with the player to act, a third started with another
to act, a third waiting for players. Runs the players' projection over that
log (and prints how fast it applied it), then starts a real ``tabletop serve``
on the same database and calls ``ListMyGames`` as the player: the first page
of 50 ``--calls`` times (default 300), then every page of the listing.

It prints the median and 90th percentile of the call's latency at the
client, the server's CPU time per call (all its threads, from ``/proc``), the
view's query alone in this process, and a walk through all pages. The target
of issue 21 is 20 ms for a player with 1,000 games. It drops the schema it
created. Run it with ``make bench-my-games``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import grpc
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1 import game_service_pb2_grpc

from bench.fanout import drop_schema
from bench.length import default_database, ok
from domain.common.seats import Seat
from infra.event_store import create_app
from infra.settings import Settings
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    SeatRequest,
    SentMove,
    SubmitMove,
)
from services.games import GamesApp
from services.players_view import players_view_for
from services.projection import PlayersProjection
from services.sessions import SessionKey, Sessions

PAGE = 50


def build(app: GamesApp, me: uuid.UUID, games: int) -> None:
    """Stores ``games`` games of ``me``: to act, another to act, waiting."""
    others = [uuid.uuid4() for _ in range(3)]
    for index in range(games):
        other = others[index % 3]
        opened = ok(
            app.create_game(CreateGame("qwirkle", None, 2, "", player_id=str(me)))
        )
        game_id = opened.record.game_id
        if index % 3 == 2:  # noqa: PLR2004 (a third wait for players)
            continue
        joined = ok(app.join_game(JoinGame(game_id, "", player_id=str(other))))
        record = ok(app.start_game(SeatRequest(game_id, Call(opened.token)))).record
        wanted = 0 if index % 3 == 0 else 1
        tokens = (opened.token, joined.token)
        while wanted not in record.rules.to_move(record.table.game):
            seat = record.rules.to_move(record.table.game)[0]
            move = next(iter(record.rules.legal_moves(record.table.game, seat)))
            viewer = app.viewer_for(record, tokens[seat])
            assert isinstance(viewer, Seat)  # noqa: S101 (the seat's own token)
            sent = SentMove("qwirkle", move)
            record = ok(
                app.submit_move(SubmitMove(game_id, sent, Call(tokens[seat])))
            ).record


def cpu_seconds(pid: int) -> float:
    """Returns a process's CPU time (user and system, all threads) in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve(database: str, key_file: Path) -> tuple[subprocess.Popen[str], str]:
    """Starts ``tabletop serve`` on the database; returns it and its address."""
    command = [sys.executable, "-m", "infra.cli", "serve", "--listen", "127.0.0.1:0"]
    command += ["--database", database, "--session-key-file", str(key_file)]
    command += ["--log-level", "WARNING"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)  # noqa: S603
    assert server.stdout is not None  # noqa: S101 (stdout=PIPE)
    line = server.stdout.readline()
    return server, line.rsplit(" ", 1)[1].strip()


def millis(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[int(len(ordered) * 0.9)]
    return f"median {statistics.median(ordered) * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--database", default=None)
    args = parser.parse_args()
    database = args.database or default_database()
    me = uuid.uuid4()
    try:
        app = create_app(Settings(database=database))
        started = time.perf_counter()
        build(app, me, args.games)
        spent = time.perf_counter() - started
        print(f"stored {args.games} games in {spent:.1f} s")
        view = players_view_for(app)
        projection = PlayersProjection(app, view)
        started = time.perf_counter()
        applied = projection.tick()
        spent = time.perf_counter() - started
        print(
            f"projection: {applied} notifications in {spent:.2f} s "
            f"({applied / spent:.0f}/s)"
        )
        queries = []
        for _ in range(args.calls):
            began = time.perf_counter()
            view.page(me, None, PAGE + 1)
            queries.append(time.perf_counter() - began)
        print(f"the view's query alone, a page of {PAGE}: {millis(queries)}")
        app.close()
        with tempfile.TemporaryDirectory() as directory:
            key_file = Path(directory) / "session.pem"
            key = SessionKey.generate(ephemeral=False)
            key_file.write_bytes(key.private_bytes())
            token = Sessions(key).issue(me, uuid.uuid4()).token
            server, address = serve(database, key_file)
            try:
                measure(address, server.pid, token, args)
            finally:
                server.terminate()
                server.wait(timeout=30)
    finally:
        drop_schema(database)


def measure(address: str, pid: int, token: str, args: argparse.Namespace) -> None:
    """Calls ListMyGames and prints what it cost."""
    metadata = (("authorization", f"Bearer {token}"),)
    with grpc.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        first = api.ListMyGamesRequest(page_size=PAGE)
        for _ in range(20):  # warm: connection, caches, names
            stub.ListMyGames(first, metadata=metadata, timeout=10)
        latencies = []
        cpu_before = cpu_seconds(pid)
        for _ in range(args.calls):
            began = time.perf_counter()
            reply = stub.ListMyGames(first, metadata=metadata, timeout=10)
            latencies.append(time.perf_counter() - began)
        cpu = (cpu_seconds(pid) - cpu_before) / args.calls
        mine = sum(game.my_turn for game in reply.games)
        print(
            f"ListMyGames, first page of {PAGE} ({mine} to act) of {args.games} "
            f"games: {millis(latencies)}; server CPU {cpu * 1000:.2f} ms per call"
        )
        pages, listed, page_token = 0, 0, ""
        began = time.perf_counter()
        while True:
            reply = stub.ListMyGames(
                api.ListMyGamesRequest(page_size=200, page_token=page_token),
                metadata=metadata,
                timeout=10,
            )
            pages += 1
            listed += len(reply.games)
            page_token = reply.next_page_token
            if not page_token:
                break
        spent = time.perf_counter() - began
        print(
            f"every page of 200: {pages} pages, {listed} games in {spent * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
