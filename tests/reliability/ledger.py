"""What clients sent and heard, what the database holds, and whether they agree.

The check reads the event table with plain SQL rather than through the
application, so a bug in the store's own reading cannot hide a bug in its
writing. Every SubmitMove a client sent is a ``Submission``; after the run each
is compared with the rows stored under its request id.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import parse_qs, urlsplit

import grpc
from psycopg import sql

from services.request_ids import request_key
from tests.pg import connect

MOVE_TOPIC = "table.MovePlayed"


@dataclass
class Submission:
    """One SubmitMove request (one request_id) and the answer its client got."""

    request_id: str
    game: str
    expected_revision: int
    # Revisions of the events the reply carried; None until a reply arrived.
    replied: tuple[int, ...] | None = None
    # Code and ErrorInfo reason of a refusal.
    refused: tuple[grpc.StatusCode, str] | None = None
    refusal_metadata: dict[str, str] = field(default_factory=dict)
    # Calls of this request that got no answer (UNAVAILABLE, deadline).
    failed_calls: int = 0
    # Whether an answer came from another server than the first call went to.
    failed_over: bool = False
    # When the request was first sent and answered (time.monotonic()), and the
    # index of the server that answered.
    sent_at: float = 0.0
    answered_at: float = 0.0
    answered_by: int = -1


class Ledger:
    """The submissions of every client thread, shared under a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.submissions: list[Submission] = []

    def add(self, submission: Submission) -> None:
        """Records a submission before its first call, so none goes unchecked."""
        with self._lock:
            self.submissions.append(submission)

    def acknowledged(self) -> int:
        """Returns how many submissions got an accepting reply so far."""
        with self._lock:
            return sum(s.replied is not None for s in self.submissions)


@dataclass(frozen=True)
class Row:
    """One stored event: its game, revision, type, request and move number."""

    game: str
    revision: int
    topic: str
    request_key: str  # the stored key of the request's id (decision T11)
    move_number: int


def stored_rows(database: str) -> list[Row]:
    """Returns every event of the schema of a PostgreSQL URL, by game and revision."""
    schema = parse_qs(urlsplit(database).query)["schema"][0]
    query = sql.SQL(
        "SELECT originator_id, originator_version, topic, state FROM {}.{} "
        "ORDER BY originator_id, originator_version"
    ).format(sql.Identifier(schema), sql.Identifier("tabletop_events"))
    with connect() as connection:
        fetched = connection.execute(query).fetchall()
    rows = []
    for game, revision, topic, state in fetched:
        fields = json.loads(cast("bytes", state))
        rows.append(
            Row(
                f"games/{game}",
                cast("int", revision),
                str(topic),
                str(fields["request_id"]),
                int(fields["move_number"]),
            )
        )
    return rows


@dataclass
class Verdict:
    """The comparison of what clients heard with what was stored."""

    submitted: int = 0
    acknowledged: int = 0
    stored: int = 0
    refused: int = 0
    # Acknowledged, but its events are not all stored.
    lost: int = 0
    # Stored more than once (two MovePlayed), or stored although refused.
    duplicated: int = 0
    # Stored, but not as the reply said, or not as consecutive revisions.
    half_stored: int = 0
    # Games whose revisions or move numbers skip or repeat a value.
    gaps: int = 0
    # Moves stored under a request id no client sent.
    strangers: int = 0
    retried: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """Returns whether nothing was lost, repeated, torn or skipped."""
        return not self.problems


def verify(submissions: list[Submission], rows: list[Row]) -> Verdict:
    """Compares every submission with the stored rows; lists each disagreement."""
    verdict = Verdict(submitted=len(submissions))
    by_request: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if row.request_key:
            by_request[row.request_key].append(row)
    for submission in submissions:
        stored = by_request.get(request_key(submission.request_id), [])
        _check_submission(submission, stored, verdict)
    sent = {request_key(s.request_id) for s in submissions}
    for key, stored in by_request.items():
        moves = sum(row.topic == MOVE_TOPIC for row in stored)
        if moves and key not in sent:
            verdict.strangers += 1
            verdict.problems.append(f"request key {key}: stored, never sent")
    _check_games(rows, verdict)
    return verdict


def _check_submission(
    submission: Submission, stored: list[Row], verdict: Verdict
) -> None:
    name = f"{submission.game} request {submission.request_id}"
    revisions = tuple(row.revision for row in stored)
    moves = sum(row.topic == MOVE_TOPIC for row in stored)
    verdict.retried += submission.failed_calls > 0
    verdict.stored += bool(stored)
    if moves > 1:
        verdict.duplicated += 1
        verdict.problems.append(f"{name}: {moves} MovePlayed events")
    if submission.replied is not None:
        verdict.acknowledged += 1
        if not stored:
            verdict.lost += 1
            verdict.problems.append(f"{name}: acknowledged, not stored")
        elif revisions != submission.replied:
            verdict.half_stored += 1
            verdict.problems.append(
                f"{name}: replied {submission.replied}, stored {revisions}"
            )
    elif submission.refused is not None:
        verdict.refused += 1
        if stored:
            verdict.duplicated += 1
            verdict.problems.append(f"{name}: refused {submission.refused}, stored")
    else:
        verdict.problems.append(f"{name}: never answered")
    if stored and revisions != tuple(range(revisions[0], revisions[0] + len(stored))):
        verdict.half_stored += 1
        verdict.problems.append(f"{name}: stored at {revisions}, not consecutive")
    if stored and stored[0].topic != MOVE_TOPIC:
        verdict.half_stored += 1
        verdict.problems.append(f"{name}: its events do not start with MovePlayed")


def _check_games(rows: list[Row], verdict: Verdict) -> None:
    """Checks every game's revisions are 1..N and its moves numbered 1..M once."""
    revisions: dict[str, list[int]] = defaultdict(list)
    moves: dict[str, Counter[int]] = defaultdict(Counter)
    for row in rows:
        revisions[row.game].append(row.revision)
        if row.topic == MOVE_TOPIC:
            moves[row.game][row.move_number] += 1
    for game, seen in revisions.items():
        numbers = moves[game]
        if seen != list(range(1, len(seen) + 1)):
            verdict.gaps += 1
            verdict.problems.append(f"{game}: revisions are not 1..{len(seen)}")
        if sorted(numbers.elements()) != list(range(1, len(numbers) + 1)):
            verdict.gaps += 1
            listed = sorted(numbers.elements())
            verdict.problems.append(f"{game}: move numbers {listed}")
