"""The persistent map of a game's request ids."""

from __future__ import annotations

import pytest

from services.request_ids import RequestEntry, RequestIds


def grown(count: int, start: RequestIds | None = None) -> RequestIds:
    """Returns ids r0, r1, ... added one by one, r<n> first seen at revision n + 1."""
    ids = start or RequestIds()
    for number in range(len(ids), len(ids) + count):
        ids = ids.with_entry(f"r{number}", RequestEntry(number + 1, number % 3, "h"))
    return ids


def test_adding_an_id_leaves_the_map_it_was_added_to_unchanged() -> None:
    before = grown(3)
    after = before.with_entry("new", RequestEntry(9, None, "x"))
    assert "new" in after
    assert after["new"] == RequestEntry(9, None, "x")
    assert "new" not in before
    assert len(before) == 3
    assert len(after) == 4


def test_adding_an_id_shares_the_loaded_ids_instead_of_copying_them() -> None:
    loaded = RequestIds.unpacked([("old", 1, 0, "h")])
    after = loaded.with_entry("new", RequestEntry(2, 1, "h"))
    assert after.loaded is loaded.loaded


def test_ids_loaded_from_a_snapshot_equal_the_same_ids_added_one_by_one() -> None:
    added = grown(50)
    loaded = RequestIds.unpacked(added.added_after(0))
    assert loaded == added
    assert dict(loaded) == dict(added)
    assert loaded["r7"] == RequestEntry(8, 1, "h")
    assert grown(5, loaded) == grown(55)


def test_a_missing_id_is_not_found() -> None:
    ids = grown(3, RequestIds.unpacked([("old", 1, None, "h")]))
    assert "absent" not in ids
    with pytest.raises(KeyError):
        ids["absent"]
    assert ids["old"] == RequestEntry(1, None, "h")


def test_the_ids_added_after_a_revision_come_oldest_first() -> None:
    ids = grown(250)
    window = ids.added_after(200)
    assert [item[0] for item in window] == [f"r{n}" for n in range(200, 250)]
    assert window[0] == ("r200", 201, 200 % 3, "h")
    assert ids.added_after(250) == []
