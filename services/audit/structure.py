"""The record as a whole: revisions in order, the hash chain, decoded events."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from domain.common.commands import TABLE_COMMANDS
from services.audit.lines import Row, is_int, parse_time
from services.audit.replay import Entry
from services.audit.report import Report
from services.record_digest import genesis, next_digest, record_key
from services.records import CODEC

_DECODING = (ValueError, TypeError, KeyError, IndexError, AttributeError)
_COMMAND_TYPES = tuple(TABLE_COMMANDS.values())


def check_revisions(
    report: Report,
    header: dict[str, Any],
    body: Sequence[Row],
    events: Sequence[Row],
    trailer: dict[str, Any],
) -> str:
    revisions = [row.data["revision"] for row in events if row.data]
    if not body:
        report.fail("the record has no event lines")
    for earlier, later in pairwise(revisions):
        if later < earlier:
            report.fail(f"revision {earlier} appears before {later}")
    for revision, count in sorted(Counter(revisions).items()):
        if count > 1:
            report.fail(f"revision {revision} appears {count} times")
    last = max(revisions, default=0)
    for first, end in _gaps(sorted(set(revisions))):
        if first == end:
            report.fail(f"revision {first} is missing")
        else:
            report.fail(f"revisions {first} to {end} are missing")
    if header and header["revision"] != last:
        report.fail(
            f"the header says revision {header['revision']}, but the last event "
            f"line is revision {last}"
        )
    if trailer and trailer["events"] != len(body):
        report.fail(
            f"the trailer counts {trailer['events']} events, but the record has "
            f"{len(body)} event lines"
        )
    return f"revisions 1 to {last}, each once and in order, as header and trailer say"


def check_digests(
    report: Report,
    header: dict[str, Any],
    body: Sequence[Row],
    trailer: dict[str, Any],
    seed: str,
) -> str:
    """Recomputes every record digest from the content, keyed by the revealed seed.

    A line whose digest does not match is reported; the chain then goes on
    from the digest the line states, so only the lines changed are named.
    """
    game = header.get("game", "")
    key = record_key(seed)
    expected = genesis(key, game)
    last: Row | None = None
    for row in body:
        data = row.data or {}
        content = {k: v for k, v in data.items() if k not in ("digest", "signature")}
        try:
            recomputed = next_digest(key, expected, content)
        except UnicodeEncodeError:
            recomputed = ""
        if recomputed != data.get("digest"):
            report.fail(
                row.at(
                    "the digest does not match the record up to this revision "
                    "(the line, or one before it, was changed after the digest "
                    "was made)"
                )
            )
        expected, last = str(data.get("digest")), row
    if trailer and trailer["chain"] != expected:
        report.fail(
            "the trailer's chain is not the digest of the last event line"
            + (f" ({_name(last)})" if last else "")
        )
    return f"the record digests, recomputed under the revealed seed, up to {expected}"


def _name(row: Row) -> str:
    revision = row.data.get("revision") if row.data else None
    return f"revision {revision}" if is_int(revision) else f"line {row.line}"


def decode_entries(
    events: Sequence[Row], report: Report, *, every_line: bool
) -> list[Entry] | None:
    """Returns the event lines decoded, None when one cannot be.

    ``every_line`` says whether ``events`` are all the record's event lines.
    """
    entries: list[Entry] = []
    broken = False
    for row in events:
        data = row.data or {}
        try:
            event = CODEC.decode(data["event"])
            name = CODEC.name_of(event)
            command = CODEC.decode(data["command"])
            # Brought to today's shape (upcast, fields added since at their
            # defaults: docs/events.md), a recorded event or command must be
            # exactly what its value encodes to; a key no class defines stays.
            event_form = CODEC.current_form(data["event"])
            command_form = CODEC.current_form(data["command"])
        except _DECODING as error:
            report.fail(row.at(f"the event or command cannot be decoded: {error}"))
            broken = True
            continue
        if name != data["type"]:
            report.fail(row.at(f"type says {data['type']}, but the event is {name}"))
        elif CODEC.encode(event) != event_form:
            report.fail(row.at("the event holds fields the game does not define"))
        if command is not None and (
            not isinstance(command, _COMMAND_TYPES)
            or CODEC.encode(command) != command_form
        ):
            report.fail(row.at("the command is not a well-formed table command"))
        time = parse_time(data["time"])
        if time is None:  # checked with the line; keeps the type checker informed
            continue
        entries.append(
            Entry(
                row.line,
                data["revision"],
                time,
                data["actor"],
                data["move_number"],
                data["request_id"],
                event,
                command,
            )
        )
    if broken:
        return None
    if every_line:
        report.holds("every event and command decodes to the game's own values")
    return entries


def _gaps(revisions: list[int]) -> list[tuple[int, int]]:
    """Returns the ranges of revisions missing from 1 to the last of ``revisions``.

    Computed between neighbours, so that a made-up huge revision costs nothing.
    """
    gaps: list[tuple[int, int]] = []
    previous = 0
    for revision in revisions:
        if revision > previous + 1:
            gaps.append((previous + 1, revision - 1))
        previous = revision
    return gaps
