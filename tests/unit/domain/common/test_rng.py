"""Verifiable randomness: DESIGN §4 test vectors, rejection sampling, shuffles."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.common.rng import SEED_BYTES, RandomStream, Rng, commitment

SEED = bytes(range(32))
TWO_64 = 1 << 64


def reference_integers(seed: bytes, label: str) -> Iterator[int]:
    """The stream as DESIGN §4 words it, written independently of the code."""
    k = 0
    while True:
        message = label.encode() + b"\x00" + k.to_bytes(8, "big")
        block = hmac.digest(seed, message, "sha256")
        for offset in (0, 8, 16, 24):
            yield int.from_bytes(block[offset : offset + 8], "big")
        k += 1


def feed(
    stream: RandomStream, monkeypatch: pytest.MonkeyPatch, values: list[int]
) -> None:
    """Makes ``stream`` read ``values`` and then fail loudly if it asks for more."""
    remaining = iter(values)

    def next_u64() -> int:
        try:
            return next(remaining)
        except StopIteration:
            msg = "the stream read more integers than the test fed it"
            raise AssertionError(msg) from None

    monkeypatch.setattr(stream, "next_u64", next_u64)


# --- DESIGN §4 test vectors ---


def test_the_commitment_of_seed_bytes_0_to_31_matches_the_design_vector() -> None:
    assert (
        commitment(SEED)
        == "042b5b8aabaa080fff95303df9ba65053d9f113339cdc3e312ffcaf41e750b33"
    )


def test_the_commitment_is_sha256_of_the_prefix_and_the_seed() -> None:
    expected = hashlib.sha256(b"tabletop/seed-commitment/v1" + SEED).hexdigest()
    assert commitment(SEED) == expected


def test_the_first_three_integers_of_label_test_match_the_design_vector() -> None:
    stream = Rng(SEED).stream("test")
    assert [stream.next_u64() for _ in range(3)] == [
        3754789186406515825,
        11717115529922826758,
        14437203172336213473,
    ]


def test_a_shuffle_of_0_to_9_with_label_test_matches_the_design_vector() -> None:
    assert Rng(SEED).shuffle("test", list(range(10))) == [3, 9, 6, 2, 0, 4, 7, 1, 8, 5]


def test_the_stream_reads_four_integers_per_block_across_block_boundaries() -> None:
    stream = Rng(SEED).stream("test")
    expected = reference_integers(SEED, "test")
    assert [stream.next_u64() for _ in range(13)] == [next(expected) for _ in range(13)]


def test_a_label_is_encoded_as_utf8() -> None:
    stream = Rng(SEED).stream("qwirkle/ronde-1/mélange")
    expected = reference_integers(SEED, "qwirkle/ronde-1/mélange")
    assert [stream.next_u64() for _ in range(5)] == [next(expected) for _ in range(5)]


# --- uniform ---


def test_uniform_returns_the_integer_modulo_n_when_it_is_below_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = Rng(SEED).stream("test")
    feed(stream, monkeypatch, [TWO_64 - 2])  # 2^64 mod 3 == 1, so the limit is 2^64 - 1
    assert stream.uniform(3) == (TWO_64 - 2) % 3


def test_uniform_rejects_integers_at_or_above_the_limit_and_takes_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = Rng(SEED).stream("test")
    # n = 3: 2^64 mod 3 == 1, so the limit is 2^64 - 1 and only 2^64 - 1 is rejected.
    feed(stream, monkeypatch, [TWO_64 - 1, TWO_64 - 1, 7])
    assert stream.uniform(3) == 7 % 3


def test_uniform_rejects_exactly_the_integers_from_the_limit_upwards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    n = 10
    limit = TWO_64 - (TWO_64 % n)
    stream = Rng(SEED).stream("test")
    feed(stream, monkeypatch, [limit, limit + 1, TWO_64 - 1, limit - 1])
    assert stream.uniform(n) == (limit - 1) % n


def test_uniform_skips_rejected_integers_of_the_real_stream() -> None:
    # For n = 2^63 + 1 the limit is n itself, so about half the integers are
    # rejected: the 2nd and 3rd integers of "test" are, the 1st and 4th are not.
    n = (1 << 63) + 1
    stream = Rng(SEED).stream("test")
    first, second = stream.uniform(n), stream.uniform(n)
    assert first == 3754789186406515825
    assert second == 6640192369947707376  # the 4th integer of the stream
    assert stream.next_u64() == 5755046859694852684  # the 5th: nothing else was read


def test_uniform_results_stay_in_range_for_a_range_where_rejection_matters() -> None:
    n = (1 << 63) + 1
    stream = Rng(SEED).stream("range")
    results = [stream.uniform(n) for _ in range(200)]
    assert all(0 <= r < n for r in results)


def test_uniform_agrees_with_the_reference_rejection_sampling() -> None:
    for n in (1, 2, 3, 7, 108, (1 << 63) + 1, (1 << 64) - 1, 1 << 64):
        stream = Rng(SEED).stream(f"uniform-{n}")
        reference = reference_integers(SEED, f"uniform-{n}")
        limit = TWO_64 - (TWO_64 % n)
        for _ in range(20):
            u = next(reference)
            while u >= limit:
                u = next(reference)
            assert stream.uniform(n) == u % n


def test_uniform_of_one_is_always_zero_and_reads_one_integer_each_time() -> None:
    stream = Rng(SEED).stream("test")
    assert [stream.uniform(1) for _ in range(3)] == [0, 0, 0]
    assert stream.next_u64() == 6640192369947707376  # the 4th integer


@pytest.mark.parametrize("n", [0, -1, -108])
def test_uniform_refuses_an_empty_range(n: int) -> None:
    with pytest.raises(ValueError, match="1 <= n"):
        Rng(SEED).stream("test").uniform(n)


def test_uniform_refuses_a_range_wider_than_64_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No 64-bit integer is below the limit 2^64 - (2^64 mod n) = 0 when n > 2^64:
    # the loop would never end, so the call must fail instead.
    stream = Rng(SEED).stream("test")
    feed(stream, monkeypatch, [0, 1, 2])
    with pytest.raises(ValueError, match="uniform"):
        stream.uniform(TWO_64 + 1)


# --- Labels ---


def test_different_labels_give_different_streams() -> None:
    rng = Rng(SEED)
    firsts = {
        label: rng.stream(label).next_u64()
        for label in ("test", "test2", "Test", "qwirkle/round-1/shuffle", "")
    }
    assert len(set(firsts.values())) == len(firsts)


def test_reading_one_label_does_not_advance_another() -> None:
    rng = Rng(SEED)
    a, b = rng.stream("a"), rng.stream("b")
    for _ in range(9):
        a.next_u64()
    assert b.next_u64() == next(reference_integers(SEED, "b"))


def test_each_stream_of_a_label_starts_at_its_first_integer() -> None:
    rng = Rng(SEED)
    first = rng.stream("test")
    first.next_u64()
    assert rng.stream("test").next_u64() == 3754789186406515825


def test_different_seeds_give_different_streams_for_one_label() -> None:
    other = bytes(range(1, 33))
    assert Rng(SEED).stream("test").next_u64() != Rng(other).stream("test").next_u64()


# --- shuffle ---


def test_shuffle_leaves_its_input_unchanged() -> None:
    items = list(range(10))
    shuffled = Rng(SEED).shuffle("test", items)
    assert items == list(range(10))
    assert shuffled is not items


def test_shuffle_accepts_a_tuple_and_returns_a_list() -> None:
    assert Rng(SEED).shuffle("test", tuple(range(10))) == [3, 9, 6, 2, 0, 4, 7, 1, 8, 5]


def test_rng_shuffle_is_the_shuffle_of_the_labels_stream() -> None:
    items = [f"card-{i}" for i in range(20)]
    rng = Rng(SEED)
    assert rng.shuffle("deal", items) == rng.stream("deal").shuffle(items)


def test_shuffle_draws_uniform_i_plus_1_from_the_top_index_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = Rng(SEED).stream("test")
    # i = 3, j = 0: [d, b, c, a]; i = 2, j = 2: no swap; i = 1, j = 0: [b, d, c, a]
    feed(stream, monkeypatch, [0, 2, 0])
    assert stream.shuffle(["a", "b", "c", "d"]) == ["b", "d", "c", "a"]


@pytest.mark.parametrize("items", [[], ["only"]])
def test_shuffle_of_fewer_than_two_items_draws_nothing(
    items: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = Rng(SEED).stream("test")
    feed(stream, monkeypatch, [])
    assert stream.shuffle(items) == items


seeds = st.binary(min_size=SEED_BYTES, max_size=SEED_BYTES)


@given(
    seed=seeds, label=st.text(max_size=20), items=st.lists(st.integers(), max_size=60)
)
def test_shuffle_is_a_permutation_of_its_input(
    seed: bytes, label: str, items: list[int]
) -> None:
    shuffled = Rng(seed).shuffle(label, items)
    assert Counter(shuffled) == Counter(items)
    assert len(shuffled) == len(items)


@given(
    seed=seeds, label=st.text(max_size=20), items=st.lists(st.integers(), max_size=60)
)
def test_shuffle_is_deterministic_for_a_seed_and_label(
    seed: bytes, label: str, items: list[int]
) -> None:
    assert Rng(seed).shuffle(label, items) == Rng(bytes(seed)).shuffle(
        label, list(items)
    )
