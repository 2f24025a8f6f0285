"""The signature of every line of a record, checked against given public keys."""

from __future__ import annotations

from collections.abc import Sequence

from services.audit.chain import signed_message
from services.audit.lines import Row
from services.audit.report import Report
from services.signing import PublicKey


def check_signatures(
    report: Report,
    game: str,
    signer: str,
    rows: Sequence[Row],
    keys: Sequence[PublicKey],
) -> None:
    """Checks each line's signature; sets ``report.signature``.

    ``signer`` is the fingerprint the header names. A line whose signature does
    not hold was changed after the server signed it (or signed by another key):
    consecutive such lines are reported together, from the first.
    """
    if not keys:
        report.signature = "not checked (no --public-key given)"
        report.skip("signatures: no public key was given (--public-key)")
        return
    key = next((k for k in keys if k.fingerprint == signer), None)
    if key is None or not game:
        given = ", ".join(k.fingerprint for k in keys)
        report.signature = "invalid"
        report.fail(
            f"the record says it is signed by {signer or 'no key'}, which is not "
            f"a given public key ({given})"
        )
        return
    bad = [row for row in rows if not _holds(key, game, row)]
    for first, count in _runs(bad):
        after = {1: "", 2: " and the line after it"}.get(
            count, f" and the {count - 1} lines after it"
        )
        report.fail(
            first.at(
                f"the signature does not hold for this line{after}: changed "
                "after the server signed it"
            )
        )
    if bad:
        report.signature = f"invalid ({len(bad)} of {len(rows)} lines)"
        return
    report.signature = f"valid (key {key.fingerprint})"
    report.holds(f"every line is signed by {key.fingerprint}")


def _holds(key: PublicKey, game: str, row: Row) -> bool:
    data = row.data
    if data is None or not isinstance(data.get("signature"), str):
        return False
    return key.verifies(data["signature"], signed_message(game, data))


def _runs(rows: list[Row]) -> list[tuple[Row, int]]:
    runs: list[tuple[Row, int]] = []
    for row in rows:
        if runs and runs[-1][0].line + runs[-1][1] == row.line:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((row, 1))
    return runs


def check_receipts(
    report: Report, events: Sequence[Row], receipts: Sequence[tuple[int, str]]
) -> None:
    """Checks that the record holds each receipt's digest at its revision."""
    if not receipts:
        report.receipts = "none given"
        return
    digests = {row.data["revision"]: row.data["digest"] for row in events if row.data}
    matched = 0
    for revision, digest in receipts:
        held = digests.get(revision)
        if held is None:
            report.fail(
                f"revision {revision}: the record has no such revision, but a "
                f"receipt has digest {digest}"
            )
        elif held != digest:
            report.fail(
                f"revision {revision}: the receipt's digest {digest} is not the "
                f"record's {held}: the record was rewritten at or before this "
                "revision"
            )
        else:
            matched += 1
    report.receipts = f"{matched} of {len(receipts)} matched"
    if matched == len(receipts):
        report.holds(f"the record holds every receipt's digest ({matched})")
