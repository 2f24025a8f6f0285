"""A database outage: calls answer UNAVAILABLE, then everything resumes by itself.

The scenario is ``tests.reliability.outage``: clients play through one server
on a private cluster that is stopped and started again under them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.cluster import Cluster
from tests.reliability.outage import outage_run

pytestmark = pytest.mark.e2e


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    """Yields a started private cluster; the ledger's SQL reads go to it too."""
    made = Cluster()
    try:
        made.start()
        for name, value in made.environ().items():
            monkeypatch.setenv(name, value)
        yield made
    finally:
        made.remove()


def test_the_server_rides_out_a_database_outage(cluster: Cluster) -> None:
    figures = outage_run(cluster, "outage", clients=3)
    print(f"\noutage: {figures.summary()}")  # noqa: T201 (the figure the docs quote)
    assert figures.other_errors == []
    verdict = figures.verdict
    assert verdict.problems == []
    assert verdict.acknowledged == verdict.stored == verdict.submitted
    # The stream opened before the outage saw every revision once, in order.
    assert figures.stream_complete, figures.stream_revisions
    assert max(figures.recovered_after) < 10
