"""Waiting for a typed line or a feed item, whichever comes first."""

from __future__ import annotations

import os
import queue
import select
from dataclasses import dataclass, field

from infra.terminal.feed import Feed, Item

POLL_SECONDS = 0.1


@dataclass
class LineReader:
    """Reads whole lines from a file descriptor without blocking the feed."""

    fd: int = 0
    buffer: bytes = b""
    closed: bool = False
    lines: list[str] = field(default_factory=list)

    def poll(self, timeout: float) -> str | None:
        """Returns a line if one is typed within ``timeout``; None otherwise."""
        if self.lines:
            return self.lines.pop(0)
        if self.closed:
            return None
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            chunk = os.read(self.fd, 4096)
            if not chunk:
                self.closed = True
            self.buffer += chunk
            *done, self.buffer = self.buffer.split(b"\n")
            self.lines += [line.decode("utf-8", "replace").strip() for line in done]
        return self.lines.pop(0) if self.lines else None


@dataclass(frozen=True, slots=True)
class Line:
    """A typed line."""

    text: str


@dataclass(frozen=True, slots=True)
class EndOfInput:
    """Ctrl-D, or the end of piped input."""


def wait(reader: LineReader, feed: Feed | None) -> Line | EndOfInput | Item:
    """Blocks until the person types a line, input ends, or the feed has an item."""
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


def drain(feed: Feed, first: Item) -> list[Item]:
    """Returns ``first`` and every other item already waiting."""
    items = [first]
    while True:
        try:
            items.append(feed.items.get_nowait())
        except queue.Empty:
            return items
