"""Legal-move listings kept between pages, so that a page resumes, not restarts.

The rules list a position's moves lazily in a fixed order. A page of
``ListLegalMoves`` reads its moves and one more (whether another page follows);
the listing is then kept, at the position the next page starts from, keyed by
the game, its revision and the seat. The next page takes it up where it
stopped, so listing every page of a position costs one listing, not one per
page from the start (a first Qwirkle move can have 8,640 placements: 87 pages
at the default size). A page nobody keeps (another process's, or one dropped as
the least recently used) is listed again from the start: the order is fixed, so
the moves are the same either way.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from uuid import UUID

LISTINGS_KEPT = 256  # listings between pages, the least recently used dropped

# (game, revision, seat, position of the next move)
Key = tuple[UUID, int, int, int]


class Listings:
    """The unfinished listings of this process, each taken by one page at a time."""

    def __init__(self, size: int = LISTINGS_KEPT) -> None:
        self.size = size
        # key -> (the move read ahead, the listing after it): kept apart, so
        # that resuming never wraps the listing in one more iterator.
        self._kept: OrderedDict[Key, tuple[Any, Iterator[Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def page(
        self,
        key: Key,
        size: int,
        moves: Callable[[], Iterable[Any]],
    ) -> tuple[list[Any], bool]:
        """Returns up to ``size`` moves from ``key``'s position, and if more follow.

        ``moves`` lists the position's moves from the first, for a listing
        this process does not keep.
        """
        with self._lock:
            kept = self._kept.pop(key, None)
        game_id, revision, seat, start = key
        if kept is None:
            rest: Iterator[Any] = itertools.islice(moves(), start, None)
            page = list(itertools.islice(rest, size + 1))
        else:
            ahead, rest = kept
            page = [ahead, *itertools.islice(rest, size)]
        if len(page) <= size:
            return page, False
        after = (game_id, revision, seat, start + size)
        with self._lock:
            self._kept[after] = (page[size], rest)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return page[:size], True
