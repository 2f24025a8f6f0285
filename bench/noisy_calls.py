"""The noisy neighbour of ``bench/noisy.py``: the costliest refused calls it can send.

It runs in a process of its own, so that its work on this side (building and copying
messages as large as the server reads) never holds up the honest clients' event loop and
so their latencies measure the server. It sends four kinds of call, each kind by
``per_kind`` workers on a connection of its own:

* ``seat``: a Qwirkle ``SubmitMove`` of as many placements as fit under the server's
  receive limit (64 KiB: about 4,600) in the noisy client's own game, with the real
  token of the seat to move, so the server gets as far as it ever goes with a move
  before refusing it. Charged to that token's bucket.
* ``made-up``: the same move with a new made-up token on every call.
* ``anonymous``: the same move with no token at all.
* ``undecodable``: as many bytes that are no ``SubmitMoveRequest``: the same move whose
  last field claims more bytes than follow, so the parser reads it all first.

Every client connects from 127.0.0.1. The last three kinds carry no credential
the server knows, so they are charged to the address's bucket (the one the
honest clients' CreateGame and JoinGame use too); the honest clients' moves
carry their own seat tokens and have buckets of their own.

A paced client waits the ``RetryInfo`` delay of a ``RESOURCE_EXHAUSTED`` refusal
before its next call, as a client at its limit does; with ``flood`` it sends the
next call at once (each kind still has at most ``per_kind`` calls in flight).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from typing import Any

import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2
from tabletop.v1 import game_service_pb2 as api

from infra.server import MAX_REQUEST_BYTES

METHOD = "/tabletop.v1.GameService/SubmitMove"
KINDS = ("seat", "made-up", "anonymous", "undecodable")
RECEIVE_LIMIT = MAX_REQUEST_BYTES  # the largest request the server reads
CALL_SECONDS = 10.0  # deadline of one noisy call
MAX_CALLS = 1_000_000  # per worker, beside the time bound
_DETAILS = "grpc-status-details-bin"
_CELLS = 127  # coordinates 1..127 take one byte each


@dataclass(frozen=True)
class Target:
    """Where and how long the noisy client sends, and how hard."""

    address: str
    game: str  # the noisy client's own started Qwirkle game
    token: str  # the token of its seat to move there
    seconds: float
    per_kind: int = 4
    flood: bool = False
    size: int = RECEIVE_LIMIT  # bytes of a call, at most


@dataclass
class NoisyTally:
    """The calls sent by kind, and how they were answered."""

    sent: Counter[str] = field(default_factory=Counter)
    # (kind, status code name, ErrorInfo reason or "-") -> calls
    answers: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    megabytes: float = 0.0
    seconds: float = 0.0
    cpu: float = 0.0  # CPU seconds of the noisy client's process


def huge_move(game: str, size: int = RECEIVE_LIMIT) -> bytes:
    """Returns a serialized Qwirkle SubmitMove just under ``size`` bytes."""
    request = api.SubmitMoveRequest(name=game)
    placements = request.move.qwirkle.place_tiles.placements
    empty = request.ByteSize()
    one = placements.add()
    _fill(one, 0)
    each = request.ByteSize() - empty  # every placement has the same size
    # Room for the 8 bytes undecodable() appends and gRPC's 5-byte frame header.
    count = max(1, (size - 64 - empty) // each)
    for index in range(1, count):
        _fill(placements.add(), index)
    return request.SerializeToString()


def _fill(placement: Any, index: int) -> None:
    placement.tile.color = 1 + index % 6
    placement.tile.shape = 1 + index // 6 % 6
    placement.at.x = 1 + index % _CELLS
    placement.at.y = 1 + index // _CELLS % _CELLS


def undecodable(move: bytes) -> bytes:
    """Returns ``move`` followed by a ``name`` field longer than what is left."""
    return move + b"\x0a\xff\xff\x3f"  # field 1, length 1,048,575


def _metadata(kind: str, token: str) -> tuple[tuple[str, str], ...] | None:
    if kind == "seat":
        return (("authorization", f"Bearer {token}"),)
    if kind == "made-up":
        return (("authorization", f"Bearer {secrets.token_urlsafe(32)}"),)
    return None


def refusal_of(error: grpc.aio.AioRpcError) -> tuple[str, str, float]:
    """Returns a refusal's code name, ErrorInfo reason ("-": none) and retry delay."""
    reason, delay = "-", 0.0
    for key, value in error.trailing_metadata() or ():
        if key != _DETAILS or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        info = error_details_pb2.ErrorInfo()
        retry = error_details_pb2.RetryInfo()
        for detail in status.details:
            # Unpack is False, leaving the message alone, for another type.
            if detail.Unpack(info):
                reason = info.reason
            elif detail.Unpack(retry):
                delay = _seconds(retry.retry_delay)
    return error.code().name, reason, delay


def _seconds(duration: duration_pb2.Duration) -> float:
    return float(duration.seconds + duration.nanos / 1e9)


async def _worker(
    call: Any, kind: str, body: bytes, target: Target, until: float, tally: NoisyTally
) -> None:
    for _ in range(MAX_CALLS):
        if time.monotonic() >= until:
            return
        tally.sent[kind] += 1
        tally.megabytes += len(body) / 1e6
        try:
            await call(
                body, metadata=_metadata(kind, target.token), timeout=CALL_SECONDS
            )
        except grpc.aio.AioRpcError as error:
            code, reason, delay = refusal_of(error)
            tally.answers[(kind, code, reason)] += 1
            if delay > 0 and not target.flood:
                await asyncio.sleep(min(delay, max(0.0, until - time.monotonic())))
        else:
            tally.answers[(kind, "OK", "-")] += 1


async def _send(target: Target, bodies: dict[str, bytes], until: float) -> NoisyTally:
    tally = NoisyTally()
    channels = [grpc.aio.insecure_channel(target.address) for _ in KINDS]
    workers = []
    for kind, channel in zip(KINDS, channels, strict=True):
        # Raw bytes go out as they are: no serializer, and replies are not parsed.
        call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]
        call = channel.unary_unary(METHOD)
        workers += [
            _worker(call, kind, bodies[kind], target, until, tally)
            for _ in range(target.per_kind)
        ]
    started, cpu = time.monotonic(), time.process_time()
    await asyncio.gather(*workers)
    tally.seconds = time.monotonic() - started
    tally.cpu = time.process_time() - cpu
    for channel in channels:
        await channel.close()
    return tally


def run_noisy(target: Target, ready: Queue[str], done: Queue[NoisyTally]) -> None:
    """Builds the calls, says ready, sends for ``target.seconds``, puts the tally."""
    move = huge_move(target.game, target.size)
    bodies = dict.fromkeys(KINDS, move) | {"undecodable": undecodable(move)}
    ready.put("ready")
    until = time.monotonic() + target.seconds
    done.put(asyncio.run(_send(target, bodies, until)))
