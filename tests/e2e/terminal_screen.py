"""The terminal client under a pseudo-terminal: starting it, reading its screen.

The client runs on a pseudo-terminal of its own, started with ``subprocess``
(vfork and exec) rather than pexpect's fork: a plain fork of the test process,
whose gRPC channels have running pollers, runs gRPC's fork handlers, and the
child sometimes died in them ("epoll_wait error: Bad file descriptor") before
the client started.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Server

ROWS, COLUMNS = 60, 150
CLEAR = "\x1b[2J"  # the client clears the screen before each frame
FRAME = "\f"  # what a clear becomes in ``Screen.text``
ANSI = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07]*\x07|[()][A-Z0-9])")


class Client:
    """A client process whose standard streams are a pseudo-terminal."""

    def __init__(
        self, command: list[str], env: dict[str, str], size: tuple[int, int]
    ) -> None:
        self.child_fd, terminal = os.openpty()
        rows, columns = size
        fcntl.ioctl(
            terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0)
        )
        try:
            self.process = subprocess.Popen(  # noqa: S603 (our own CLI)
                command,
                stdin=terminal,
                stdout=terminal,
                stderr=terminal,
                env=env,
                start_new_session=True,
            )
        finally:
            os.close(terminal)  # the child's copies stay open until it exits

    def resize(self, rows: int, columns: int) -> None:
        """Resizes the terminal and tells the client, as a terminal window does.

        The client, in a session of its own, has no controlling terminal that
        would send SIGWINCH by itself.
        """
        size = struct.pack("HHHH", rows, columns, 0, 0)
        fcntl.ioctl(self.child_fd, termios.TIOCSWINSZ, size)
        self.process.send_signal(signal.SIGWINCH)

    def sendline(self, text: str) -> None:
        """Types a line."""
        os.write(self.child_fd, f"{text}\n".encode())

    def read(self) -> bytes:
        """Returns what the client wrote, or b"" once it has exited."""
        try:
            return os.read(self.child_fd, 65536)
        except OSError:  # EIO: every copy of the terminal side is closed
            return b""

    def close(self, timeout: float) -> int:
        """Waits for the client to exit; returns its exit status."""
        try:
            return self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            os.close(self.child_fd)


class Screen:
    """What a started client has shown, without its escape codes."""

    def __init__(self, child: Client, title: str = "Qwirkle") -> None:
        self.child, self.text, self.mark, self.held = child, "", 0, ""
        self.title = f"{title}  games/"
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def expect(self, pattern: str, timeout: float = 15) -> re.Match[str]:
        """Waits until the pattern shows after the last match; returns the match."""
        wanted = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while (found := wanted.search(self.text, self.mark)) is None:
            if time.monotonic() > deadline:
                tail = self.text[-3000:]
                pytest.fail(f"{pattern!r} was not shown; the screen ends:\n{tail}")
            if not self._read(0.1):
                tail = self.text[-3000:]
                pytest.fail(f"the client exited before {pattern!r}:\n{tail}")
        self.mark = found.end()
        return found

    def _read(self, timeout: float) -> bool:
        """Adds what arrives within ``timeout``; False once the client has exited."""
        ready, _, _ = select.select([self.child.child_fd], [], [], timeout)
        if not ready:
            return True
        chunk = self.child.read()
        self._add(self.decoder.decode(chunk))
        return bool(chunk)

    def _add(self, chunk: str) -> None:
        """Adds output, holding back an escape sequence cut at the chunk's end."""
        data = self.held + chunk
        cut = data.rfind("\x1b")
        if cut >= 0 and not re.match(r"\x1b\[[0-9;?]*[A-Za-z]", data[cut:]):
            data, self.held = data[:cut], data[cut:]
        else:
            self.held = ""
        data = data.replace(CLEAR, FRAME)
        self.text += ANSI.sub("", data).replace("\r", "")

    def last_screen(self) -> str:
        """Returns the last screen drawn up to the last match."""
        return self.text[self.text.rfind(self.title, 0, self.mark) : self.mark]

    def frames(self) -> list[str]:
        """Returns every screen drawn up to the last match, each from the clear
        before it (the last one as far as it was read)."""
        return self.text[: self.mark].split(FRAME)[1:]

    def finish(self) -> int:
        """Waits for the client to exit; returns its exit status."""
        deadline = time.monotonic() + 15
        while self._read(0.1):
            if time.monotonic() > deadline:
                pytest.fail(f"the client did not exit:\n{self.text[-3000:]}")
        status = self.child.close(timeout=max(0.1, deadline - time.monotonic()))
        assert "Traceback" not in self.text
        return status


def spawn(
    server: Server,
    state: Path,
    *args: str,
    title: str = "Qwirkle",
    size: tuple[int, int] = (ROWS, COLUMNS),
) -> Screen:
    """Runs ``tabletop ARGS --server ...`` on a pseudo-terminal, state in ``state``.

    ``title`` is the game's name as the header of each drawn screen starts;
    ``size`` the terminal's rows and columns.
    """
    env = dict(os.environ, TERM="xterm-256color", XDG_STATE_HOME=str(state))
    # The terminal's size, not the test runner's (pytest-xdist's workers may
    # set COLUMNS): lines then wrap where the screen's tests expect.
    rows, columns = size
    env.update(COLUMNS=str(columns), LINES=str(rows))
    env.pop("TABLETOP_SERVER", None)
    command = [sys.executable, "-m", "infra.cli", *args, "--server", server.address]
    return Screen(Client(command, env, size), title)
