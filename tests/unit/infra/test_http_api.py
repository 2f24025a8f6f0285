"""The HTTP port's application without a network: routing, the page, origins."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from infra.http_api import http_app
from infra.settings import Settings, SettingsError, origin
from services.api.bridge import metadata_of, peer_of


def _get(
    app: Any, path: str, method: str = "GET"
) -> tuple[int, dict[bytes, bytes], bytes]:
    """Runs one request through ``app``; returns status, headers and body."""
    sent: list[dict[str, Any]] = []
    asked: list[bool] = []
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if not asked:
            asked.append(True)
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()  # a response watching for the client's going waits
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            done.set()

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 5000),
    }
    asyncio.run(app(scope, receive, send))
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), body


def test_without_a_built_page_the_root_says_how_to_build_it(tmp_path: Path) -> None:
    app = http_app({}, 1024, web_root=tmp_path)
    status, _, body = _get(app, "/")
    assert status == 404
    assert b"make web" in body
    assert _get(app, "/games/abc")[2] == body


def test_a_built_page_is_served_with_its_policy_and_at_game_links(
    tmp_path: Path,
) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>")
    app = http_app({}, 1024, web_root=tmp_path)
    status, headers, body = _get(app, "/games/0b1c")
    assert (status, body) == (200, b"<!doctype html><title>t</title>")
    assert b"frame-ancestors 'none'" in headers[b"content-security-policy"]
    assert _get(app, "/nothing-here.js")[0] == 404
    assert _get(app, "/", method="DELETE")[0] == 405
    assert _get(app, "/tabletop.v1.GameService/GetGame")[0] == 405  # GET


@pytest.mark.parametrize(
    "value",
    [
        "https://friends.example",
        "http://localhost:3000",
        "HTTPS://Friends.Example",
        "*",
    ],
)
def test_an_origin_is_a_scheme_a_host_and_a_port(value: str) -> None:
    assert origin(value) == (value.lower() if value != "*" else "*")


@pytest.mark.parametrize(
    "value",
    [
        "friends.example",
        "ftp://friends.example",
        "https://friends.example/",
        "https://friends.example/path",
        "https://user@friends.example",
        "https://friends.example:99999",
        "https://",
        "",
    ],
)
def test_anything_else_is_refused_as_an_origin(value: str) -> None:
    with pytest.raises(SettingsError, match="expected an origin"):
        origin(value)


def test_origins_come_from_the_environment_too() -> None:
    settings = Settings.from_env(
        {
            "TABLETOP_HTTP_LISTEN": "127.0.0.1:8080",
            "TABLETOP_HTTP_ALLOWED_ORIGINS": "https://a.example http://b.example:81",
        }
    )
    assert settings.http_listen == "127.0.0.1:8080"
    assert settings.http_allowed_origins == ("https://a.example", "http://b.example:81")
    assert Settings.from_env({}).http_listen is None  # off by default


def test_a_client_address_is_named_as_grpc_names_a_peer() -> None:
    assert peer_of("203.0.113.7:51234") == "ipv4:203.0.113.7:51234"
    assert peer_of("2001:db8::1:443") == "ipv6:[2001:db8::1]:443"
    assert peer_of(None) == "unknown"


def test_metadata_is_the_callers_headers_but_the_protocols_own() -> None:
    metadata = metadata_of(
        [
            ("authorization", "Bearer t"),
            ("content-type", "application/proto"),
            ("connect-timeout-ms", "5000"),
            ("x-trace-bin", "AAE="),
            ("x-broken-bin", "***"),
        ]
    )
    assert metadata == (("authorization", "Bearer t"), ("x-trace-bin", b"\x00\x01"))
