"""The request ids a game has seen (T11), as a persistent map of their keys.

A request id is a secret of the client that sent it: a retry of an identified
``CreateGame`` or ``JoinGame`` returns the seat token, so whoever knows the id
could take the seat. The server therefore keeps, stores, exports and logs only
the id's *key*, a labelled SHA-256 of it (``request_key``); the raw id is used
during the call that carries it (to derive the seat token) and then forgotten.

A fold remembers every identified request of its game, so adding one must not
copy the others: ids are added to an ``immutables.Map`` (O(log n), sharing the
rest with the map before), which keeps a long game's fold linear. Ids loaded
from a stored snapshot (``services/snapshots.py``) stay in the plain dict of
tuples they were read into, so a load builds no object per id. The ids added
since are also linked newest first, so that each snapshot stores only the ids
of its own revisions and the stored snapshots of a game grow with its number of
requests, not with its square.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import TypeAlias

import immutables

_KEY_LABEL = b"tabletop/request-id/v1\x00"

# An id as a snapshot stores it: key, first revision, seat (None: the system), hash.
Packed: TypeAlias = tuple[str, int, int | None, str]


def request_key(request_id: str) -> str:
    """Returns the key under which a request id is stored; ``""`` for no id.

    One-way: the key of a retry matches the stored one, and no stored key
    gives back the id that only its client knows.
    """
    if not request_id:
        return ""
    return hashlib.sha256(_KEY_LABEL + request_id.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RequestEntry:
    """Where an identified request's events start, its seat and fingerprint.

    A request's events are consecutive: they run from ``first_revision`` while
    their request id stays the same.
    """

    first_revision: int
    actor: int | None
    request_hash: str


@dataclass(frozen=True, slots=True)
class _Link:
    """One id added since the ids loaded, and the one added before it."""

    packed: Packed
    older: _Link | None


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RequestIds(Mapping[str, RequestEntry]):
    """Request key -> what its request stored; ``with_entry`` returns a new map.

    Equal to any mapping with the same items, however its ids were loaded.
    """

    loaded: Mapping[str, Packed] = field(default_factory=dict)  # never changed
    added: immutables.Map[str, RequestEntry] = field(default_factory=immutables.Map)
    newest: _Link | None = None  # the ids of ``added``, newest first

    @classmethod
    def unpacked(cls, packed: Iterable[Packed]) -> RequestIds:
        """Returns the ids a snapshot stored."""
        return cls(loaded={item[0]: item for item in packed})

    def with_entry(self, key: str, entry: RequestEntry) -> RequestIds:
        """Returns these ids and one more, sharing everything with this map."""
        packed = (key, entry.first_revision, entry.actor, entry.request_hash)
        return replace(
            self,
            added=self.added.set(key, entry),
            newest=_Link(packed, self.newest),
        )

    def added_after(self, revision: int) -> list[Packed]:
        """Returns the ids first seen after ``revision``, oldest first.

        Only ids added since the loaded ones are searched: a snapshot at a
        revision is always written after the one these ids were loaded from.
        """
        found: list[Packed] = []
        link = self.newest
        while link is not None and link.packed[1] > revision:
            found.append(link.packed)
            link = link.older
        return found[::-1]

    def __getitem__(self, key: str) -> RequestEntry:
        entry = self.added.get(key)
        if entry is not None:
            return entry
        _, first_revision, actor, request_hash = self.loaded[key]
        return RequestEntry(first_revision, actor, request_hash)

    def __contains__(self, key: object) -> bool:
        return key in self.added or key in self.loaded

    def __iter__(self) -> Iterator[str]:
        return chain(self.loaded, self.added)

    def __len__(self) -> int:
        return len(self.loaded) + len(self.added)

    def __repr__(self) -> str:
        return f"RequestIds(<{len(self)} ids>)"
