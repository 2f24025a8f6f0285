"""Verifiable randomness: seed commitment and labelled HMAC-SHA256 streams.

Every shuffle and random draw of a game is a pure function of the game's secret
seed and a label, so anyone holding the seed (revealed when the game ends) can
recompute it. See DESIGN §4.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

SEED_BYTES = 32
COMMITMENT_PREFIX = b"tabletop/seed-commitment/v1"
_TWO_64 = 1 << 64


def commitment(seed: bytes) -> str:
    """Returns the public commitment to a seed: hex SHA-256 of prefix + seed."""
    return hashlib.sha256(COMMITMENT_PREFIX + seed).hexdigest()


class RandomStream:
    """The integers of one label's stream, read in order."""

    def __init__(self, seed: bytes, label: str) -> None:
        self._integers = _integers(seed, label.encode("utf-8"))

    def next_u64(self) -> int:
        """Returns the stream's next unsigned 64-bit integer."""
        return next(self._integers)

    def uniform(self, n: int) -> int:
        """Returns an unbiased integer in ``range(n)`` by rejection sampling."""
        if not 1 <= n <= _TWO_64:
            msg = f"uniform() needs 1 <= n <= 2**64, got {n}"
            raise ValueError(msg)
        limit = _TWO_64 - (_TWO_64 % n)
        while True:
            u = self.next_u64()
            if u < limit:
                return u % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """Returns a Fisher-Yates shuffled copy of ``items``."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.uniform(i + 1)
            result[i], result[j] = result[j], result[i]
        return result


def _integers(seed: bytes, label: bytes) -> Iterator[int]:
    k = 0
    while True:
        block = hmac.new(
            seed, label + b"\x00" + k.to_bytes(8, "big"), hashlib.sha256
        ).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(block[offset : offset + 8], "big")
        k += 1


@dataclass(frozen=True, slots=True)
class Rng:
    """A game's randomness: one independent stream per label, all from one seed."""

    seed: bytes

    def stream(self, label: str) -> RandomStream:
        """Returns the stream for ``label``, starting at its first integer."""
        return RandomStream(self.seed, label)

    def shuffle(self, label: str, items: Sequence[T]) -> list[T]:
        """Returns ``items`` shuffled by the stream of ``label``."""
        return self.stream(label).shuffle(items)
