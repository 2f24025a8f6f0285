"""The HTTP port: the API over Connect and gRPC-Web, its limits, CORS and the page.

Each RPC answers there as on the gRPC port, through the same handlers and
guards: the same games, the same errors with the same ``ErrorInfo``, the same
credentials, one rate limit per client across both ports. What only the HTTP
port has is checked as an attacker would try it: bodies too large to read,
compressed bodies, ``GET`` links to calls, other sites' pages (CORS), a forged
``X-Forwarded-For``.
"""

from __future__ import annotations

import http.client
import secrets
import socket
import time
from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import grpc
import pytest
from google.protobuf import json_format
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api

from services.api.limits import MALFORMED_CHARGE
from tests.e2e.client import create_qwirkle, error_of, get, seat_of, start_two_seats
from tests.e2e.conftest import Server, start_server
from tests.e2e.http_client import (
    HttpRpcError,
    connect_stream,
    connect_unary,
    frame,
    grpc_web_unary,
    post,
)

SERVICE = "/tabletop.v1.GameService"
FRIEND = "https://friends.example"
STRANGER = "https://stranger.example"
BURST = 3


@pytest.fixture
def served(postgres_url: str) -> Iterator[Server]:
    """Yields a server with its HTTP port, allowing one other origin."""
    running = start_server(
        postgres_url,
        dev=True,
        http=True,
        operator_token=secrets.token_hex(16),
        options=["--http-allowed-origin", FRIEND],
    )
    yield running
    assert running.stop() == 0


def _url(server: Server) -> str:
    assert server.http_url is not None
    return server.http_url


def _refusal(call: object) -> HttpRpcError:
    assert callable(call)
    with pytest.raises(HttpRpcError) as refused:
        call()
    return refused.value


def test_a_game_made_over_connect_is_the_game_grpc_shows(served: Server) -> None:
    url = _url(served)
    request = api.CreateGameRequest(
        game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
        display_name="Ana",
        request_id="11111111-2222-4333-8444-555555555555",
    )
    created = connect_unary(
        url, f"{SERVICE}/CreateGame", request, api.CreateGameResponse
    )
    name = created.game.name
    assert created.seat_token
    over_grpc = get(served.stub, name, created.seat_token)
    for use_json in (False, True):
        over_http = connect_unary(
            url,
            f"{SERVICE}/GetGame",
            api.GetGameRequest(name=name),
            api.GetGameResponse,
            token=created.seat_token,
            use_json=use_json,
        ).game
        assert over_http == over_grpc
    over_web = grpc_web_unary(
        url,
        f"{SERVICE}/GetGame",
        api.GetGameRequest(name=name),
        api.GetGameResponse,
        token=created.seat_token,
    ).game
    assert over_web == over_grpc
    # A retry of the same request id over gRPC is the same call: idempotency
    # keys are shared by the ports.
    again = served.stub.CreateGame(request, timeout=10)
    assert again.game.name == name


def test_a_refusal_has_the_same_code_message_and_error_info_everywhere(
    served: Server,
) -> None:
    url = _url(served)
    bad = api.GetGameRequest(name="games/not-a-game")
    with pytest.raises(grpc.RpcError) as over_grpc:
        served.stub.GetGame(bad, timeout=10)
    code, reason, metadata = error_of(over_grpc.value)
    message = over_grpc.value.details()
    refusals = [
        _refusal(
            lambda use_json=use_json: connect_unary(
                url, f"{SERVICE}/GetGame", bad, api.GetGameResponse, use_json=use_json
            )
        )
        for use_json in (False, True)
    ]
    refusals.append(
        _refusal(
            lambda: grpc_web_unary(url, f"{SERVICE}/GetGame", bad, api.GetGameResponse)
        )
    )
    for refusal in refusals:
        assert refusal.code == code.name.lower()
        assert refusal.message == message
        info = refusal.error_info()
        assert info is not None
        assert (info.reason, info.domain) == (reason, "tabletop.games")
        assert dict(info.metadata) == metadata
    assert refusals[0].http_status == 400  # Connect maps the code to HTTP


def test_a_seat_token_in_the_authorization_header_acts_for_its_seat(
    served: Server,
) -> None:
    url = _url(served)
    name, tokens = start_two_seats(served.stub)
    game = get(served.stub, name, tokens[0])
    legal = connect_unary(
        url,
        f"{SERVICE}/ListLegalMoves",
        api.ListLegalMovesRequest(name=name, page_size=1),
        api.ListLegalMovesResponse,
        token=tokens[seat_of(game.current_player)],
    )
    assert len(legal.moves) == 1
    made_up = _refusal(
        lambda: connect_unary(
            url,
            f"{SERVICE}/GetGame",
            api.GetGameRequest(name=name),
            api.GetGameResponse,
            token="made-up-token",
        )
    )
    with pytest.raises(grpc.RpcError) as over_grpc:
        served.stub.GetGame(
            api.GetGameRequest(name=name),
            metadata=(("authorization", "Bearer made-up-token"),),
            timeout=10,
        )
    assert (made_up.code, made_up.reason) == (
        error_of(over_grpc.value)[0].name.lower(),
        error_of(over_grpc.value)[1],
    )


def test_undecodable_requests_are_refused_as_on_the_grpc_port(served: Server) -> None:
    url = _url(served)
    path = f"{SERVICE}/SubmitMove"
    garbage = b"\xff\xff\xff"
    binary = post(url, path, garbage, [("content-type", "application/proto")])
    json_body = post(url, path, b'{"name": ', [("content-type", "application/json")])
    for answer in (binary, json_body):
        assert answer.status == 400
        assert b"UNDECODABLE_REQUEST" in answer.body
        assert b"tabletop.v1.SubmitMoveRequest" in answer.body
    web = post(
        url,
        path,
        frame(garbage),
        [("content-type", "application/grpc-web+proto"), ("x-grpc-web", "1")],
    )
    assert b"grpc-status: 3\r\n" in web.body  # in the trailer frame
    assert b"tabletop.v1.SubmitMoveRequest%20message" in web.body


def test_undecodable_requests_over_http_are_rate_limited(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "0.5")
    monkeypatch.setenv("TABLETOP_RATE_BURST", str(BURST * MALFORMED_CHARGE))
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        answers = [
            post(
                url,
                f"{SERVICE}/SubmitMove",
                b"\xff\xff",
                [("content-type", "application/proto")],
            )
            for _ in range(BURST + 1)
        ]
    finally:
        assert server.stop() == 0
    assert [b"UNDECODABLE_REQUEST" in a.body for a in answers[:BURST]] == [True] * BURST
    assert b"RATE_LIMITED" in answers[BURST].body
    assert answers[BURST].status == 429


def test_one_rate_limit_covers_both_ports_and_no_forwarded_address_escapes_it(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_RATE_LIMIT", "0.5")
    monkeypatch.setenv("TABLETOP_RATE_BURST", str(BURST))
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        for n in range(BURST):
            connect_unary(
                url,
                f"{SERVICE}/ListGameTypes",
                api.ListGameTypesRequest(),
                api.ListGameTypesResponse,
                # Each claims another client: the server believes none.
                headers=[
                    ("x-forwarded-for", f"203.0.113.{n}"),
                    ("forwarded", f"for=198.51.100.{n}"),
                ],
            )
        with pytest.raises(grpc.RpcError) as refused:
            server.stub.ListGameTypes(api.ListGameTypesRequest(), timeout=10)
    finally:
        assert server.stop() == 0
    assert error_of(refused.value)[1] == "RATE_LIMITED"


def test_a_body_over_the_limit_is_refused_before_it_is_read(served: Server) -> None:
    url = _url(served)
    path = f"{SERVICE}/CreateGame"
    big = b"\x0a" + b"\x80" * 200_000
    declared = post(url, path, big, [("content-type", "application/proto")])
    assert declared.status == 429
    assert b"REQUEST_TOO_LARGE" in declared.body
    # Without a declared length (chunked), it is cut off once read past the limit.
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname or "", parts.port, timeout=10
    )
    try:
        connection.request(
            "POST",
            path,
            body=iter([big[i : i + 16_384] for i in range(0, len(big), 16_384)]),
            headers={"content-type": "application/proto"},
            encode_chunked=True,
        )
        chunked = connection.getresponse()
        assert chunked.status == 429
        assert b"REQUEST_TOO_LARGE" in chunked.read()
    finally:
        connection.close()
    web = post(
        url,
        path,
        frame(big),
        [("content-type", "application/grpc-web+proto"), ("x-grpc-web", "1")],
    )
    assert b"grpc-status: 8\r\n" in web.body  # RESOURCE_EXHAUSTED, in the trailers
    assert b"larger%20than%20the%2064%20KiB" in web.body


def test_a_call_cannot_be_made_by_a_link_or_a_compressed_body(served: Server) -> None:
    url = _url(served)
    request = api.CreateGameRequest(
        game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE), display_name="Ana"
    )
    message = quote(json_format.MessageToJson(request))
    link = post(
        url, f"{SERVICE}/CreateGame?encoding=json&message={message}", b"", method="GET"
    )
    assert link.status == 405
    assert link.headers["allow"] == "POST"
    compressed = post(
        url,
        f"{SERVICE}/CreateGame",
        b"\x1f\x8b",
        [("content-type", "application/proto"), ("content-encoding", "gzip")],
    )
    assert compressed.status != 200
    assert b"compression" in compressed.body
    listed = served.stub.ListGames(api.ListGamesRequest(), timeout=10)
    assert not listed.games  # neither made a game


def test_only_configured_origins_may_call_from_their_pages(served: Server) -> None:
    url = _url(served)
    path = f"{SERVICE}/ListGameTypes"
    asked = [
        ("access-control-request-method", "POST"),
        (
            "access-control-request-headers",
            "authorization,content-type,connect-protocol-version",
        ),
    ]
    friend = post(url, path, b"", [("origin", FRIEND), *asked], method="OPTIONS")
    assert friend.status == 200
    assert friend.headers["access-control-allow-origin"] == FRIEND
    assert "authorization" in friend.headers["access-control-allow-headers"].lower()
    stranger = post(url, path, b"", [("origin", STRANGER), *asked], method="OPTIONS")
    assert stranger.status == 400
    assert "access-control-allow-origin" not in stranger.headers
    body = api.ListGameTypesRequest().SerializeToString()
    headers = [("content-type", "application/proto")]
    called = post(url, path, body, [("origin", FRIEND), *headers])
    assert called.headers["access-control-allow-origin"] == FRIEND
    assert "grpc-status" in called.headers["access-control-expose-headers"]
    # The browser keeps a stranger's page from reading the answer.
    assert (
        "access-control-allow-origin"
        not in post(url, path, body, [("origin", STRANGER), *headers]).headers
    )


def test_stream_game_over_connect_sends_the_snapshot_and_counts_as_a_stream(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_MAX_STREAMS_PER_ADDRESS", "1")
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        name = create_qwirkle(server.stub).game.name
        request = api.StreamGameRequest(name=name, snapshot_first=True)
        parts = urlsplit(url)
        held = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
        held.request(
            "POST",
            f"{SERVICE}/StreamGame",
            body=frame(request.SerializeToString()),
            headers={"content-type": "application/connect+proto"},
        )
        first = held.getresponse()
        assert first.status == 200
        # The held stream is the address's one: a second is refused, over
        # either port.
        messages, ended = connect_stream(
            url, f"{SERVICE}/StreamGame", request, api.StreamGameResponse
        )
        assert not messages
        assert ended is not None
        assert (ended.code, ended.reason) == ("resource_exhausted", "TOO_MANY_STREAMS")
        with pytest.raises(grpc.RpcError) as refused:
            next(server.stub.StreamGame(request, timeout=10))
        assert error_of(refused.value)[1] == "TOO_MANY_STREAMS"
        held.close()
    finally:
        assert server.stop() == 0


def test_a_stream_ends_unavailable_when_the_server_stops(served: Server) -> None:
    url = _url(served)
    name = create_qwirkle(served.stub).game.name
    request = api.StreamGameRequest(name=name, snapshot_first=True)
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname or "", parts.port, timeout=10
    )
    connection.request(
        "POST",
        f"{SERVICE}/StreamGame",
        body=frame(request.SerializeToString()),
        headers={"content-type": "application/connect+proto"},
    )
    response = connection.getresponse()
    snapshot = response.read(5)
    assert len(snapshot) == 5
    response.read(int.from_bytes(snapshot[1:], "big"))
    served.process.send_signal(15)
    rest = response.read()
    connection.close()
    assert b"unavailable" in rest
    assert b"SERVER_SHUTTING_DOWN" in rest or b"U0VSVkVSX1NIVVRUSU5HX0RPV04" in rest
    served.process.wait(timeout=30)


def test_the_page_is_served_at_the_root_and_at_every_game_link(served: Server) -> None:
    url = _url(served)
    root = post(url, "/", b"", method="GET")
    assert root.status == 200
    assert root.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in root.headers["content-security-policy"]
    assert root.headers["x-content-type-options"] == "nosniff"
    game = post(url, "/games/2f0c5d6e-0000-4000-8000-000000000000", b"", method="GET")
    assert (game.status, game.body) == (200, root.body)
    assert post(url, "/assets/app.js", b"", method="GET").status == 200
    for missing in (
        "/assets/../../../pyproject.toml",
        "/%2e%2e/pyproject.toml",
        "/favicon.ico",
    ):
        assert post(url, missing, b"", method="GET").status == 404
    assert post(url, "/", b"x", method="POST").status == 405


def _silent(url: str) -> socket.socket:
    parts = urlsplit(url)
    return socket.create_connection((parts.hostname or "", parts.port or 0), timeout=10)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (reading what it sent)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    return True


def test_a_request_that_does_not_arrive_whole_in_time_loses_its_connection(
    postgres_url: str,
) -> None:
    server = start_server(
        postgres_url,
        dev=True,
        http=True,
        heartbeat_seconds=0.5,
        options=["--idle-seconds", "1"],
    )
    try:
        url = _url(server)
        silent = _silent(url)
        headers = _silent(url)
        headers.sendall(
            b"POST /tabletop.v1.GameService/GetGame HTTP/1.1\r\nHost: x\r\n"
        )
        body = _silent(url)
        body.sendall(
            b"POST /tabletop.v1.GameService/GetGame HTTP/1.1\r\nHost: x\r\n"
            b"content-type: application/proto\r\ncontent-length: 100\r\n\r\nab"
        )
        for sock in (silent, headers, body):
            assert _closed_within(sock, 5)
            sock.close()
        # A stream is a request that arrived: it outlives the deadline.
        name = create_qwirkle(server.stub).game.name
        messages, ended = connect_stream(
            url,
            f"{SERVICE}/StreamGame",
            api.StreamGameRequest(name=name, snapshot_first=True),
            api.StreamGameResponse,
            limit=4,  # the snapshot, caught up, then heartbeats every 0.5 s
        )
        assert ended is None
        assert [m.WhichOneof("item") for m in messages] == [
            "snapshot",
            "caught_up",
            "heartbeat",
            "heartbeat",
        ]
    finally:
        assert server.stop() == 0


def test_one_address_holds_at_most_its_share_of_connections(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_MAX_CONNECTIONS_PER_ADDRESS", "3")
    server = start_server(postgres_url, dev=True, http=True)
    try:
        url = _url(server)
        held = [_silent(url) for _ in range(3)]
        time.sleep(0.2)
        refused = post(url, "/", b"", method="GET")
        assert refused.status == 503
        assert b"Too many connections" in refused.body
        held.pop().close()
        time.sleep(0.2)
        assert post(url, "/", b"", method="GET").status == 200
        for sock in held:
            sock.close()
    finally:
        assert server.stop() == 0


def test_server_processes_share_the_http_port(postgres_url: str) -> None:
    server = start_server(postgres_url, dev=True, http=True, processes=2)
    try:
        url = _url(server)
        created = connect_unary(
            url,
            f"{SERVICE}/CreateGame",
            api.CreateGameRequest(
                game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
                display_name="Ana",
            ),
            api.CreateGameResponse,
        )
        for _ in range(6):  # each a new connection: the kernel spreads them
            game = connect_unary(
                url,
                f"{SERVICE}/GetGame",
                api.GetGameRequest(name=created.game.name),
                api.GetGameResponse,
            ).game
            assert game.name == created.game.name
    finally:
        assert server.stop() == 0
