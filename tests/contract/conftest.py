"""The recorded random games the contract's tests check, one test per game."""

from __future__ import annotations

import pytest

from tests.contract.playouts import PLAYOUTS, Playout, played, playout_id


@pytest.fixture(params=PLAYOUTS, ids=playout_id)
def playout(request: pytest.FixtureRequest) -> Playout:
    """Returns a recorded random game of every game, table size and number."""
    return played(*request.param)
