"""Listings kept between pages of ListLegalMoves: resumed, bounded, never nested."""

from __future__ import annotations

import gc
import itertools
import uuid

from services.listings import Listings


def _chains_reachable(root: object) -> int:
    """Counts the itertools.chain objects reachable from ``root`` (nesting depth)."""
    seen: set[int] = set()
    stack = [root]
    chains = 0
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, itertools.chain):
            chains += 1
        stack.extend(r for r in gc.get_referents(item) if not isinstance(r, int))
    return chains


def test_a_resumed_listing_does_not_nest_one_more_chain_per_page() -> None:
    """A resumed page keeps the listing as it was, not wrapped once more.

    Wrapped once per page, a move of page k would pass through k iterators,
    and walking an n-move listing at page_size=1 would cost O(n**2) (a Qwirkle
    first move has 8,640 placements).
    """
    listings = Listings()
    game = uuid.uuid4()
    for start in range(50):
        _, more = listings.page((game, 1, 0, start), 1, lambda: iter(range(10_000)))
        assert more
    (kept,) = listings._kept.values()
    assert _chains_reachable(kept) <= 2


def test_pages_resumed_or_listed_again_give_the_same_moves() -> None:
    listings = Listings()
    game = uuid.uuid4()
    paged: list[int] = []
    for start in range(0, 25, 4):
        page, more = listings.page((game, 1, 0, start), 4, lambda: iter(range(25)))
        paged += page
        assert more == (start + 4 < 25)
    assert paged == list(range(25))
    fresh, _ = Listings().page((game, 1, 0, 8), 4, lambda: iter(range(25)))
    assert fresh == [8, 9, 10, 11]


def test_at_most_the_configured_number_of_listings_are_kept() -> None:
    listings = Listings(size=3)
    for _ in range(10):
        listings.page((uuid.uuid4(), 1, 0, 0), 1, lambda: iter(range(5)))
    assert len(listings._kept) == 3
