"""Players' sign-in attacked through a real server: loops that would grow an
account without end, races a phone's retries start, and made-up values.

One server for the module (PostgreSQL behind it), without a sign-in limit, so
that what stops a loop here is the account's own bound.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
from google.protobuf import field_mask_pb2
from psycopg import sql
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc, game_pb2, game_service_pb2

from domain.players.rules import MAX_DEVICES, RENAMES_A_DAY
from tests.e2e.client import auth, expect_error
from tests.e2e.conftest import Server, start_server
from tests.e2e.test_players import Provider
from tests.pg import connect, fresh_schema

pytestmark = pytest.mark.e2e

UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION

Stub = auth_service_pb2_grpc.AuthServiceStub


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    with fresh_schema() as url:
        running = start_server(url, dev=True, options=["--sign-in-rate-limit", "0"])
        yield running
        assert running.stop() == 0


@pytest.fixture(scope="module")
def players(served: Server) -> Stub:
    return auth_service_pb2_grpc.AuthServiceStub(served.channel)


def device() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")


def sign_in(
    players: Stub, device_id: str, token: str | None = None, name: str = ""
) -> auth_api.SignInWithDeviceResponse:
    request = auth_api.SignInWithDeviceRequest(device_id=device_id, display_name=name)
    return players.SignInWithDevice(
        request, metadata=auth(token) if token else None, timeout=10
    )


def rename(players: Stub, token: str, name: str) -> Any:
    request = auth_api.UpdatePlayerRequest(
        player=auth_api.PlayerAccount(name="players/me", display_name=name),
        update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
    )
    return players.UpdatePlayer(request, metadata=auth(token), timeout=10).player


def me(players: Stub, token: str) -> Any:
    request = auth_api.GetPlayerRequest(name="players/me")
    return players.GetPlayer(request, metadata=auth(token), timeout=10).player


# --- loops that would grow an account ---


def test_a_rename_loop_is_refused_after_a_few_a_day(players: Stub) -> None:
    """Every rename is an event of the account, which each sign-in, refresh and
    table view folds; at the per-player call rate a loop would make that fold
    cost the server seconds within hours."""
    session = sign_in(players, device(), name="Ana").session
    for number in range(RENAMES_A_DAY):
        assert rename(players, session.access_token, f"Ana {number}").display_name
    code, reason, _ = expect_error(rename, players, session.access_token, "Ana X")
    assert (code, reason) == (FAILED_PRECONDITION, "TOO_MANY_RENAMES")
    # Sending the name it has again changes nothing and is not refused.
    last = f"Ana {RENAMES_A_DAY - 1}"
    assert rename(players, session.access_token, last).display_name == last


def test_a_link_loop_stops_at_the_device_cap(players: Stub) -> None:
    session = sign_in(players, device()).session
    for _ in range(MAX_DEVICES - 1):
        sign_in(players, device(), session.access_token)
    spare = device()
    code, reason, _ = expect_error(sign_in, players, spare, session.access_token)
    assert (code, reason) == (FAILED_PRECONDITION, "TOO_MANY_DEVICES")
    assert me(players, session.access_token).device_count == MAX_DEVICES
    # The refused device was not claimed: it signs in as a player of its own.
    assert sign_in(players, spare).created


# --- a phone's retries racing each other ---


def test_a_first_sign_in_sent_several_times_at_once_makes_one_player(
    players: Stub,
) -> None:
    """A phone that retries its first sign-in while the first attempt is under
    way must get one player, with its device counted, and no refusal."""
    with ThreadPoolExecutor(max_workers=6) as pool:
        for _ in range(5):
            answers = list(pool.map(sign_in, [players] * 6, [device()] * 6))
            names = {answer.session.player.name for answer in answers}
            assert len(names) == 1
            assert sum(answer.created for answer in answers) >= 1
            token = answers[0].session.access_token
            assert me(players, token).device_count == 1


def test_refreshes_of_one_token_sent_at_once_all_get_the_same_next_token(
    players: Stub,
) -> None:
    session = sign_in(players, device()).session
    request = auth_api.RefreshSessionRequest(refresh_token=session.refresh_token)
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(
            pool.map(lambda _: players.RefreshSession(request, timeout=10), range(6))
        )
    assert len({answer.session.refresh_token for answer in answers}) == 1


# --- made-up values ---


def test_other_streams_ids_are_no_refresh_tokens(served: Server, players: Stub) -> None:
    """A refresh token names its stream: a player's, a sign-in's or a game's id
    in its place, with any secret, buys nothing and reads as an unknown token."""
    session = sign_in(players, device()).session
    player = uuid.UUID(session.player.name.removeprefix("players/"))
    created = served.stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Guest",
        ),
        timeout=10,
    )
    game = uuid.UUID(created.game.name.removeprefix("games/"))
    secret = session.refresh_token.rsplit(".", 1)[1]
    for stream in (player, game):
        forged = f"rt1.{stream.hex}.{secret}"
        for call, request in (
            (players.RefreshSession, auth_api.RefreshSessionRequest),
            (players.SignOut, auth_api.SignOutRequest),
        ):
            code, reason, _ = expect_error(
                call, request(refresh_token=forged), timeout=10
            )
            assert (code, reason) == (UNAUTHENTICATED, "INVALID_REFRESH_TOKEN")
    # The real token still works: nothing above ended its sign-in.
    players.RefreshSession(
        auth_api.RefreshSessionRequest(refresh_token=session.refresh_token), timeout=10
    )


def test_an_access_token_is_no_refresh_token_and_a_seat_token_no_session(
    served: Server, players: Stub
) -> None:
    session = sign_in(players, device()).session
    code, _, _ = expect_error(
        players.RefreshSession,
        auth_api.RefreshSessionRequest(refresh_token=session.access_token),
        timeout=10,
    )
    assert code in {grpc.StatusCode.INVALID_ARGUMENT, UNAUTHENTICATED}
    seat = served.stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Guest",
        ),
        timeout=10,
    ).seat_token
    code, reason, _ = expect_error(
        players.GetPlayer,
        auth_api.GetPlayerRequest(name="players/me"),
        metadata=auth(seat),
        timeout=10,
    )
    assert (code, reason) == (UNAUTHENTICATED, "MISSING_CREDENTIALS")


# --- what the log keeps of a person ---


def test_the_log_holds_no_name_identity_or_device_of_a_signed_in_player(
    tmp_path: Path,
) -> None:
    """Everything a person brings (the provider's name and subject, a device
    id, a chosen name, the name sent when joining) is sealed or hashed: none
    of it, nor the index's hash of the device, is in the events in clear."""
    provider = Provider(tmp_path)
    subject = f"subject-{uuid.uuid4().hex}"
    phone = device()
    secrets_of_a_person = [
        "Zelda Quux",  # the ID token's name claim
        subject,
        phone,
        hashlib.sha256(b"tabletop/device/v1\x00" + phone.encode()).hexdigest(),
        "Yorick Plum",  # the account's name after a rename
        "Xavier Decoy",  # the display_name of a join, ignored
    ]
    with fresh_schema() as url:
        options = ["--oidc-providers", str(provider.config)]
        running = start_server(url, dev=True, options=options)
        try:
            stub = auth_service_pb2_grpc.AuthServiceStub(running.channel)
            session = stub.SignInWithIdToken(
                auth_api.SignInWithIdTokenRequest(
                    id_token=provider.id_token(subject, name="Zelda Quux")
                ),
                timeout=10,
            ).session
            assert session.player.display_name == "Zelda Quux"
            sign_in(stub, phone, session.access_token)
            rename(stub, session.access_token, "Yorick Plum")
            game = running.stub.CreateGame(
                game_service_pb2.CreateGameRequest(
                    game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
                    display_name="Host",
                ),
                timeout=10,
            ).game.name
            running.stub.JoinGame(
                game_service_pb2.JoinGameRequest(
                    name=game, display_name="Xavier Decoy"
                ),
                metadata=auth(session.access_token),
                timeout=10,
            )
        finally:
            assert running.stop() == 0
        schema = url.rsplit("schema=", 1)[1]
        with connect() as connection:
            rows = connection.execute(
                sql.SQL("SELECT topic, state FROM {}.tabletop_events").format(
                    sql.Identifier(schema)
                )
            ).fetchall()
    stored = b"\n".join(cast("bytes", state) for _, state in rows)
    assert {topic for topic, _ in rows} >= {"player.PlayerRenamed"}
    assert b'"Host"' in stored  # a guest's name is in clear: the search finds text
    for text in secrets_of_a_person:
        assert text.encode() not in stored, text
