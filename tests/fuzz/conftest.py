"""A server shared by the fuzzing module, its reference games, and the tally of cases.

``TABLETOP_FUZZ_EXAMPLES`` raises the examples per RPC for a long (soak) run,
which then prints how many cases each RPC was tried with.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

EXAMPLES_VARIABLE = "TABLETOP_FUZZ_EXAMPLES"
CASES: Counter[str] = Counter()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Prints the cases tried per RPC when a long run asked for them."""
    if EXAMPLES_VARIABLE not in os.environ or not CASES:
        return
    terminalreporter.section("hostile input: cases per RPC")
    for rpc, count in sorted(CASES.items()):
        terminalreporter.write_line(f"{rpc}: {count} cases")
    terminalreporter.write_line(f"total: {sum(CASES.values())} cases")
