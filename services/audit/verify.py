"""Verification of an exported record, offline: ``verify(text) -> Report``.

Checks, in order, naming the line or revision of every failure: each line is
canonical JSON; the header, the event lines and the trailer are well-formed;
every line's signature holds under a given public key; the record holds every
given receipt; revisions run 1..N in order; every event and command decodes to
the game's own values; for a finished game the revealed seed matches the
commitment, every request re-decided from nothing gives exactly its recorded
events (``replay``), and every record digest recomputed under the seed is the
one the line states.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from services.audit.signatures import check_receipts, check_signatures
from services.audit.structure import check_digests, check_revisions, decode_entries
from services.signing import PublicKey


def verify(
    text: str | bytes,
    *,
    public_keys: Sequence[PublicKey] = (),
    receipts: Sequence[tuple[int, str]] = (),
) -> Report:
    """Returns what holds and what does not in an exported record.

    ``public_keys`` check the lines' signatures (none given: not checked);
    ``receipts`` are (revision, digest) pairs that the record must hold.
    """
    report = Report()
    _verify(report, text, public_keys, receipts)
    if receipts and report.chain != "valid":
        # Without the seed the digests cannot be recomputed: the record only
        # states them, and its holder of the key could state them over
        # other content. They bind once the game has finished.
        report.receipts += (
            " as the record states them; not binding until the digests can be "
            "recomputed (the game has finished)"
        )
        report.skip(
            "receipts: the record states the receipts' digests, but they cannot "
            "be recomputed before the game's seed is revealed"
        )
    return report


def _verify(
    report: Report,
    text: str | bytes,
    public_keys: Sequence[PublicKey],
    receipts: Sequence[tuple[int, str]],
) -> None:
    rows = parse_rows(text, report)
    if not rows:
        report.fail("the file is empty")
        return
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
    first = rows[0].data or {}
    check_signatures(
        report, str(first.get("game", "")), str(first.get("key", "")), rows, public_keys
    )
    check_receipts(report, events, receipts)
    before = len(report.failures)
    _stage(report, check_revisions, header, body, events, trailer)
    structural = len(report.failures) - before
    every_line = bool(body) and len(events) == len(body)
    entries = decode_entries(events, report, every_line=every_line)
    if entries is None or structural or not header:
        report.skip("re-decision: the record's structure is broken (see above)")
        return
    seed = _check_game(report, header, trailer, entries)
    if seed is None:
        report.chain = "not checked (the game's seed is secret or unproven)"
        report.skip(
            "record digests: they are keyed by the game's seed, which is revealed "
            "only when the game finishes"
        )
        return
    before = len(report.failures)
    _stage(report, check_digests, header, body, trailer, seed)
    report.chain = "valid" if len(report.failures) == before else "broken"


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
) -> str | None:
    """Checks the game, re-deciding it when it can; returns its proven seed (hex)."""
    created = entries[0].event if entries else None
    if not isinstance(created, tables.GameCreated):
        report.fail("revision 1 is not table.GameCreated")
        return None
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
        report.redecided = "not checked (the game has not finished)"
        return None
    seed = _check_seed(report, trailer, entries[0], created, endings)
    if seed is None:
        report.skip(
            "randomness and rules: without the committed seed nothing was re-decided"
        )
        replay(requests, None, report)
        report.redecided = "not checked (no proven seed)"
        return None
    before = len(report.failures)
    replay(requests, seed, report)
    count = len(requests)
    report.redecided = (
        f"all {count} re-decided" if len(report.failures) == before else "failed"
    )
    return seed.hex()


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
