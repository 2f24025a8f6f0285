"""A server killed mid-game loses no acknowledged move and applies no retry twice."""

from __future__ import annotations

import pytest

from tests.reliability.crash import crash_run

pytestmark = pytest.mark.e2e


def test_clients_retrying_through_another_server_lose_and_repeat_nothing(
    postgres_url: str,
) -> None:
    figures = crash_run(
        postgres_url, clients=6, turns=12, kill_after=30, lose_replies=0.3
    )
    verdict = figures.verdict
    assert not figures.errors, figures.errors
    assert verdict.problems == [], figures.summary()
    assert (verdict.lost, verdict.duplicated, verdict.half_stored) == (0, 0, 0)
    assert verdict.refused == 0  # each game has one client: every move is legal
    assert verdict.acknowledged == verdict.submitted == verdict.stored
    # The kill came mid-game: moves were made on both sides of it.
    assert 30 <= figures.acknowledged_before_kill < verdict.acknowledged
    assert figures.recovery, "no client noticed the kill"
