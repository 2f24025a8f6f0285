"""Re-deciding a record from nothing: every event must follow from its command.

The record is cut into requests: a line with a command starts one, the lines
after it without a command belong to it. The first request is re-decided with
``commands.create`` and the revealed seed, every later one with
``commands.decide`` on the table folded so far, for the recorded seat and at the
recorded time. The decision must accept and give exactly the recorded events;
then the recorded events are folded. That re-checks every rule, every score and
every random outcome (deal, exchange) against the committed seed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.common import commands
from domain.common import table as tables
from domain.common.commands import (
    MOVE_COMMANDS,
    STAND_IN_COMMANDS,
    CreateTable,
    JoinTable,
)
from domain.common.decision import Decision, Rejected
from domain.common.undo import MovePlayed
from domain.games.registry import rules_for
from services.audit.report import Report
from services.records import CODEC

# Longest description of a value in a message.
_BRIEF = 160


@dataclass(frozen=True, slots=True)
class Entry:
    """One event line of a record, decoded."""

    line: int
    revision: int
    time: datetime
    actor: int | None
    move_number: int
    request_id: str
    event: Any
    command: Any

    def at(self, message: str) -> str:
        """Returns a failure message that names this line."""
        return f"revision {self.revision}: {message} (line {self.line})"


def requests_of(entries: Sequence[Entry], report: Report) -> list[list[Entry]]:
    """Returns the record's requests; reports lines that break a request's shape."""
    requests: list[list[Entry]] = []
    for entry in entries:
        if entry.command is not None or not requests:
            if entry.command is None:
                report.fail(entry.at("the first event carries no command"))
            requests.append([entry])
            continue
        first = requests[-1][0]
        requests[-1].append(entry)
        for name in ("time", "actor", "move_number", "request_id"):
            if getattr(entry, name) != getattr(first, name):
                report.fail(
                    entry.at(
                        f"its {name} differs from that of its request, which "
                        f"begins at revision {first.revision}"
                    )
                )
    return requests


def replay(
    requests: Sequence[Sequence[Entry]], seed: bytes | None, report: Report
) -> None:
    """Folds the record; with the seed, re-decides every request first."""
    table: tables.Table | None = None
    rules: tables.Rules | None = None
    move_count = 0
    deciding = seed is not None
    diverged: Entry | None = None
    before = len(report.failures)
    for request in requests:
        first = request[0]
        if table is None or rules is None:
            rules = _rules_of(first, report)
            if rules is None:
                return
        _check_envelope(table, first, move_count, report)
        if deciding:
            decided = _decide(table, rules, first, seed or b"")
            problem = _compare(decided, request)
            if problem is not None:
                report.fail(problem)
                # Later requests would only repeat the divergence.
                deciding, diverged = False, first
        move_count = max(move_count, first.move_number)
        for entry in request:
            try:
                table = tables.evolve(table, entry.event, rules)
            except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
                _unfoldable(entry, diverged, e, report)
                return
    if table is None or rules is None:
        return
    if deciding and len(report.failures) == before:
        report.holds(
            f"re-decided {len(requests)} requests from nothing: every event, random "
            "draw and score follows from the recorded commands and the seed"
        )
    _check_outcome(table, rules, report)


def _unfoldable(
    entry: Entry, diverged: Entry | None, error: Exception, report: Report
) -> None:
    if diverged is None:
        report.fail(entry.at(f"the event cannot be applied to the game: {error}"))
    else:  # a consequence of the divergence already reported
        report.skip(
            f"the rest of the record: it stops folding at revision {entry.revision}, "
            f"after the request at revision {diverged.revision} diverged"
        )


def _rules_of(first: Entry, report: Report) -> tables.Rules | None:
    command = first.command
    if not isinstance(command, CreateTable):
        name = type(command).__name__
        report.fail(first.at(f"the first request must be CreateTable, not {name}"))
        return None
    rules = rules_for(command.game_type)
    if rules is None:
        report.fail(first.at(f"no game of type {command.game_type!r} is known"))
    return rules


def _check_envelope(
    table: tables.Table | None, first: Entry, move_count: int, report: Report
) -> None:
    """Checks who a request is credited to and its move number."""
    command = first.command
    seat = 0 if table is None else len(table.seats)
    joining = table is None or isinstance(command, JoinTable)
    if joining and first.actor != seat:
        report.fail(
            first.at(
                f"a new player takes seat {seat}, but it is credited to {first.actor}"
            )
        )
    if isinstance(command, STAND_IN_COMMANDS) and first.actor != command.seat:
        report.fail(
            first.at(
                f"the bot moved for seat {command.seat}, but it is credited to "
                f"{first.actor}"
            )
        )
    expected = move_count + 1 if isinstance(command, MOVE_COMMANDS) else 0
    if first.move_number != expected:
        report.fail(first.at(f"move number {first.move_number}, expected {expected}"))


def _decide(
    table: tables.Table | None, rules: tables.Rules, first: Entry, seed: bytes
) -> Decision[Any] | str:
    """Returns the decision on a request's command, or why there is none."""
    command = first.command
    try:
        if table is None:
            return commands.create(rules, command, seed)
        if isinstance(command, CreateTable):
            return first.at("a second CreateTable in the same game")
        return commands.decide(table, rules, first.actor, command, first.time)
    except Exception as error:  # noqa: BLE001 (a broken record may break the rules)
        return first.at(f"re-deciding the recorded command fails: {error!r}")


def _compare(decided: Decision[Any] | str, request: Sequence[Entry]) -> str | None:
    """Returns how a decision differs from the recorded events, None if it does not."""
    if isinstance(decided, str):
        return decided
    first = request[0]
    command = brief(first.command)
    if isinstance(decided, Rejected):
        return first.at(
            f"re-deciding the recorded command {command} is refused: "
            f"{decided.reason}: {decided.message}"
        )
    events: tuple[Any, ...] = decided.events
    for mine, entry in zip(events, request, strict=False):
        if _as_recorded(mine, entry.event) != entry.event:
            return entry.at(
                f"re-deciding the recorded command gives {brief(mine)} but the record "
                f"has {brief(entry.event)}{_difference(mine, entry.event)}"
            )
    if len(events) > len(request):
        missing = events[len(request)]
        return first.at(
            f"re-deciding the recorded command {command} also gives "
            f"{brief(missing)}, which the record lacks"
        )
    if len(events) < len(request):
        extra = request[len(events)]
        return extra.at(
            f"the record has {brief(extra.event)}, which re-deciding the command "
            f"of revision {first.revision} does not give"
        )
    return None


def _as_recorded(mine: Any, recorded: Any) -> Any:
    """Returns a re-decided event as a record of its time would hold it.

    A ``MovePlayed`` stored before moves' reveals were judged (T19) records
    none; the verdict of today's rules is not held against it. A
    ``GameStarted`` stored before the missed-turns rule (T24) records 0: the
    game is played under no such rule, whatever today's is.
    """
    if isinstance(recorded, MovePlayed) and recorded.reveals is None:
        return dataclasses.replace(mine, reveals=None)
    if (
        isinstance(recorded, tables.GameStarted)
        and isinstance(mine, tables.GameStarted)
        and recorded.missed_turns_gone == 0
    ):
        return dataclasses.replace(mine, missed_turns_gone=0)
    return mine


def _check_outcome(table: tables.Table, rules: tables.Rules, report: Report) -> None:
    final = table.final
    outcome = tables.outcome(table, rules)
    if final is None or outcome is None:
        return
    if (final.scores, final.winners) != (outcome.scores, outcome.winners):
        report.fail(
            f"GameFinished says scores {list(final.scores)} and winners "
            f"{list(final.winners)}, but the folded game gives scores "
            f"{list(outcome.scores)} and winners {list(outcome.winners)}"
        )
    else:
        report.holds(
            f"the final scores {list(final.scores)} and winners "
            f"{list(final.winners)} are the folded game's outcome"
        )


def _difference(mine: Any, theirs: Any) -> str:
    """Returns where two events of the same type differ first."""
    if type(mine) is not type(theirs) or not dataclasses.is_dataclass(mine):
        return ""
    for field in dataclasses.fields(mine):
        a, b = getattr(mine, field.name), getattr(theirs, field.name)
        if a == b:
            continue
        if isinstance(a, tuple) and isinstance(b, tuple):
            for index, (x, y) in enumerate(zip(a, b, strict=False)):
                if x != y:
                    return (
                        f"; {field.name}[{index}] is {brief(x)} instead of {brief(y)}"
                    )
            return f"; {field.name} has {len(a)} items instead of {len(b)}"
        return f"; {field.name} is {brief(a)} instead of {brief(b)}"
    return ""


def brief(value: Any) -> str:
    """Returns a short description of a domain value for a message."""
    text = _describe(value, top=True)
    return text if len(text) <= _BRIEF else text[: _BRIEF - 3] + "..."


def _describe(value: Any, *, top: bool = False) -> str:
    if isinstance(value, enum.Enum):
        return str(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if top:
            with contextlib.suppress(TypeError):
                name = CODEC.name_of(value)
        inner = ", ".join(
            f"{f.name}={_describe(getattr(value, f.name))}"
            for f in dataclasses.fields(value)
        )
        return f"{name}({inner})"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_describe(item) for item in value) + "]"
    if isinstance(value, datetime):
        return value.isoformat()
    return repr(value)
