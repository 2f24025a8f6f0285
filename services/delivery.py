"""Push delivery: each outbox notification POSTed to the deployment's gateway.

The gateway (``--notify-webhook``) forwards to APNs or FCM. Each notification
is one POST of a JSON object, with ``Idempotency-Key`` (the notification's key,
the same on every attempt) and ``X-Tabletop-Signature: sha256=<hex>``, an
HMAC-SHA256 of the body under the shared secret. A 2xx answer acknowledges it;
anything else, or no answer within ``TIMEOUT``, is tried again later, after
1, 2, 4, ... seconds up to ``MAX_BACKOFF``, for as long as it takes.

At least once, in order per player: a player's notifications go one after the
other, and a failed one holds back that player's later ones until it is
acknowledged. One process delivers at a time (``PlayersView.delivering``, an
advisory lock on PostgreSQL), so two processes never both send a notification;
a process that dies between a POST and its acknowledgement's record leaves
that notification to be sent again, with the same key. Players are delivered
to side by side, up to ``CONCURRENCY`` at once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from uuid import UUID

from services.log_clock import Ticker
from services.players_view import PlayersView, Stored

log = logging.getLogger(__name__)

TIMEOUT = 5.0  # seconds a gateway has to answer one POST
MAX_BACKOFF = timedelta(minutes=5)
BATCH = 500  # undelivered notifications read at a time
CONCURRENCY = 8  # players delivered to at once
SIGNATURE_HEADER = "X-Tabletop-Signature"
# Posts a body with headers; returns whether the gateway acknowledged it.
Post = Callable[[bytes, dict[str, str]], bool]


def body_of(stored: Stored) -> bytes:
    """Returns the JSON a notification is POSTed as (keys sorted, compact)."""
    notice = stored.notice
    document = {
        "id": stored.id,
        "idempotency_key": notice.key,
        "player": f"players/{notice.player_id}",
        "game": f"games/{notice.game_id}",
        "game_type": notice.game_type,
        "kind": notice.kind.value,
        "revision": notice.revision,
        "create_time": notice.at.isoformat(),
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def signature(secret: bytes, body: bytes) -> str:
    """Returns the signature header's value for a body."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def http_post(url: str) -> Post:
    """Returns a POST to ``url``: acknowledged by a 2xx answer in ``TIMEOUT``."""

    # A redirect is no acknowledgement: urllib would follow a 301, 302 or 303
    # with a GET (and the signature) to wherever it points, and count that
    # GET's 2xx as the POST's.
    opener = urllib.request.build_opener(_Unredirected)

    def post(body: bytes, headers: dict[str, str]) -> bool:
        # The operator's own URL, checked to be http(s) at start.
        request = urllib.request.Request(url, body, headers, method="POST")  # noqa: S310
        try:
            with opener.open(request, timeout=TIMEOUT) as answer:
                status: int = answer.status
        except (urllib.error.URLError, OSError, ValueError):
            return False
        return HTTPStatus.OK <= status < HTTPStatus.MULTIPLE_CHOICES

    return post


class _Unredirected(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: the 3xx answer is the gateway's answer."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        del args, kwargs


class Delivery(Ticker):
    """Sends what the outbox holds to the gateway, oldest first per player."""

    NAME = "push delivery"

    def __init__(
        self,
        view: PlayersView,
        post: Post,
        secret: bytes,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        super().__init__()
        self.view = view
        self._post = post
        self._secret = secret
        self._now = clock
        self._pool = ThreadPoolExecutor(CONCURRENCY, thread_name_prefix="tabletop-push")

    def tick(self) -> int:
        """Delivers what is due; returns how many the gateway acknowledged.

        One pass over the undelivered, oldest first: a player whose
        notification waits for a retry, or failed in this pass, is skipped to
        the pass's end, so however many of theirs wait, the others' go.
        """
        with self.view.delivering() as mine:
            if not mine:
                return 0  # another process delivers now
            acknowledged, after = 0, 0
            held: set[UUID] = set()
            while batch := self.view.undelivered(BATCH, after):
                after = batch[-1].id
                due = _due_by_player(batch, self._now(), held)
                queues = list(due.values())
                for queue, sent in zip(
                    queues, self._pool.map(self._deliver, queues), strict=True
                ):
                    acknowledged += sent
                    if sent < len(queue):
                        held.add(queue[0].notice.player_id)
            return acknowledged

    def _deliver(self, queue: Sequence[Stored]) -> int:
        """Sends one player's due notifications in order; stops at a failure."""
        sent = 0
        for stored in queue:
            body = body_of(stored)
            headers = {
                "Content-Type": "application/json",
                "Idempotency-Key": stored.notice.key,
                SIGNATURE_HEADER: signature(self._secret, body),
            }
            if not self._post(body, headers):
                wait = min(timedelta(seconds=2**stored.attempts), MAX_BACKOFF)
                self.view.retry_later(stored, self._now() + wait)
                log.info(
                    "push delivery: notification %d not acknowledged (attempt %d); "
                    "again in %ss",
                    stored.id,
                    stored.attempts + 1,
                    wait.total_seconds(),
                )
                return sent
            self.view.delivered([stored.id], self._now())
            sent += 1
        return sent


def _due_by_player(
    undelivered: Sequence[Stored], now: datetime, held: set[UUID]
) -> dict[UUID, list[Stored]]:
    """Returns each player's notifications to send now, in order: up to the
    first that waits for a retry (those after it wait with it, and the
    player joins ``held``)."""
    due: dict[UUID, list[Stored]] = {}
    for stored in undelivered:
        player = stored.notice.player_id
        if player in held:
            continue
        if stored.next_attempt is not None and stored.next_attempt > now:
            held.add(player)
            continue
        due.setdefault(player, []).append(stored)
    return due
