"""The honest clients of ``bench/noisy.py``: players whose moves are timed.

Each client, on a connection of its own, plays two-seat Split much as
``bench/moves.py`` plays: ``ListLegalMoves`` for one legal move of the seat to
move, then ``SubmitMove`` with that seat's token; it opens a new table when its
game ends. Split, because its games last about 330 such moves: tables are
opened rarely, and the limit of CreateGame per address (shared by every client
here) never paces the play. Only ``SubmitMove`` calls are timed.

Every call of a game carries a seat token (a rate-limit bucket per token);
CreateGame and JoinGame carry none, so they are charged to the client's
address, and a client waits the advised delay of a rate-limit refusal and
sends them again, as an app would.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import grpc
from tabletop.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

from bench.moves import percentile
from bench.noisy_calls import refusal_of

if TYPE_CHECKING:
    Stub: TypeAlias = game_service_pb2_grpc.GameServiceAsyncStub
R = TypeVar("R")
CALL_SECONDS = 30.0  # deadline of an honest call
PATIENCE = 50  # attempts of an honest call refused RESOURCE_EXHAUSTED
SPLIT = game_pb2.Game(game_type=game_pb2.GAME_TYPE_SPLIT)


@dataclass
class Honest:
    """What the honest clients did in one phase."""

    label: str
    seconds: float
    latencies: list[float] = field(default_factory=list)  # of SubmitMove, seconds
    moves_by_client: Counter[int] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)  # "CODE REASON"
    tables: int = 0
    server_cpu: float = 0.0  # CPU seconds the server used meanwhile

    def p50(self) -> float:
        """Returns the median SubmitMove latency in milliseconds."""
        return statistics.median(self.latencies) * 1000 if self.latencies else 0.0

    def row(self) -> str:
        """Returns the phase as a row of the printed table."""
        ordered = sorted(self.latencies)
        p99 = percentile(ordered, 0.99) if ordered else 0.0
        refused = ", ".join(f"{k} {n}" for k, n in sorted(self.refused.items()))
        return (
            f"{self.label:<24}{len(ordered):>7}{len(ordered) / self.seconds:>9.1f}"
            f"{self.p50():>9.2f}{p99:>9.2f}{self.tables:>7}"
            f"{self.server_cpu / self.seconds * 100:>8.0f}%  {refused or '-'}"
        )


def auth(token: str) -> tuple[tuple[str, str], ...]:
    """Returns call metadata that presents a seat token."""
    return (("authorization", f"Bearer {token}"),)


async def patiently(send: Callable[[], Awaitable[R]], tally: Honest) -> R:
    """Awaits ``send()``, again after each rate-limit refusal's advised delay."""
    for _ in range(PATIENCE - 1):
        try:
            return await send()
        except grpc.aio.AioRpcError as error:
            code, reason, delay = refusal_of(error)
            tally.refused[f"{code} {reason}"] += 1
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            await asyncio.sleep(max(delay, 0.001))
    return await send()


async def open_table(
    stub: Stub,
    tally: Honest,
    game: game_pb2.Game = SPLIT,
    heard: dict[str, int] | None = None,
) -> tuple[game_pb2.Game, list[str]]:
    """Opens and starts a two-seat table; returns it and its seat tokens.

    Each revision heard on the way is noted in ``heard``: a table left
    half open (its address kept at its limit by a neighbour) is still one
    this client opened.
    """
    heard = {} if heard is None else heard
    request = game_service_pb2.CreateGameRequest(game=game, display_name="Ana")
    created = await patiently(lambda: stub.CreateGame(request), tally)
    name = created.game.name
    heard[name] = created.game.revision
    join = game_service_pb2.JoinGameRequest(name=name, display_name="Bo")
    joined = await patiently(lambda: stub.JoinGame(join), tally)
    heard[name] = joined.game.revision
    tokens = [created.seat_token, joined.seat_token]
    start = game_service_pb2.StartGameRequest(name=name)
    started = await patiently(
        lambda: stub.StartGame(start, metadata=auth(tokens[0])), tally
    )
    tally.tables += 1
    return started.game, tokens


async def one_move(
    stub: Stub, game: game_pb2.Game, tokens: list[str], client: int, tally: Honest
) -> game_pb2.Game | None:
    """Submits one legal move of the seat to move; returns the game after it.

    The time of the move includes any wait for a rate-limit refusal's advised
    delay: that is how long the player waited.
    """
    listing = game_service_pb2.ListLegalMovesRequest(name=game.name, page_size=1)
    for token in _movers(game, tokens):
        ask = partial(stub.ListLegalMoves, listing, timeout=CALL_SECONDS)
        moves = await patiently(partial(ask, metadata=auth(token)), tally)
        if moves.moves:
            break
    else:
        return None
    request = game_service_pb2.SubmitMoveRequest(
        name=game.name, move=moves.moves[0], expected_revision=moves.revision
    )
    submit = partial(stub.SubmitMove, request, timeout=CALL_SECONDS)
    started = time.perf_counter()
    reply = await patiently(partial(submit, metadata=auth(token)), tally)
    tally.latencies.append(time.perf_counter() - started)
    tally.moves_by_client[client] += 1
    return reply.game


def _movers(game: game_pb2.Game, tokens: list[str]) -> list[str]:
    """Returns the token of the seat to move, or every token when none is named."""
    if not game.current_player:  # nobody, or several seats at once
        return tokens
    return [tokens[int(game.current_player.rsplit("/", 1)[1])]]


async def honest_client(
    address: str, client: int, until: float, tally: Honest, heard: dict[str, int]
) -> None:
    """Plays tables one after another until ``until``; notes each game's revision."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        while time.perf_counter() < until:
            try:
                game, tokens = await open_table(stub, tally, heard=heard)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                # A flooding neighbour keeps the shared address at its limit,
                # which CreateGame and JoinGame are charged to: try again.
                continue
            heard[game.name] = game.revision
            while time.perf_counter() < until:
                try:
                    after = await one_move(stub, game, tokens, client, tally)
                except grpc.aio.AioRpcError as error:
                    code, reason, _ = refusal_of(error)
                    tally.refused[f"{code} {reason}"] += 1
                    break
                if after is None:
                    break
                game = after
                heard[game.name] = game.revision
                if game.state != game_pb2.GAME_STATE_IN_PROGRESS:
                    break


async def play(
    address: str, clients: int, seconds: float, label: str, heard: dict[str, int]
) -> Honest:
    """Runs the honest clients for ``seconds``; returns what they did."""
    tally = Honest(label, seconds)
    until = time.perf_counter() + seconds
    await asyncio.gather(
        *(honest_client(address, i, until, tally, heard) for i in range(clients))
    )
    return tally
