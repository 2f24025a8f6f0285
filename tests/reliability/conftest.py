"""Fault-injection tests: real server processes on a PostgreSQL schema of their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.pg import fresh_schema


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """Yields the URL of an empty PostgreSQL schema."""
    with fresh_schema() as url:
        yield url
