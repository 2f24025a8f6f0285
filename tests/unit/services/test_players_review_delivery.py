"""Push delivery against a gateway that refuses some players or redirects."""

from __future__ import annotations

import http.server
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from eventsourcing.persistence import Tracking

from services import delivery
from services.delivery import Delivery, http_post
from services.notifications import Kind, Notice
from services.players_view import MemoryPlayersView

NOW = datetime(2030, 1, 1, tzinfo=UTC)


def notices(player: uuid.UUID, count: int) -> list[Notice]:
    game = uuid.uuid4()
    return [
        Notice(player, game, "qwirkle", Kind.YOUR_TURN, revision, NOW)
        for revision in range(1, count + 1)
    ]


def test_a_player_the_gateway_refuses_holds_back_no_other_player(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(delivery, "BATCH", 3)
    refused, other = uuid.uuid4(), uuid.uuid4()
    view = MemoryPlayersView()
    others = notices(other, 2)
    view.apply([], [*notices(refused, 5), *others], Tracking("t", 1))
    sent: list[str] = []

    def post(body: bytes, headers: dict[str, str]) -> bool:
        if str(refused) in body.decode():
            return False  # e.g. the app was uninstalled: refused for good
        sent.append(headers["Idempotency-Key"])
        return True

    now = [NOW]
    push = Delivery(view, post, b"secret", clock=lambda: now[0])
    push.tick()
    now[0] += timedelta(milliseconds=1)  # the refused head waits for its retry
    push.tick()
    assert sent == [n.key for n in others]
    assert [s.notice.player_id for s in view.undelivered(100)] == [refused] * 5


@pytest.fixture
def redirecting() -> Iterator[tuple[str, list[str]]]:
    """Serves a gateway that redirects every POST to a page a GET finds."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(f"POST {self.path}")
            self.send_response(302)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            seen.append(f"GET {self.path}")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            del args

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/push", seen
    server.shutdown()
    server.server_close()


def test_a_redirect_acknowledges_nothing_and_is_not_followed(
    redirecting: tuple[str, list[str]],
) -> None:
    url, seen = redirecting
    assert http_post(url)(b"{}", {"Idempotency-Key": "k"}) is False
    assert seen == ["POST /push"]
