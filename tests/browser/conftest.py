"""A Chromium driven by Playwright, and a server with its HTTP port, per module.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``, or
``TABLETOP_CHROMIUM``): Playwright downloads nothing. Without it, or without
the built page (``make web``), every test here fails and says what to do.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.e2e.conftest import Server, start_server
from tests.pg import fresh_schema

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "infra" / "web" / "dist" / "index.html"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _chromium() -> str:
    """Returns Debian's Chromium; fails (never skips) when it is missing."""
    chromium = os.environ.get("TABLETOP_CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        pytest.fail(
            f"{chromium} is missing: install Debian's `chromium` package "
            "(`bash .ci/ensure-tools` does, as root; `make test` runs it) to run "
            "the browser tests",
            pytrace=False,
        )
    if not PAGE.is_file():
        pytest.fail(
            f"{PAGE.relative_to(ROOT)} is missing: `make web` builds the page "
            "(`make test` does too)",
            pytrace=False,
        )
    return chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Yields a headless Chromium for the module's tests."""
    chromium = _chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium, args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def web_server() -> Iterator[Server]:
    """Yields a development-mode server with its HTTP port, on a schema of its own."""
    _chromium()  # fail before starting anything
    with fresh_schema() as url:
        running = start_server(url, dev=True, http=True)
        try:
            yield running
        finally:
            assert running.stop() == 0
