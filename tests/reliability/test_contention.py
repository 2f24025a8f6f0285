"""Two server processes racing for the same games apply each revision once."""

from __future__ import annotations

import pytest

from tests.reliability.contention import contention_run

pytestmark = pytest.mark.e2e


def test_racing_clients_of_two_processes_apply_each_revision_once(
    postgres_url: str,
) -> None:
    figures = contention_run(postgres_url, games=2, clients=8, turns=10)
    verdict = figures.verdict
    assert figures.problems == [], figures.summary()
    assert verdict.problems == [], figures.summary()
    assert (verdict.lost, verdict.duplicated, verdict.half_stored) == (0, 0, 0)
    assert verdict.acknowledged + verdict.refused == verdict.submitted
    # There was a race: some moves lost it, on both kinds of client.
    assert figures.reasons["REVISION_MISMATCH"] + figures.reasons["CONCURRENT_UPDATE"]
    assert figures.feeds_compared == 2
    assert figures.events_compared > 2 * 6  # more than the two openings
