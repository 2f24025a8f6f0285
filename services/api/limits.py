"""Per-caller rate limits: a token bucket per known seat token, operator or address.

A call that presents a bearer token known to be real is charged to that token
(by its hash, so no raw token is kept in memory longer than the call); any
other call to the client's address. A token is known once this process issued
it for a seat or saw it act for one (``GameStore.authenticated``), and the
operator's from the start: a made-up token, a new one on every call, shares
its address's bucket, so it cannot lift the limit. ``CreateGame``,
``JoinGame`` and ``ListGames`` (which store a game, store a seat, or load up
to a page of games) are also charged to stricter buckets of their own per
address, whatever the token.

Over a limit the call is refused with ``RESOURCE_EXHAUSTED`` (``RATE_LIMITED``,
``RetryInfo``, metadata naming the limit) before its handler runs, so nothing
is done or stored. The limiter is a server interceptor, so every method of our
services counts once, unary calls and ``StreamGame`` alike (a stream is one
call however many messages it sends), undecodable requests too; health checks
and reflection are not limited, so a load balancer's probes never starve a
busy address.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from services.api.auth import bearer_token, credential_key
from services.api.connections import client_of
from services.api.errors import ApiError, rate_limited
from services.api.interception import Guard, GuardingInterceptor, Handler
from services.api.observe import status_code
from services.sessions import Sessions
from services.tokens import token_hash

# Beyond this many callers the least recently seen one is forgotten: ~200 bytes
# each, so at most ~20 MB. A forgotten caller starts again with a full bucket,
# which only the least active callers can ever notice.
DEFAULT_MAX_KEYS = 100_000
# Beyond this many known tokens the least recently used one is forgotten: ~150
# bytes each (a 64-character hash in an ordered dict), so at most ~15 MB. A
# forgotten token is charged to its address again until the store sees it act
# for a seat once more, which its next call that reads its game does.
DEFAULT_MAX_KNOWN = 100_000
# The ``limit`` an ErrorInfo names for the limit every call counts against.
ALL_CALLS = "calls"
# What a call refused as malformed (INVALID_ARGUMENT: a shape over its limit,
# an undecodable message, a move that is no move) costs its caller, in calls.
# An honest client seldom sends one (a mistyped Hues and Cues cue is one), and
# the costliest requests a caller can send are refused ones: charged this
# much, a caller sending nothing else gets 4 a second by default, and the
# RetryInfo delay it is told grows to match (up to the burst's 2 s), so one
# client cannot spend the server's CPU for the others on requests it knows
# will be refused. A person's few slips in a row still fit in the burst.
MALFORMED_CHARGE = 50
# A JoinGame refused for its invite code (PERMISSION_DENIED, the only refusal
# of a join that is) costs this many joins of its address's JoinGame bucket:
# with the default 2 a second, burst 30, guessing goes on at one code every
# 5 s after the first three, while an honest player's typo or two cost
# nothing. Codes have 80 random bits: their length alone defeats guessing;
# the charge keeps a guesser from loading the store with refused joins.
WRONG_INVITE_CHARGE = 10


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

    def charge(self, key: str, calls: float) -> None:
        """Takes ``calls`` more from the key's bucket, after its call was admitted.

        The bucket may go below empty, down to one burst's worth of debt: its
        caller then waits until the debt is paid back at the rate.
        """
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is not None:
                bucket.tokens = max(-float(self.burst), bucket.tokens - calls)

    def __len__(self) -> int:
        with self._lock:
            return len(self._buckets)


class KnownTokens:
    """Hashes of the tokens known to be real, least recently used first, bounded.

    Thread-safe: the store learns tokens on worker threads, the limiter looks
    them up on the event loop. ``pinned`` hashes (the operator's) are known for
    good and never forgotten.
    """

    def __init__(
        self, pinned: Iterable[str] = (), *, max_size: int = DEFAULT_MAX_KNOWN
    ) -> None:
        if max_size < 1:
            msg = "known tokens need room for at least one"
            raise ValueError(msg)
        self._pinned = frozenset(pinned)
        self._max_size = max_size
        self._hashes: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def learn(self, hashed: str) -> None:
        """Remembers a token's hash as real (a ``GameStore.authenticated`` listener)."""
        with self._lock:
            self._hashes[hashed] = None
            self._hashes.move_to_end(hashed)
            if len(self._hashes) > self._max_size:
                self._hashes.popitem(last=False)

    def __contains__(self, hashed: object) -> bool:
        with self._lock:
            if hashed in self._pinned:
                return True
            if not isinstance(hashed, str) or hashed not in self._hashes:
                return False
            self._hashes.move_to_end(hashed)
            return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._hashes)


def known_tokens(operator_token: str | None) -> KnownTokens:
    """Returns the known tokens of a server: the operator's from the start."""
    return KnownTokens([token_hash(operator_token)] if operator_token else [])


def caller_key(
    metadata: Any, peer: str, known: KnownTokens, sessions: Sessions | None = None
) -> tuple[str, str]:
    """Returns the key a call is charged to, and what it names (for messages).

    A signed-in player's calls are charged to the player, whichever of the
    player's sessions makes them. A malformed ``authorization`` header, or a
    token not known to be real, is charged to the address: the call's handler
    refuses what it must anyway.
    """
    try:
        token = bearer_token(metadata)
    except ApiError:
        token = None
    if token is not None:
        counted = credential_key(token, sessions)
        if counted is not None and (
            counted[0].startswith("player:") or counted[0][len("token:") :] in known
        ):
            return counted
    return f"peer:{peer_address(peer)}", "client address"


def peer_address(peer: str) -> str:
    """Returns the client a gRPC peer is, as every per-address limit names it.

    Every connection of a client has its own port, so only the address names
    the client, and an IPv6 client its /64 (``connections.client_of``), which it
    could otherwise spread its calls over.
    """
    return client_of(peer)[0]


class RateLimitInterceptor(GuardingInterceptor):
    """Refuses calls over their caller's limit, or their method's, before the handler.

    ``per_address`` maps a method's name (``CreateGame``) to its own limiter,
    keyed by client address; the general limit is checked first, so a call
    refused by its method's limit still counts as a call.
    """

    def __init__(
        self,
        limiter: RateLimiter,
        known: KnownTokens | None = None,
        per_address: Mapping[str, RateLimiter] | None = None,
    ) -> None:
        self._limiter = limiter
        self.known = known if known is not None else KnownTokens()
        self._per_address = dict(per_address or {})
        # Verifies access tokens, so a player's calls are charged to the player.
        self.sessions: Sessions | None = None

    def guard_for(self, method: str, handler: Handler) -> Guard:
        """Returns the limits' check of a call of ``method``."""
        del handler
        name = method.rsplit("/", 1)[-1]
        own = self._per_address.get(name)

        @contextlib.asynccontextmanager
        async def admitted(context: Any, _request: Any) -> AsyncIterator[None]:
            key = await self._check(context, name, own)
            try:
                yield
            finally:
                if _refused_as_malformed(context):
                    self._limiter.charge(key, MALFORMED_CHARGE - 1)
                if own is not None and name == "JoinGame" and _denied(context):
                    address = f"peer:{peer_address(context.peer())}"
                    own.charge(address, WRONG_INVITE_CHARGE - 1)

        return admitted

    async def _check(self, context: Any, name: str, own: RateLimiter | None) -> str:
        """Returns the key the call was charged to, or aborts it over a limit."""
        key, names = caller_key(
            context.invocation_metadata(), context.peer(), self.known, self.sessions
        )
        wait = self._limiter.admit(key)
        if wait > 0:
            refusal = _refusal(self._limiter, ALL_CALLS, names, wait)
            await context.abort_with_status(refusal)
        if own is not None:
            wait = own.admit(f"peer:{peer_address(context.peer())}")
            if wait > 0:
                refusal = _refusal(own, name, "client address", wait)
                await context.abort_with_status(refusal)
        return key


def _denied(context: Any) -> bool:
    code = status_code(context.code()) if hasattr(context, "code") else None
    return code is grpc.StatusCode.PERMISSION_DENIED


def _refused_as_malformed(context: Any) -> bool:
    code = status_code(context.code()) if hasattr(context, "code") else None
    return code is grpc.StatusCode.INVALID_ARGUMENT


def _refusal(limiter: RateLimiter, limit: str, names: str, wait: float) -> grpc.Status:
    # Rounded up to the millisecond: a client that waits exactly this long is
    # admitted, never refused again by a rounding error.
    millis = math.ceil(wait * 1000)
    rate = f"{limiter.rate:g}"
    calls = "calls" if limit == ALL_CALLS else f"{limit} calls"
    message = (
        f"Too many {calls} from this {names}: at most {rate} a second "
        f"(bursts of {limiter.burst}). Retry in {millis} ms."
    )
    metadata = {
        "limit": limit,
        "limitedBy": names,
        "callsPerSecond": rate,
        "burst": str(limiter.burst),
        "retryDelayMillis": str(millis),
    }
    return rate_limited(message, millis / 1000, metadata)
