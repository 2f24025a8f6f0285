"""Access: rate limits per caller (on an injected clock), credential comparison."""

from __future__ import annotations

import hmac
import threading
from typing import Any

import pytest
from google.rpc import code_pb2, error_details_pb2, status_pb2

from domain.common.seats import Seat
from domain.games.qwirkle import QwirkleConfig
from services.api import audit_servicer
from services.api.errors import ApiError, rate_limited
from services.api.limits import (
    DEFAULT_MAX_KNOWN,
    KnownTokens,
    RateLimiter,
    caller_key,
    known_tokens,
    peer_address,
)
from services.calls import CreateGame, JoinGame
from services.games import GamesApp, Seated
from services.signing import SigningKey
from services.tokens import token_hash


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_admitted_then_the_next_call_waits_for_one_refill() -> None:
    clock = Clock()
    limiter = RateLimiter(2, 3, clock=clock)
    assert [limiter.admit("a") for _ in range(3)] == [0, 0, 0]
    assert limiter.admit("a") == pytest.approx(0.5)


def test_a_refused_call_takes_nothing_so_waiting_the_delay_is_enough() -> None:
    clock = Clock()
    limiter = RateLimiter(4, 1, clock=clock)
    assert limiter.admit("a") == 0
    wait = limiter.admit("a")
    assert limiter.admit("a") == pytest.approx(wait)
    clock.now += wait
    assert limiter.admit("a") == 0


def test_the_bucket_refills_at_the_rate_but_never_above_the_burst() -> None:
    clock = Clock()
    limiter = RateLimiter(10, 5, clock=clock)
    for _ in range(5):
        limiter.admit("a")
    clock.now += 0.2  # two calls' worth
    assert [limiter.admit("a") for _ in range(2)] == [0, 0]
    assert limiter.admit("a") > 0
    clock.now += 3600
    assert [limiter.admit("a") for _ in range(5)] == [0] * 5
    assert limiter.admit("a") > 0


def test_one_key_over_its_limit_does_not_affect_another() -> None:
    limiter = RateLimiter(1, 1, clock=Clock())
    assert limiter.admit("a") == 0
    assert limiter.admit("a") > 0
    assert limiter.admit("b") == 0


def test_a_clock_that_steps_back_refills_nothing() -> None:
    clock = Clock()
    limiter = RateLimiter(1, 1, clock=clock)
    limiter.admit("a")
    clock.now -= 10
    assert limiter.admit("a") == pytest.approx(1)


def test_memory_is_bounded_by_forgetting_the_least_recently_seen_key() -> None:
    limiter = RateLimiter(1, 1, clock=Clock(), max_keys=2)
    limiter.admit("a")
    limiter.admit("b")
    limiter.admit("a")  # a is now more recent than b
    limiter.admit("c")  # forgets b
    assert len(limiter) == 2
    assert limiter.admit("a") > 0  # still remembered, still empty
    assert limiter.admit("b") == 0  # forgotten: a full bucket again


def test_threads_together_get_exactly_the_burst() -> None:
    limiter = RateLimiter(1e-6, 100, clock=Clock())
    admitted: list[bool] = []
    lock = threading.Lock()

    def call() -> None:
        for _ in range(50):
            ok = limiter.admit("shared") == 0
            with lock:
                admitted.append(ok)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert admitted.count(True) == 100


@pytest.mark.parametrize(("rate", "burst"), [(0, 1), (1, 0), (-1, 5)])
def test_a_limiter_needs_a_positive_rate_and_burst(rate: float, burst: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        RateLimiter(rate, burst)


def test_a_known_token_is_keyed_by_its_hash_never_the_token() -> None:
    known = KnownTokens()
    known.learn(token_hash("s3cret"))
    metadata = (("authorization", "Bearer s3cret"),)
    key, names = caller_key(metadata, "ipv4:1.2.3.4:5", known)
    assert key == f"token:{token_hash('s3cret')}"
    assert "s3cret" not in key
    assert names == "credential"


def test_a_token_not_known_to_be_real_is_keyed_by_its_address() -> None:
    metadata = (("authorization", "Bearer made-up"),)
    assert caller_key(metadata, "ipv4:10.0.0.7:51234", KnownTokens()) == (
        "peer:10.0.0.7",
        "client address",
    )


@pytest.mark.parametrize(
    "metadata", [(), None, (("authorization", "Basic xyz"),), (("x-other", "1"),)]
)
def test_a_call_without_a_usable_token_is_keyed_by_its_address(
    metadata: tuple[tuple[str, str], ...] | None,
) -> None:
    assert caller_key(metadata, "ipv4:10.0.0.7:51234", KnownTokens()) == (
        "peer:10.0.0.7",
        "client address",
    )


def test_known_tokens_forget_the_least_recently_used_beyond_their_bound() -> None:
    known = KnownTokens(max_size=2)
    known.learn("a")
    known.learn("b")
    assert "a" in known  # a is now more recent than b
    known.learn("c")  # forgets b
    assert len(known) == 2
    assert ("a" in known, "b" in known, "c" in known) == (True, False, True)


def test_the_operators_token_is_known_from_the_start_and_never_forgotten() -> None:
    known = known_tokens("operator-s3cret")
    assert token_hash("operator-s3cret") in known
    for n in range(DEFAULT_MAX_KNOWN + 1):
        known.learn(str(n))
    assert len(known) == DEFAULT_MAX_KNOWN
    assert token_hash("operator-s3cret") in known
    assert "operator-s3cret" not in known
    assert known_tokens(None).__contains__(token_hash("")) is False


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:50000", "127.0.0.1"),
        ("ipv6:[2001:db8::7]:50000", "2001:db8::/64"),
        ("ipv6:[2001:db8::8]:50001", "2001:db8::/64"),
        ("ipv6:[::ffff:10.0.0.1]:50000", "10.0.0.1"),
        ("unix:/tmp/socket", "unix:/tmp/socket"),
    ],
)
def test_the_peer_address_is_the_client_every_per_address_limit_names(
    peer: str, address: str
) -> None:
    assert peer_address(peer) == address


def test_the_refusal_carries_rate_limited_and_when_to_retry() -> None:
    status = rate_limited("Slow down; retry in 250 ms.", 1.25, {"a": "b"})
    assert status.code.value[0] == code_pb2.RESOURCE_EXHAUSTED
    details = dict(status.trailing_metadata)["grpc-status-details-bin"]
    assert isinstance(details, bytes)
    decoded = status_pb2.Status.FromString(details)
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    assert decoded.details[0].Unpack(info)
    assert decoded.details[1].Unpack(retry)
    assert (info.reason, info.domain, dict(info.metadata)) == (
        "RATE_LIMITED",
        "tabletop.games",
        {"a": "b"},
    )
    assert (retry.retry_delay.seconds, retry.retry_delay.nanos) == (1, 250_000_000)


# --- credentials: compared in constant time (stored only hashed: test_games_app) ---


_COMPARE = hmac.compare_digest


class Comparisons:
    """Records every ``hmac.compare_digest`` call and answers as it would."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any]] = []

    def __call__(self, a: Any, b: Any) -> bool:
        self.calls.append((a, b))
        return _COMPARE(a, b)


def test_a_seat_token_is_compared_with_every_seat_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    created = app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada"))
    assert isinstance(created, Seated)
    game_id = created.record.game_id
    tokens = [created.token]
    for name in ("Bo", "Cy"):
        joined = app.join_game(JoinGame(game_id, name))
        assert isinstance(joined, Seated)
        tokens.append(joined.token)
    record = app.get_game(game_id)
    assert record is not None
    comparisons = Comparisons()
    monkeypatch.setattr(hmac, "compare_digest", comparisons)

    assert app.viewer_for(record, tokens[0]) == Seat(0)
    # No early exit on the match: timing does not tell which seat matched.
    assert [b for _, b in comparisons.calls] == [token_hash(tokens[0])] * 3
    assert {a for a, _ in comparisons.calls} == {token_hash(t) for t in tokens}
    comparisons.calls.clear()
    assert app.viewer_for(record, "not-a-seat") is None
    assert len(comparisons.calls) == 3
    app.close()


def test_the_operator_token_is_compared_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    comparisons = Comparisons()
    monkeypatch.setattr(hmac, "compare_digest", comparisons)
    servicer = audit_servicer.GameAuditServicer(
        GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}),
        "operator-s3cret",
        SigningKey.generate(),
    )
    servicer._check_operator((("authorization", "Bearer operator-s3cret"),))
    with pytest.raises(ApiError):
        servicer._check_operator((("authorization", "Bearer guess"),))
    assert comparisons.calls == [
        (b"operator-s3cret", b"operator-s3cret"),
        (b"guess", b"operator-s3cret"),
    ]
    servicer.app.close()
