"""Per-caller rate limits: a token bucket per seat token, operator or peer.

A call that presents a bearer token is charged to that token (by its hash, so
no raw token is kept in memory longer than the call); a call without one to
the client's address. Over the limit the call is refused with
``RESOURCE_EXHAUSTED`` (``RATE_LIMITED``) before its handler runs, so nothing is
done or stored. The limiter is a server interceptor, so every method of our
services counts once, unary calls and ``StreamGame`` alike (a stream is one
call however many messages it sends); health checks and reflection are not
limited, so a load balancer's probes never starve a busy address.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from services.api.auth import bearer_token
from services.api.errors import ApiError, rate_limited
from services.api.interception import Guard, GuardingInterceptor, Handler
from services.tokens import token_hash

# Beyond this many callers the least recently seen one is forgotten: ~200 bytes
# each, so at most ~20 MB. A forgotten caller starts again with a full bucket,
# which only the least active callers can ever notice.
DEFAULT_MAX_KEYS = 100_000


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets by key: ``rate`` calls a second, up to ``burst`` at once.

    Thread-safe: calls are admitted on the event loop and may be on worker
    threads too, and one lock around a few arithmetic steps costs less than
    getting the shared state wrong.
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = DEFAULT_MAX_KEYS,
    ) -> None:
        if rate <= 0 or burst < 1 or max_keys < 1:
            msg = "a rate limiter needs a positive rate, burst and key cap"
            raise ValueError(msg)
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._max_keys = max_keys
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def admit(self, key: str) -> float:
        """Takes one call from the key's bucket: returns 0, or the seconds to wait.

        A refused call takes nothing, so a client that waits the advised delay
        is admitted.
        """
        with self._lock:
            now = self._clock()
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = _Bucket(float(self.burst), now)
                self._buckets[key] = bucket
                if len(self._buckets) > self._max_keys:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
                elapsed = max(0.0, now - bucket.updated)
                bucket.tokens = min(self.burst, bucket.tokens + elapsed * self.rate)
                bucket.updated = now
            # The tolerance admits a caller that waited exactly the advised delay
            # when floating point leaves its bucket a hair short of one call.
            if bucket.tokens >= 1 - 1e-9:
                bucket.tokens = max(0.0, bucket.tokens - 1)
                return 0.0
            return (1 - bucket.tokens) / self.rate

    def __len__(self) -> int:
        with self._lock:
            return len(self._buckets)


def caller_key(metadata: Any, peer: str) -> tuple[str, str]:
    """Returns the key a call is charged to, and what it names (for messages).

    A malformed ``authorization`` header is charged to the address: the call's
    handler refuses it anyway.
    """
    try:
        token = bearer_token(metadata)
    except ApiError:
        token = None
    if token is not None:
        return f"token:{token_hash(token)}", "credential"
    return f"peer:{peer_address(peer)}", "client address"


def peer_address(peer: str) -> str:
    """Returns a gRPC peer (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:80``) without its port.

    Every connection of a client has its own port, so only the address names
    the client.
    """
    if peer.startswith(("ipv4:", "ipv6:")):
        return peer.rsplit(":", 1)[0]
    return peer


class RateLimitInterceptor(GuardingInterceptor):
    """Refuses calls over their caller's limit before their handler runs."""

    def __init__(self, limiter: RateLimiter) -> None:
        self._limiter = limiter

    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the limit's check, the same for every method."""
        del method, handler
        return self._admitted

    @contextlib.asynccontextmanager
    async def _admitted(self, context: Any, _request: Any) -> AsyncIterator[None]:
        await self._check(context)
        yield

    async def _check(self, context: Any) -> None:
        key, names = caller_key(context.invocation_metadata(), context.peer())
        wait = self._limiter.admit(key)
        if wait > 0:
            await context.abort_with_status(_refusal(self._limiter, names, wait))


def _refusal(limiter: RateLimiter, names: str, wait: float) -> grpc.Status:
    # Rounded up to the millisecond: a client that waits exactly this long is
    # admitted, never refused again by a rounding error.
    millis = math.ceil(wait * 1000)
    rate = f"{limiter.rate:g}"
    message = (
        f"Too many calls from this {names}: at most {rate} a second "
        f"(bursts of {limiter.burst}). Retry in {millis} ms."
    )
    metadata = {
        "limitedBy": names,
        "callsPerSecond": rate,
        "burst": str(limiter.burst),
        "retryDelayMillis": str(millis),
    }
    return rate_limited(message, millis / 1000, metadata)
