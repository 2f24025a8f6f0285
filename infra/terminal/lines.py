"""Waiting for a typed line, a feed item or a resized terminal, whichever is first."""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal
import threading
from dataclasses import dataclass, field
from types import FrameType

from infra.terminal.feed import Feed, Item

POLL_SECONDS = 0.1


@dataclass
class LineReader:
    """Reads whole lines from a file descriptor without blocking the feed.

    Once ``watch_resize`` was called, a resized terminal (SIGWINCH) wakes the
    wait at once, through a pipe the signal handler writes to.
    """

    fd: int = 0
    buffer: bytes = b""
    closed: bool = False
    lines: list[str] = field(default_factory=list)
    wake: int = -1  # the read end of the resize pipe; -1 while not watching
    resized: bool = False  # the terminal was resized since the last Resized

    def poll(self, timeout: float) -> str | None:
        """Returns a line if one is typed within ``timeout``; None otherwise,
        or at once when the terminal is resized."""
        if self.lines:
            return self.lines.pop(0)
        if self.closed:
            return None
        watched = [self.fd] + ([self.wake] if self.wake >= 0 else [])
        ready, _, _ = select.select(watched, [], [], timeout)
        if self.wake in ready:
            self._drain_wake()
        if self.fd in ready:
            chunk = os.read(self.fd, 4096)
            if not chunk:
                self.closed = True
            self.buffer += chunk
            *done, self.buffer = self.buffer.split(b"\n")
            self.lines += [line.decode("utf-8", "replace").strip() for line in done]
        return self.lines.pop(0) if self.lines else None

    def _drain_wake(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while os.read(self.wake, 64):
                pass
        self.resized = True


def watch_resize(reader: LineReader) -> None:
    """Wakes ``reader``'s waits when the terminal is resized; once per reader.

    Signal handlers belong to the main thread: elsewhere (and where there is
    no SIGWINCH) nothing is watched and the screen keeps its size until the
    next redraw.
    """
    if reader.wake >= 0 or not hasattr(signal, "SIGWINCH"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)

    def resized(_signum: int, _frame: FrameType | None) -> None:
        # A full pipe already holds a wake-up.
        with contextlib.suppress(BlockingIOError):
            os.write(write, b"r")

    signal.signal(signal.SIGWINCH, resized)
    reader.wake = read


@dataclass(frozen=True, slots=True)
class Line:
    """A typed line."""

    text: str


@dataclass(frozen=True, slots=True)
class EndOfInput:
    """Ctrl-D, or the end of piped input."""


@dataclass(frozen=True, slots=True)
class Resized:
    """The terminal was resized: the screen is drawn again at its new size."""


def wait(
    reader: LineReader, feed: Feed | None, *, resize: bool = False
) -> Line | EndOfInput | Item | Resized:
    """Blocks until the person types a line, input ends, or the feed has an
    item; with ``resize``, also until the terminal is resized."""
    if resize:
        watch_resize(reader)
    while True:
        if feed is not None:
            try:
                return feed.items.get_nowait()
            except queue.Empty:
                pass
        line = reader.poll(POLL_SECONDS)
        if line is not None:
            return Line(line)
        if reader.closed:
            return EndOfInput()
        if resize and reader.resized:
            reader.resized = False
            return Resized()


def drain(feed: Feed, first: Item) -> list[Item]:
    """Returns ``first`` and every other item already waiting."""
    items = [first]
    while True:
        try:
            items.append(feed.items.get_nowait())
        except queue.Empty:
            return items
