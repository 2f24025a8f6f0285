"""SIGTERM under load: moves under way finish, new calls and streams go elsewhere."""

from __future__ import annotations

import grpc
import pytest

from tests.reliability.shutdown import shutdown_run

pytestmark = pytest.mark.e2e


def test_a_server_stopping_under_load_finishes_its_moves_and_sends_clients_on(
    postgres_url: str,
) -> None:
    figures = shutdown_run(postgres_url, clients=8, turns=14, term_after=40)
    print(f"\nshutdown: {figures.summary()}")  # noqa: T201 (the docs quote it)
    verdict = figures.verdict
    # A refusal here would be a CANCELLED or other non-retryable answer.
    assert not figures.errors, figures.errors
    assert verdict.problems == [], figures.summary()
    assert verdict.refused == 0, figures.summary()
    assert verdict.acknowledged == verdict.submitted == verdict.stored
    assert 40 <= figures.acknowledged_before_term < verdict.acknowledged
    assert figures.exit_status == 0
    assert figures.not_serving_after is not None, "health never said NOT_SERVING"
    assert figures.failed_over > 0, "no client went on through the other server"
    code, reason, retry_advice = figures.stream_end
    assert (code, reason, retry_advice) == (
        grpc.StatusCode.UNAVAILABLE,
        "SERVER_SHUTTING_DOWN",
        True,
    )
    assert figures.stream_resumed
    revisions = figures.stream_revisions
    assert revisions == list(range(revisions[0], revisions[-1] + 1))
