"""``tabletop.v1.GameAuditService``: the operator's signed export, and its key.

Only the operator may export: the bearer token must equal the credential the
server was configured with (compared in constant time). A server configured
without one refuses every export. Tokens are never logged. Anyone may ask for
the public key that checks the exports' signatures.
"""

from __future__ import annotations

import hmac
import logging
from typing import Any

import grpc
from tabletop.v1 import game_audit_service_pb2, game_audit_service_pb2_grpc

from domain.common.decision import RejectionKind, reject
from services.api.auth import bearer_token
from services.api.calls import Metadata, serve
from services.api.errors import (
    ApiError,
    rejection_status,
    unauthenticated,
)
from services.api.mutations import accepted
from services.api.requests import parse_game_name
from services.audit import export_game
from services.games import GamesApp
from services.signing import SigningKey

log = logging.getLogger(__name__)


class GameAuditServicer(game_audit_service_pb2_grpc.GameAuditServiceServicer):
    """Exports games' whole records for the operator."""

    def __init__(
        self, app: GamesApp, operator_token: str | None, signing_key: SigningKey
    ) -> None:
        self.app = app
        self._operator_token = operator_token
        self._signing_key = signing_key

    async def ExportGame(  # noqa: N802 (gRPC method names)
        self, request: game_audit_service_pb2.ExportGameRequest, context: Any
    ) -> game_audit_service_pb2.ExportGameResponse:
        """Returns a game's record as hash-chained JSON Lines."""
        return await serve(context, self._export_game, request)

    def _export_game(
        self, request: game_audit_service_pb2.ExportGameRequest, metadata: Metadata
    ) -> game_audit_service_pb2.ExportGameResponse:
        self._check_operator(metadata)
        game_id = parse_game_name(request.name)
        records = accepted(export_game(self.app, game_id, self._signing_key))
        log.info("audit export of games/%s", game_id)
        return game_audit_service_pb2.ExportGameResponse(records=records)

    async def GetSigningKey(  # noqa: N802 (gRPC method names)
        self, request: game_audit_service_pb2.GetSigningKeyRequest, context: Any
    ) -> game_audit_service_pb2.GetSigningKeyResponse:
        """Returns the public key that signs this server's exports."""
        return await serve(context, self._get_signing_key, request)

    def _get_signing_key(
        self, request: game_audit_service_pb2.GetSigningKeyRequest, metadata: Metadata
    ) -> game_audit_service_pb2.GetSigningKeyResponse:
        del request, metadata  # open to everyone; nothing to choose
        public = self._signing_key.public
        return game_audit_service_pb2.GetSigningKeyResponse(
            public_key=public.raw,
            text=public.text,
            fingerprint=public.fingerprint,
            ephemeral=self._signing_key.ephemeral,
        )

    def _check_operator(self, metadata: Metadata) -> None:
        """Refuses a call that does not present the operator credential."""
        if self._operator_token is None:
            raise ApiError(
                _operator_only(
                    "No operator credential is configured on this server "
                    "(TABLETOP_OPERATOR_TOKEN or --operator-token-file), so the "
                    "audit service refuses every call."
                )
            )
        token = bearer_token(metadata)
        if token is None:
            raise ApiError(
                unauthenticated(
                    "MISSING_CREDENTIALS",
                    "The audit service needs the operator credential: send "
                    "'authorization: Bearer <operator token>'.",
                )
            )
        expected = self._operator_token.encode("utf-8")
        if not hmac.compare_digest(token.encode("utf-8"), expected):
            raise ApiError(
                _operator_only("Only the operator may use the audit service.")
            )


def _operator_only(message: str) -> grpc.Status:
    return rejection_status(
        reject(
            "OPERATOR_ONLY",
            message,
            "audit/operator_only",
            RejectionKind.NOT_A_PARTICIPANT,
        )
    )
