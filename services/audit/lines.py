"""The lines of a record: parsing, and the shape of the header, events and trailer.

Each line must be canonical JSON (``chain.canonical``); a line that is not, or
that lacks a key, has an unexpected one or a value of the wrong kind, is
reported with its line number and, where it names one, its revision.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from domain.common.rng import SEED_BYTES
from services.audit.chain import (
    EVENT_KEYS,
    FORMAT,
    HEADER_KEYS,
    TRAILER_KEYS,
    canonical,
)
from services.audit.report import Report

_HEX64 = re.compile(r"[0-9a-f]{64}")
_REVISION = re.compile(rb'"revision":(\d{1,19})')


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the file: its number and its JSON object (None if unusable)."""

    line: int
    data: dict[str, Any] | None

    def at(self, message: str) -> str:
        """Returns a failure message that names this line (and its revision).

        The header's ``revision`` is the record's last, not the header's own:
        a header is named by its line only.
        """
        revision = self.data.get("revision") if self.data else None
        if is_int(revision) and "format" not in (self.data or {}):
            return f"revision {revision}: {message} (line {self.line})"
        return f"line {self.line}: {message}"


def parse_rows(text: str | bytes, report: Report) -> list[Row]:
    """Returns the file's lines parsed; reports those that are not canonical JSON."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    chunks = raw.split(b"\n")
    if chunks and not chunks[-1]:
        chunks.pop()  # the newline that ends the last line
    rows = []
    for number, chunk in enumerate(chunks, start=1):
        found = _REVISION.search(chunk)
        where = f"line {number}" + (f" (revision {found[1].decode()})" if found else "")
        rows.append(Row(number, _parse(chunk, where, report)))
    return rows


def _parse(chunk: bytes, where: str, report: Report) -> dict[str, Any] | None:
    try:
        line = chunk.decode("utf-8")
    except UnicodeDecodeError:
        report.fail(f"{where}: not valid UTF-8")
        return None
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as error:
        report.fail(f"{where}: not valid JSON ({error})")
        return None
    if not isinstance(data, dict):
        report.fail(f"{where}: not a JSON object")
        return None
    try:
        canonical(data).encode("utf-8")
    except UnicodeEncodeError:
        report.fail(f"{where}: holds text that is not Unicode (a lone surrogate)")
        return None
    if canonical(data) != line:
        report.fail(f"{where}: not in canonical form (sorted keys, no spaces)")
    return data


def _keys(row: Row, expected: frozenset[str], what: str, report: Report) -> bool:
    data = row.data or {}
    missing, extra = expected - data.keys(), data.keys() - expected
    if missing:
        report.fail(row.at(f"the {what} lacks {', '.join(sorted(missing))}"))
    if extra:
        report.fail(row.at(f"the {what} has unexpected {', '.join(sorted(extra))}"))
    return not missing and not extra


def game_of(text: bytes) -> str:
    """Returns the game a record's header names, or "" when it names none."""
    first = text.split(b"\n", 1)[0]
    try:
        data = json.loads(first)
    except (ValueError, RecursionError):
        return ""
    game = data.get("game") if isinstance(data, dict) else None
    return game if isinstance(game, str) and _game_name(game) else ""


def header_of(row: Row, report: Report) -> dict[str, Any]:
    data = row.data
    if data is None or not _keys(row, HEADER_KEYS, "header", report):
        return {}
    problems = []
    if data["format"] != FORMAT:
        problems.append(f"format is {data['format']!r}, not {FORMAT!r}")
    if not isinstance(data["game"], str) or not _game_name(data["game"]):
        problems.append("game is not a games/<uuid> name")
    if not isinstance(data["game_type"], str):
        problems.append("game_type is not a string")
    if not is_int(data["revision"]) or data["revision"] < 1:
        problems.append("revision is not a positive integer")
    if not isinstance(data["finished"], bool):
        problems.append("finished is not true or false")
    if parse_time(data["exported_at"]) is None:
        problems.append("exported_at is not an ISO 8601 time with a zone")
    if not isinstance(data["key"], str) or not data["key"].startswith("SHA256:"):
        problems.append("key is not a SHA256: fingerprint")
    for problem in problems:
        report.fail(row.at(f"the header's {problem}"))
    if problems:
        return {}
    report.game, report.game_type = data["game"], data["game_type"]
    report.finished = data["finished"]
    return data


def is_trailer(row: Row) -> bool:
    return row.data is not None and "chain" in row.data and "revision" not in row.data


def trailer_of(row: Row | None, report: Report) -> dict[str, Any]:
    if row is None:
        report.fail(
            "the trailer is missing: the last line is not {chain, events, seed}"
        )
        return {}
    data = row.data or {}
    if not _keys(row, TRAILER_KEYS, "trailer", report):
        return {}
    problems = []
    if not is_hex(data["chain"]):
        problems.append("chain is not a record digest (64 hex digits)")
    if not is_int(data["events"]) or data["events"] < 0:
        problems.append("events is not a count")
    seed = data["seed"]
    if seed is not None and not (isinstance(seed, str) and _HEX64.fullmatch(seed)):
        problems.append(f"seed is not null or {SEED_BYTES} bytes in hex")
    for problem in problems:
        report.fail(row.at(f"the trailer's {problem}"))
    return {} if problems else data


def event_line(row: Row, report: Report) -> bool:
    data = row.data
    if data is None or not _keys(row, EVENT_KEYS, "event line", report):
        return False
    checks = {
        "revision is not a positive integer": is_int(data["revision"])
        and data["revision"] >= 1,
        "time is not an ISO 8601 time with a zone": parse_time(data["time"])
        is not None,
        "actor is not a seat or null": data["actor"] is None
        or (is_int(data["actor"]) and data["actor"] >= 0),
        "move_number is not a count": is_int(data["move_number"])
        and data["move_number"] >= 0,
        "request_id is not a string": isinstance(data["request_id"], str),
        "type is not a string": isinstance(data["type"], str),
        "event is not an object": isinstance(data["event"], dict),
        "command is not an object or null": data["command"] is None
        or isinstance(data["command"], dict),
        "digest is not a record digest (64 hex digits)": is_hex(data["digest"]),
    }
    for problem, holds in checks.items():
        if not holds:
            report.fail(row.at(problem))
    return all(checks.values())


def _game_name(name: str) -> bool:
    text = name.removeprefix("games/")
    try:
        return name.startswith("games/") and str(UUID(text)) == text
    except ValueError:
        return False


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_hex(value: Any) -> bool:
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None
