"""The input wait wakes up when the terminal is resized (SIGWINCH)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from infra.terminal.lines import EndOfInput, Line, LineReader, Resized, wait


@pytest.fixture
def reader() -> Iterator[LineReader]:
    """A reader of a pipe nothing is typed into; SIGWINCH restored afterwards."""
    previous = signal.getsignal(signal.SIGWINCH)
    read, write = os.pipe()
    reader = LineReader(read)
    try:
        yield reader
    finally:
        signal.signal(signal.SIGWINCH, previous)
        if reader.wake >= 0:
            os.close(reader.wake)
        os.close(read)
        os.close(write)


def test_a_resize_wakes_the_wait(reader: LineReader) -> None:
    reader.lines.append("first")
    assert wait(reader, None, resize=True) == Line("first")  # the handler is set
    os.kill(os.getpid(), signal.SIGWINCH)
    assert isinstance(wait(reader, None, resize=True), Resized)
    reader.lines.append("typed")
    assert wait(reader, None, resize=True) == Line("typed")  # told once


def test_a_wait_that_does_not_ask_ignores_resizes(reader: LineReader) -> None:
    reader.lines.append("first")
    assert wait(reader, None, resize=True) == Line("first")
    os.kill(os.getpid(), signal.SIGWINCH)
    reader.lines.append("typed")
    assert wait(reader, None) == Line("typed")
    reader.closed = True
    assert isinstance(wait(reader, None), EndOfInput)
