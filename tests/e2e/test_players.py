"""Players sign in, and their sessions act for their seats, through a real server.

One server for the module (PostgreSQL behind it), trusting an OpenID issuer
whose keys the test made: ID tokens are signed here as a provider would.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from google.protobuf import field_mask_pb2
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc, game_pb2, game_service_pb2
from tabletop.v1 import game_service_pb2_grpc as game_grpc

from tests.e2e.client import (
    auth,
    error_of,
    expect_error,
    export,
    legal_moves,
    verified_export,
)
from tests.e2e.conftest import Server, start_server
from tests.pg import fresh_schema

pytestmark = pytest.mark.e2e

ISSUER = "https://id.example.test"
AUDIENCE = "tabletop-phone-app"
KEY_ID = "test-key-1"
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
INVALID = grpc.StatusCode.INVALID_ARGUMENT


class Provider:
    """An OpenID provider of the test's own: it signs ID tokens with its key."""

    def __init__(self, directory: Path) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        public.update(kid=KEY_ID, use="sig", alg="RS256")
        (directory / "jwks.json").write_text(json.dumps({"keys": [public]}))
        self.config = directory / "providers.json"
        provider = {"issuer": ISSUER, "audiences": [AUDIENCE], "jwks": "jwks.json"}
        self.config.write_text(json.dumps({"providers": [provider]}))

    def id_token(self, subject: str, **claims: Any) -> str:
        now = int(time.time())
        payload = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": subject,
            "iat": now,
            "exp": now + 600,
            **claims,
        }
        return jwt.encode(payload, self.key, "RS256", headers={"kid": KEY_ID})


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Provider:
    return Provider(tmp_path_factory.mktemp("oidc"))


@pytest.fixture(scope="module")
def served(provider: Provider) -> Iterator[Server]:
    with fresh_schema() as url:
        # The tests sign in some forty players at once: no sign-in limit here.
        options = ["--oidc-providers", str(provider.config)]
        options += ["--sign-in-rate-limit", "0"]
        running = start_server(
            url, dev=True, options=options, operator_token=secrets.token_hex(16)
        )
        yield running
        assert running.stop() == 0


@pytest.fixture(scope="module")
def players(served: Server) -> auth_service_pb2_grpc.AuthServiceStub:
    return auth_service_pb2_grpc.AuthServiceStub(served.channel)


def device() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")


def sign_in(
    players: auth_service_pb2_grpc.AuthServiceStub,
    device_id: str | None = None,
    name: str = "",
    token: str | None = None,
) -> auth_api.SignInWithDeviceResponse:
    request = auth_api.SignInWithDeviceRequest(
        device_id=device() if device_id is None else device_id, display_name=name
    )
    return players.SignInWithDevice(
        request, metadata=auth(token) if token else None, timeout=10
    )


def me(players: auth_service_pb2_grpc.AuthServiceStub, token: str) -> Any:
    request = auth_api.GetPlayerRequest(name="players/me")
    return players.GetPlayer(request, metadata=auth(token), timeout=10).player


def refresh(players: auth_service_pb2_grpc.AuthServiceStub, token: str) -> Any:
    request = auth_api.RefreshSessionRequest(refresh_token=token)
    return players.RefreshSession(request, timeout=10).session


# --- sign-in ---


def test_a_device_signs_in_as_the_same_player_every_time(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    device_id = device()
    first = sign_in(players, device_id, "Ana")
    again = sign_in(players, device_id, "ignored")
    assert first.created
    assert not again.created
    assert first.session.player.name == again.session.player.name
    assert first.session.player.display_name == "Ana"
    assert again.session.player.display_name == "Ana"
    assert me(players, again.session.access_token).device_count == 1
    assert first.session.refresh_token != again.session.refresh_token


def test_a_new_player_without_a_name_gets_one(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    account = sign_in(players).session.player
    assert account.display_name == "Player " + account.name.removeprefix("players/")[:4]


@pytest.mark.parametrize(
    "device_id", ["", "short", "x" * 21, "a" * 201, "white space in it is bad0"]
)
def test_a_device_id_of_too_few_bits_or_odd_characters_is_refused(
    players: auth_service_pb2_grpc.AuthServiceStub, device_id: str
) -> None:
    code, reason, _ = expect_error(sign_in, players, device_id)
    assert (code, reason) in {
        (INVALID, "INVALID_DEVICE_ID"),
        (INVALID, "FIELD_TOO_LONG"),
    }


def test_a_second_device_links_to_the_signed_in_player(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    phone = sign_in(players, name="Cy").session
    tablet = device()
    linked = sign_in(players, tablet, token=phone.access_token)
    assert linked.session.player.name == phone.player.name
    assert not linked.created
    assert me(players, phone.access_token).device_count == 2
    # The tablet alone now signs in as the same player.
    assert sign_in(players, tablet).session.player.name == phone.player.name


def test_a_device_of_another_player_is_not_linked(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    theirs = device()
    sign_in(players, theirs)
    mine = sign_in(players).session
    code, reason, _ = expect_error(sign_in, players, theirs, token=mine.access_token)
    assert (code, reason) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "CREDENTIAL_LINKED_ELSEWHERE",
    )


def test_new_players_in_a_loop_from_one_address_are_refused() -> None:
    """Each sign-in of a new device stores a player for good: one address may
    make a burst of them, then one a second."""
    with fresh_schema() as url:
        options = ["--sign-in-rate-limit", "1", "--sign-in-rate-burst", "3"]
        running = start_server(url, dev=False, options=options)
        try:
            stub = auth_service_pb2_grpc.AuthServiceStub(running.channel)
            refused = []
            for _ in range(8):
                try:
                    sign_in(stub)
                except grpc.RpcError as error:
                    refused.append(error_of(error)[:2])
            assert len(refused) >= 4
            assert set(refused) == {
                (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
            }
        finally:
            assert running.stop() == 0


# --- OpenID Connect ---


def test_an_id_token_signs_in_and_is_listed_on_the_account(
    players: auth_service_pb2_grpc.AuthServiceStub, provider: Provider
) -> None:
    subject = f"user-{uuid.uuid4()}"
    token = provider.id_token(subject, name="Dee")
    request = auth_api.SignInWithIdTokenRequest(id_token=token)
    first = players.SignInWithIdToken(request, timeout=10)
    again = players.SignInWithIdToken(request, timeout=10)
    assert first.created
    assert not again.created
    assert first.session.player.display_name == "Dee"
    account = me(players, again.session.access_token)
    assert [(i.issuer, i.subject) for i in account.identities] == [(ISSUER, subject)]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"aud": "someone-else"}, "ID_TOKEN_INVALID"),
        ({"iss": "https://evil.example.test"}, "ISSUER_NOT_TRUSTED"),
        ({"exp": int(time.time()) - 3600}, "ID_TOKEN_EXPIRED"),
    ],
)
def test_an_id_token_not_for_this_server_is_refused(
    players: auth_service_pb2_grpc.AuthServiceStub,
    provider: Provider,
    change: dict[str, Any],
    reason: str,
) -> None:
    token = provider.id_token("someone", **change)
    request = auth_api.SignInWithIdTokenRequest(id_token=token)
    assert expect_error(players.SignInWithIdToken, request, timeout=10)[:2] == (
        UNAUTHENTICATED,
        reason,
    )


def test_an_id_token_signed_by_another_key_is_refused(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "iat": now, "exp": now + 60}
    token = jwt.encode(claims, forger, "RS256", headers={"kid": KEY_ID})
    request = auth_api.SignInWithIdTokenRequest(id_token=token)
    code, reason, _ = expect_error(players.SignInWithIdToken, request, timeout=10)
    assert (code, reason) == (UNAUTHENTICATED, "ID_TOKEN_INVALID")


# --- sessions ---


def test_a_refresh_rotates_and_a_copied_token_ends_the_sign_in(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    first = sign_in(players).session
    second = refresh(players, first.refresh_token)
    assert second.refresh_token != first.refresh_token
    assert second.player.name == first.player.name
    # Retried at once (its answer lost): the same next token.
    assert refresh(players, first.refresh_token).refresh_token == second.refresh_token
    third = refresh(players, second.refresh_token)
    # The first token now comes back after its successor was used: a copy.
    code, reason, _ = expect_error(refresh, players, first.refresh_token)
    assert (code, reason) == (UNAUTHENTICATED, "REFRESH_TOKEN_REUSED")
    # Which ends the sign-in: the newest token stops working too.
    code, reason, _ = expect_error(refresh, players, third.refresh_token)
    assert (code, reason) == (UNAUTHENTICATED, "INVALID_REFRESH_TOKEN")


def test_signing_out_ends_refreshing(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    session = sign_in(players).session
    players.SignOut(
        auth_api.SignOutRequest(refresh_token=session.refresh_token), timeout=10
    )
    code, reason, _ = expect_error(refresh, players, session.refresh_token)
    assert (code, reason) == (UNAUTHENTICATED, "INVALID_REFRESH_TOKEN")
    # Another sign-in of the same player goes on.
    other = sign_in(players).session
    refresh(players, other.refresh_token)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "rt1.x",
        "rt1." + "0" * 32 + "." + "A" * 43,  # the right shape, nobody's
        "seat-token-like-but-not-a-refresh-token-at-all-xxxxxxxxxxxxxxxxxxxx",
    ],
)
def test_a_made_up_refresh_token_is_refused(
    players: auth_service_pb2_grpc.AuthServiceStub, token: str
) -> None:
    code, reason, _ = expect_error(refresh, players, token)
    assert code in {UNAUTHENTICATED, INVALID}
    assert reason in {"INVALID_REFRESH_TOKEN", "FIELD_TOO_LONG"}


def test_a_refresh_token_naming_a_game_costs_no_game_load(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    """A made-up token id that is a game's id is read as no token."""
    created = served.stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE),
            display_name="Ana",
        ),
        timeout=10,
    )
    game_id = uuid.UUID(created.game.name.removeprefix("games/"))
    forged = f"rt1.{game_id.hex}.{'A' * 43}"
    assert expect_error(refresh, players, forged)[1] == "INVALID_REFRESH_TOKEN"


def test_a_forged_access_token_is_refused_everywhere(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    real = sign_in(players).session
    header, payload, _ = real.access_token.split(".")
    other = ed25519.Ed25519PrivateKey.generate()
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    forged_by_key = jwt.encode(claims, other, "EdDSA", headers={"typ": "at+jwt"})
    unsigned = jwt.encode(claims, None, "none")  # type: ignore[arg-type]
    tampered = f"{header}.{payload[:-2]}AA.{real.access_token.split('.')[2]}"
    game = _open(served.stub, real.access_token)
    for token in (forged_by_key, unsigned, tampered):
        code, _, _ = expect_error(
            players.GetPlayer,
            auth_api.GetPlayerRequest(name="players/me"),
            metadata=auth(token),
            timeout=10,
        )
        assert code == UNAUTHENTICATED
        code, reason, _ = expect_error(
            served.stub.GetGame,
            game_service_pb2.GetGameRequest(name=game),
            metadata=auth(token),
            timeout=10,
        )
        assert (code, reason) == (UNAUTHENTICATED, "INVALID_CREDENTIALS")
    # A listing takes an unknown seat token for a spectator's, but never a
    # signed token that does not verify ("a.b." is no signed token at all).
    for token in (forged_by_key, tampered):
        code, reason, _ = expect_error(
            served.stub.ListGames,
            game_service_pb2.ListGamesRequest(),
            metadata=auth(token),
            timeout=10,
        )
        assert (code, reason) == (UNAUTHENTICATED, "INVALID_CREDENTIALS")


# --- the account ---


def test_a_player_sees_and_renames_only_their_own_account(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    ana = sign_in(players, name="Ana").session
    ben = sign_in(players, name="Ben").session
    own = auth_api.GetPlayerRequest(name=ana.player.name)
    assert players.GetPlayer(own, metadata=auth(ana.access_token)).player.name
    code, reason, _ = expect_error(
        players.GetPlayer, own, metadata=auth(ben.access_token), timeout=10
    )
    assert (code, reason) == (INVALID, "INVALID_PLAYER_NAME")
    code, reason, _ = expect_error(players.GetPlayer, own, timeout=10)
    assert (code, reason) == (UNAUTHENTICATED, "MISSING_CREDENTIALS")
    renamed = players.UpdatePlayer(
        auth_api.UpdatePlayerRequest(
            player=auth_api.PlayerAccount(name="players/me", display_name="Ana B"),
            update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
        ),
        metadata=auth(ana.access_token),
        timeout=10,
    ).player
    assert renamed.display_name == "Ana B"
    for player, mask, reason in (
        (
            auth_api.PlayerAccount(name="players/me", display_name=" "),
            [],
            "INVALID_DISPLAY_NAME",
        ),
        (
            auth_api.PlayerAccount(name="players/me"),
            ["device_count"],
            "INVALID_UPDATE_MASK",
        ),
    ):
        request = auth_api.UpdatePlayerRequest(
            player=player, update_mask=field_mask_pb2.FieldMask(paths=mask)
        )
        code, found, _ = expect_error(
            players.UpdatePlayer, request, metadata=auth(ana.access_token), timeout=10
        )
        assert (code, found) == (INVALID, reason)


# --- seats ---


def _open(stub: game_grpc.GameServiceStub, token: str, private: bool = False) -> str:
    visibility = game_pb2.VISIBILITY_PRIVATE if private else game_pb2.VISIBILITY_PUBLIC
    created = stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_QWIRKLE, visibility=visibility
            ),
            display_name="not shown for a signed-in player",
        ),
        metadata=auth(token),
        timeout=10,
    )
    return created.game.name


def _join(stub: game_grpc.GameServiceStub, game: str, token: str) -> Any:
    request = game_service_pb2.JoinGameRequest(name=game, display_name="ignored")
    return stub.JoinGame(request, metadata=auth(token), timeout=10)


def test_a_session_acts_for_the_players_seats_and_shows_the_accounts_name(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    stub = served.stub
    ana = sign_in(players, name="Ana").session
    ben = sign_in(players, name="Ben").session
    game = _open(stub, ana.access_token)
    _join(stub, game, ben.access_token)
    stub.StartGame(
        game_service_pb2.StartGameRequest(name=game),
        metadata=auth(ana.access_token),
        timeout=10,
    )
    seen = stub.GetGame(
        game_service_pb2.GetGameRequest(name=game), metadata=auth(ben.access_token)
    ).game
    assert [p.display_name for p in seen.players] == ["Ana", "Ben"]
    assert seen.caller == f"{game}/players/1"
    # The player to move moves with a session, not a seat token.
    to_move = ana if seen.current_player.endswith("/0") else ben
    _, moves = legal_moves(stub, game, to_move.access_token)
    move = moves[0]
    moved = stub.SubmitMove(
        game_service_pb2.SubmitMoveRequest(name=game, move=move),
        metadata=auth(to_move.access_token),
        timeout=10,
    )
    assert moved.game.revision > seen.revision
    # A rename shows at the table.
    players.UpdatePlayer(
        auth_api.UpdatePlayerRequest(
            player=auth_api.PlayerAccount(name="players/me", display_name="Ana 2")
        ),
        metadata=auth(ana.access_token),
        timeout=10,
    )
    again = stub.GetGame(game_service_pb2.GetGameRequest(name=game)).game
    assert again.players[0].display_name == "Ana 2"
    # The record holds the seats' accounts, no names, and verifies.
    assert served.operator_token is not None
    records = export(served.channel, game, served.operator_token)
    assert "Ana" not in records
    assert "Ben" not in records
    assert ana.player.name.removeprefix("players/") in records
    assert verified_export(served.channel, game, served.operator_token).ok


def test_a_session_without_a_seat_watches_and_may_not_move(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    stub = served.stub
    ana = sign_in(players).session
    ben = sign_in(players).session
    cy = sign_in(players).session
    game = _open(stub, ana.access_token)
    _join(stub, game, ben.access_token)
    stub.StartGame(
        game_service_pb2.StartGameRequest(name=game), metadata=auth(ana.access_token)
    )
    watched = stub.GetGame(
        game_service_pb2.GetGameRequest(name=game), metadata=auth(cy.access_token)
    ).game
    assert watched.caller == ""
    assert not watched.qwirkle_view.HasField("private_state")  # a spectator's
    _, moves = legal_moves(stub, game, ana.access_token)
    if not moves:
        _, moves = legal_moves(stub, game, ben.access_token)
    move = moves[0]
    code, reason, _ = expect_error(
        stub.SubmitMove,
        game_service_pb2.SubmitMoveRequest(name=game, move=move),
        metadata=auth(cy.access_token),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_A_PARTICIPANT")


def test_a_player_takes_one_seat_at_a_table(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    ana = sign_in(players).session
    game = _open(served.stub, ana.access_token)
    code, reason, _ = expect_error(_join, served.stub, game, ana.access_token)
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_SEATED")


def test_a_private_table_is_listed_to_its_signed_in_players(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    ana = sign_in(players).session
    cy = sign_in(players).session
    game = _open(served.stub, ana.access_token, private=True)

    def listed(token: str) -> bool:
        names: set[str] = set()
        page = ""
        while True:
            reply = served.stub.ListGames(
                game_service_pb2.ListGamesRequest(page_size=200, page_token=page),
                metadata=auth(token),
                timeout=10,
            )
            names |= {g.name for g in reply.games}
            page = reply.next_page_token
            if not page:
                return game in names

    assert listed(ana.access_token)
    assert not listed(cy.access_token)


def test_a_players_id_is_no_game(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    account = sign_in(players).session.player.name.removeprefix("players/")
    code, reason, _ = expect_error(
        served.stub.GetGame,
        game_service_pb2.GetGameRequest(name=f"games/{account}"),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")


def test_seat_tokens_still_work_beside_sessions(
    served: Server, players: auth_service_pb2_grpc.AuthServiceStub
) -> None:
    ana = sign_in(players).session
    game = _open(served.stub, ana.access_token)
    guest = served.stub.JoinGame(
        game_service_pb2.JoinGameRequest(name=game, display_name="Guest"), timeout=10
    )
    seen = served.stub.GetGame(
        game_service_pb2.GetGameRequest(name=game), metadata=auth(guest.seat_token)
    ).game
    assert seen.caller.endswith("/players/1")
    assert seen.players[1].display_name == "Guest"


def test_a_session_signed_out_cannot_link_a_device(
    players: auth_service_pb2_grpc.AuthServiceStub,
) -> None:
    """An access token outlives its sign-out by up to an hour: it must not buy
    a device of its holder's that signs in for good (a stolen token)."""
    session = sign_in(players).session
    players.SignOut(
        auth_api.SignOutRequest(refresh_token=session.refresh_token), timeout=10
    )
    thief = device()
    code, reason, _ = expect_error(sign_in, players, thief, token=session.access_token)
    assert (code, reason) == (UNAUTHENTICATED, "SESSION_NOT_RECENT")
    # The device stayed free: it signs in as a player of its own.
    assert sign_in(players, thief).created
