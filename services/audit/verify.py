"""Verification of an exported record, offline: ``verify(text) -> Report``.

Checks, in order, naming the line or revision of every failure: each line is
canonical JSON; the header, the event lines and the trailer are well-formed;
revisions run 1..N in order; the hash chain holds and the trailer closes it;
every event and command decodes to the game's own values; for a finished game
the revealed seed matches the commitment, and every request re-decided from
nothing gives exactly its recorded events (``replay``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.common import table as tables
from domain.common.rng import commitment
from services.audit.lines import (
    event_line,
    header_of,
    is_trailer,
    parse_rows,
    trailer_of,
)
from services.audit.replay import Entry, replay, requests_of
from services.audit.report import Report
from services.audit.structure import check_chain, check_revisions, decode_entries


def verify(text: str | bytes) -> Report:
    """Returns what holds and what does not in an exported record."""
    report = Report()
    rows = parse_rows(text, report)
    if not rows:
        report.fail("the file is empty")
        return report
    header = header_of(rows[0], report)
    trailer_row = rows[-1] if len(rows) > 1 and is_trailer(rows[-1]) else None
    body = rows[1:-1] if trailer_row else rows[1:]
    trailer = trailer_of(trailer_row, report)
    events = [row for row in body if event_line(row, report)]
    report.events = len(body)
    if not report.failures:
        report.holds(
            "every line is canonical JSON; header, event lines and trailer are "
            "well-formed"
        )
    _stage(report, check_revisions, header, body, events, trailer)
    structural = len(report.failures)
    _stage(report, check_chain, header, body, trailer)
    every_line = bool(body) and len(events) == len(body)
    entries = decode_entries(events, report, every_line=every_line)
    if entries is None or structural:
        report.skip("re-decision: the record's structure is broken (see above)")
        return report
    _check_game(report, header, trailer, entries)
    return report


def _stage(report: Report, check: Callable[..., str], *args: Any) -> None:
    before = len(report.failures)
    passed = check(report, *args)
    if len(report.failures) == before and passed:
        report.holds(passed)


def _check_game(
    report: Report,
    header: dict[str, Any],
    trailer: dict[str, Any],
    entries: list[Entry],
) -> None:
    created = entries[0].event if entries else None
    if not isinstance(created, tables.GameCreated):
        report.fail("revision 1 is not table.GameCreated")
        return
    if header and header["game_type"] != created.game_type:
        report.fail(
            f"the header's game_type {header['game_type']!r} is not the game's "
            f"{created.game_type!r}"
        )
    endings = [e for e in entries if isinstance(e.event, tables.GameFinished)]
    finished = bool(endings)
    if header and header["finished"] != finished:
        report.fail(
            f"the header says finished={str(header['finished']).lower()}, but the "
            f"record {'ends with' if finished else 'has no'} GameFinished"
        )
    requests = requests_of(entries, report)
    if not finished:
        _check_unfinished(report, trailer, entries[0], created, requests)
        return
    seed = _check_seed(report, trailer, entries[0], created, endings)
    if seed is None:
        report.skip(
            "randomness and rules: without the committed seed nothing was re-decided"
        )
        replay(requests, None, report)
        return
    replay(requests, seed, report)


def _check_unfinished(
    report: Report,
    trailer: dict[str, Any],
    first: Entry,
    created: tables.GameCreated,
    requests: list[list[Entry]],
) -> None:
    before = len(report.failures)
    if trailer and trailer["seed"] is not None:
        report.fail("the trailer reveals a seed, but the game has not finished")
    if created.seed:
        report.fail(
            first.at("GameCreated holds the seed, but the game has not finished")
        )
    replay(requests, None, report)
    if len(report.failures) == before:
        report.holds(
            f"the seed stays secret; {len(requests)} requests fold into the game"
        )
    report.skip(
        "the game has not finished, so its seed is secret: the shuffles, draws and "
        "rule decisions could not be re-decided"
    )


def _check_seed(
    report: Report,
    trailer: dict[str, Any],
    first: Entry,
    created: tables.GameCreated,
    endings: list[Entry],
) -> bytes | None:
    revealed = trailer.get("seed")
    if not isinstance(revealed, str):
        report.fail("the game has finished, but the trailer reveals no seed")
        return None
    if commitment(bytes.fromhex(revealed)) != created.commitment:
        report.fail(
            f"the revealed seed does not match the commitment {created.commitment} "
            "published at revision 1"
        )
        return None
    if created.seed != revealed:
        report.fail(first.at("GameCreated holds another seed than the revealed one"))
    for ending in endings:
        if ending.event.seed != revealed:
            report.fail(ending.at("GameFinished reveals another seed than the trailer"))
    report.holds(
        f"the revealed seed matches the commitment {created.commitment[:16]}..."
    )
    return bytes.fromhex(revealed)
