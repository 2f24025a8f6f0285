"""``tabletop.v1.AuthService``: players sign in, refresh, sign out, and see
and rename their account.

The calls that name the caller's account need its access token; the sign-ins
take one only to link a device or an identity to the account it names.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from tabletop.v1 import auth_service_pb2 as api
from tabletop.v1 import auth_service_pb2_grpc

from domain.common.decision import Rejected
from services.api.auth import bearer_token, session_claims, signed_in
from services.api.calls import Metadata, serve
from services.api.errors import (
    ApiError,
    FieldViolation,
    bad_request,
    rejection_status,
)
from services.api.mutations import accepted
from services.erasure import delete_player
from services.games import GamesApp
from services.players import AccountView, Players, SignedIn

ME = "players/me"
_PREFIX = "players/"
# The fields of an account UpdatePlayer may change.
_UPDATABLE = frozenset({"display_name"})


class AuthServicer(auth_service_pb2_grpc.AuthServiceServicer):
    """Sign-in, sessions and accounts, over ``services/players.py``."""

    def __init__(self, players: Players, app: GamesApp) -> None:
        self.players = players
        self.app = app  # whose seats a deleted player gives up

    async def SignInWithDevice(  # noqa: N802 (gRPC method names)
        self, request: api.SignInWithDeviceRequest, context: Any
    ) -> api.SignInWithDeviceResponse:
        """Signs a device in (or links it to the caller's account)."""
        return await serve(context, self._sign_in_with_device, request)

    def _sign_in_with_device(
        self, request: api.SignInWithDeviceRequest, metadata: Metadata
    ) -> api.SignInWithDeviceResponse:
        caller = session_claims(self.players.sessions, bearer_token(metadata))
        signed = accepted(
            self.players.sign_in_with_device(
                request.device_id, request.display_name, caller
            )
        )
        return api.SignInWithDeviceResponse(
            session=_session(signed), created=signed.created
        )

    async def SignInWithIdToken(  # noqa: N802 (gRPC method names)
        self, request: api.SignInWithIdTokenRequest, context: Any
    ) -> api.SignInWithIdTokenResponse:
        """Signs an OpenID identity in (or links it to the caller's account)."""
        return await serve(context, self._sign_in_with_id_token, request)

    def _sign_in_with_id_token(
        self, request: api.SignInWithIdTokenRequest, metadata: Metadata
    ) -> api.SignInWithIdTokenResponse:
        caller = session_claims(self.players.sessions, bearer_token(metadata))
        signed = accepted(
            self.players.sign_in_with_id_token(
                request.id_token, request.display_name, caller
            )
        )
        return api.SignInWithIdTokenResponse(
            session=_session(signed), created=signed.created
        )

    async def RefreshSession(  # noqa: N802 (gRPC method names)
        self, request: api.RefreshSessionRequest, context: Any
    ) -> api.RefreshSessionResponse:
        """Exchanges a refresh token for the next session."""
        return await serve(context, self._refresh_session, request)

    def _refresh_session(
        self, request: api.RefreshSessionRequest, metadata: Metadata
    ) -> api.RefreshSessionResponse:
        del metadata  # the refresh token is the credential
        signed = accepted(self.players.refresh(request.refresh_token))
        return api.RefreshSessionResponse(session=_session(signed))

    async def SignOut(  # noqa: N802 (gRPC method names)
        self, request: api.SignOutRequest, context: Any
    ) -> api.SignOutResponse:
        """Ends the sign-in of a refresh token."""
        return await serve(context, self._sign_out, request)

    def _sign_out(
        self, request: api.SignOutRequest, metadata: Metadata
    ) -> api.SignOutResponse:
        del metadata  # the refresh token is the credential
        accepted(self.players.sign_out(request.refresh_token))
        return api.SignOutResponse()

    async def GetPlayer(  # noqa: N802 (gRPC method names)
        self, request: api.GetPlayerRequest, context: Any
    ) -> api.GetPlayerResponse:
        """Returns the caller's account."""
        return await serve(context, self._get_player, request)

    def _get_player(
        self, request: api.GetPlayerRequest, metadata: Metadata
    ) -> api.GetPlayerResponse:
        player = self._own(request.name, "name", metadata)
        return api.GetPlayerResponse(
            player=account_to_proto(accepted(self.players.account(player)))
        )

    async def DeletePlayer(  # noqa: N802 (gRPC method names)
        self, request: api.DeletePlayerRequest, context: Any
    ) -> api.DeletePlayerResponse:
        """Deletes the caller's account, after giving up its seats."""
        return await serve(context, self._delete_player, request)

    def _delete_player(
        self, request: api.DeletePlayerRequest, metadata: Metadata
    ) -> api.DeletePlayerResponse:
        self._own(request.name, "name", metadata)
        token = bearer_token(metadata)
        session = signed_in(self.players.sessions, token, "DeletePlayer")
        assert token is not None  # noqa: S101 (a session came with it)
        accepted(delete_player(self.app, self.players, session, token))
        return api.DeletePlayerResponse()

    async def UpdatePlayer(  # noqa: N802 (gRPC method names)
        self, request: api.UpdatePlayerRequest, context: Any
    ) -> api.UpdatePlayerResponse:
        """Renames the caller's account."""
        return await serve(context, self._update_player, request)

    def _update_player(
        self, request: api.UpdatePlayerRequest, metadata: Metadata
    ) -> api.UpdatePlayerResponse:
        player = self._own(request.player.name, "player.name", metadata)
        paths = set(request.update_mask.paths) or set(_UPDATABLE)
        if not paths <= _UPDATABLE:
            unknown = ", ".join(sorted(paths - _UPDATABLE))
            raise ApiError(
                bad_request(
                    "INVALID_UPDATE_MASK",
                    f"update_mask may name only display_name, not {unknown}.",
                    [FieldViolation("update_mask", f"names {unknown}")],
                )
            )
        renamed = self.players.rename(player, request.player.display_name)
        if isinstance(renamed, Rejected):
            raise ApiError(rejection_status(renamed, "player.display_name"))
        account = renamed
        return api.UpdatePlayerResponse(player=account_to_proto(account))

    def _caller(self, metadata: Metadata) -> UUID:
        """Returns the signed-in caller's account; refuses a call without one."""
        token = bearer_token(metadata)
        return signed_in(self.players.sessions, token, "This call").player_id

    def _own(self, name: str, field: str, metadata: Metadata) -> UUID:
        """Returns the caller's account, which ``name`` must name."""
        player = self._caller(metadata)
        if name not in (ME, f"{_PREFIX}{player}"):
            raise ApiError(
                bad_request(
                    "INVALID_PLAYER_NAME",
                    f"{field} must be '{ME}' or the caller's own "
                    f"'{_PREFIX}{{uuid}}': an account is seen and changed only "
                    "by its player.",
                    [FieldViolation(field, "names no account of the caller")],
                )
            )
        return player


def account_to_proto(account: AccountView) -> api.PlayerAccount:
    """Returns the account message its owner sees."""
    message = api.PlayerAccount(
        name=f"{_PREFIX}{account.player_id}",
        display_name=account.display_name,
        device_count=account.device_count,
        identities=[
            api.LinkedIdentity(issuer=issuer, subject=subject)
            for issuer, subject in account.identities
        ],
    )
    message.create_time.FromDatetime(account.created_at)
    return message


def _session(signed: SignedIn) -> api.Session:
    session = api.Session(
        access_token=signed.access.token,
        refresh_token=signed.refresh_token,
        player=account_to_proto(signed.account),
    )
    session.access_token_expire_time.FromDatetime(signed.access.expires_at)
    session.refresh_token_expire_time.FromDatetime(signed.refresh_expires_at)
    return session
