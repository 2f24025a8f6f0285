"""A noisy neighbour's costliest refused calls are refused and store nothing.

The short version of ``bench/noisy.py`` (``make soak`` runs the long one): 8
honest clients play Split alone, then beside one client that sends moves as
large as the server reads (with its own seat token, made-up tokens, no token)
and as many undecodable bytes, all from 127.0.0.1 against the server's real
limits. Nothing
here asserts a timing; the figures are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import pytest

from bench.noisy import noisy_run

pytestmark = pytest.mark.e2e

CLIENTS = 8


def test_a_noisy_clients_costly_calls_are_refused_and_honest_games_go_on(
    postgres_url: str,
) -> None:
    figures = noisy_run(postgres_url, clients=CLIENTS, seconds=5.0, per_kind=2)
    print("\n".join(["", *figures.lines()]))  # noqa: T201 (the figures, -s shows)
    # Every noisy call was refused with a reason, never accepted, never a crash;
    # every game holds exactly the events its honest clients heard of; every
    # honest client moved in both phases.
    assert figures.faults(CLIENTS) == []
