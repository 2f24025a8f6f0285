"""A connection whose every call presents a signed-in player's session.

``with_session`` puts an interceptor on the channel that sends
``authorization: Bearer <access token>`` with each call, the token refreshed
before it expires (``infra/terminal/account.py``). A unary call the server
answers ``UNAUTHENTICATED INVALID_CREDENTIALS`` (a token it no longer accepts)
is sent once more after the session is renewed; a stream is reopened by the
one following it (``infra/terminal/feed.py``), which renews the session too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

import grpc
from tabletop.v1 import game_service_pb2_grpc

from infra.terminal.connection import Connection, error_reason

if TYPE_CHECKING:
    from infra.terminal.account import Account

Request = TypeVar("Request")
Response = TypeVar("Response")


class _Details(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


class _CallDetails(_Details, grpc.ClientCallDetails):
    """A call's details with other metadata."""


def with_session(connection: Connection, account: Account) -> Connection:
    """Returns the connection presenting the account's session on every call."""
    channel = grpc.intercept_channel(connection.channel, SessionCredentials(account))
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    return replace(connection, stub=stub, metadata=(), session=account)


def refused_credentials(call: grpc.Call | grpc.RpcError) -> bool:
    """Tells whether a call failed because the server no longer accepts its token."""
    failed = cast("grpc.Call", call)
    if failed.code() != grpc.StatusCode.UNAUTHENTICATED:
        return False
    return error_reason(cast("grpc.RpcError", failed)) == "INVALID_CREDENTIALS"


class SessionCredentials(
    grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor
):
    """Presents the session on every call; renews it once when it is refused."""

    def __init__(self, account: Account) -> None:
        self.account = account

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Request], Any],
        client_call_details: grpc.ClientCallDetails,
        request: Request,
    ) -> Any:
        """Sends the call with the access token; again once after renewing it."""
        token = self.account.access_token()
        outcome = continuation(_presenting(client_call_details, token), request)
        if refused_credentials(outcome):
            self.account.renew(token)
            token = self.account.access_token()
            outcome = continuation(_presenting(client_call_details, token), request)
        return outcome

    def intercept_unary_stream(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Request], Any],
        client_call_details: grpc.ClientCallDetails,
        request: Request,
    ) -> Any:
        """Opens the stream with the access token."""
        token = self.account.access_token()
        return continuation(_presenting(client_call_details, token), request)


def _presenting(details: grpc.ClientCallDetails, token: str) -> _CallDetails:
    """Returns the call's details with the access token as its credentials."""
    others = [
        (key, value)
        for key, value in details.metadata or ()
        if key.lower() != "authorization"
    ]
    return _CallDetails(
        details.method,
        details.timeout,
        (*others, ("authorization", f"Bearer {token}")),
        details.credentials,
        details.wait_for_ready,
        details.compression,
    )
