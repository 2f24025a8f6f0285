"""Marks tests by layer, so ``pytest -m "not integration and not e2e"`` runs the fast,
pure suites without a database or a server."""

from __future__ import annotations

from pathlib import Path

import pytest

_MARKS = {"integration": pytest.mark.integration, "e2e": pytest.mark.e2e}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Adds the ``integration`` or ``e2e`` mark from the test's folder."""
    for item in items:
        layer = Path(item.path).relative_to(Path(__file__).parent).parts[0]
        if layer in _MARKS:
            item.add_marker(_MARKS[layer])
