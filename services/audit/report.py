"""What ``verify`` found: the checks that held, the failures, what went unchecked."""

from __future__ import annotations

from dataclasses import dataclass, field

# A report lists this many failures at most; a garbled file would list thousands.
MAX_SHOWN = 40
_LABELS = {"ok": "ok       ", "failed": "FAILED   ", "unchecked": "UNCHECKED"}


@dataclass
class Report:
    """The result of verifying one exported record."""

    game: str = ""
    game_type: str = ""
    events: int = 0
    finished: bool = False
    passed: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    # What could not be checked, and why (an unfinished game keeps its seed).
    unchecked: list[str] = field(default_factory=list)
    # Every finding in the order the checks ran: ("ok" | "failed" | "unchecked", text).
    findings: list[tuple[str, str]] = field(default_factory=list)
    # The summary of each part: the signatures, the digests' chain, the
    # re-decision of every command, the receipts.
    signature: str = "not checked"
    chain: str = "not checked"
    redecided: str = "not checked"
    receipts: str = "none given"

    @property
    def ok(self) -> bool:
        """Whether everything that could be checked holds."""
        return not self.failures

    def fail(self, message: str) -> None:
        """Records a failure."""
        self.failures.append(message)
        self.findings.append(("failed", message))

    def holds(self, message: str) -> None:
        """Records a check that held."""
        self.passed.append(message)
        self.findings.append(("ok", message))

    def skip(self, message: str) -> None:
        """Records what could not be checked, and why."""
        self.unchecked.append(message)
        self.findings.append(("unchecked", message))

    def render(self) -> str:
        """Returns the report as text for a terminal.

        Text that came from the file (a game type, an event's type) is shown
        with every character that is not printable escaped, so that a record
        cannot add lines to its own report or hide them with control codes.
        """
        return "".join(_printable(line) + "\n" for line in self._lines())

    def _lines(self) -> list[str]:
        state = "finished" if self.finished else "not finished"
        title = self.game or "an unidentified game"
        summary = f"{self.game_type or '?'}, {self.events} events, {state}"
        lines = [f"Audit record of {title} ({summary})"]
        shown = 0
        for kind, message in self.findings:
            if kind == "failed":
                shown += 1
                if shown > MAX_SHOWN:
                    continue
            lines.append(f"  {_LABELS[kind]} {message}")
        if shown > MAX_SHOWN:
            lines.append(f"  {_LABELS['failed']} ... and {shown - MAX_SHOWN} more")
        lines += [
            f"signature:           {self.signature}",
            f"chain:               {self.chain}",
            f"commands re-decided: {self.redecided}",
            f"receipts:            {self.receipts}",
        ]
        if self.failures:
            count = len(self.failures)
            lines.append(f"RESULT: NOT VERIFIED ({count} failure{'s' * (count > 1)})")
        elif self.unchecked:
            lines.append(
                "RESULT: everything checked holds, but not everything could be "
                "checked (see UNCHECKED)"
            )
        else:
            lines.append("RESULT: VERIFIED")
        return lines


def _printable(text: str) -> str:
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )
