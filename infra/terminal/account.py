"""Signing in with the device id kept for a server, and keeping the session fresh.

``tabletop play`` and ``tabletop games`` sign in with ``SignInWithDevice``
(``infra/terminal/devices.py`` keeps the id): the first sign-in of a device
creates its player, named by ``--name``; later ones sign in to that player,
whose name stays its own. The session's access token is refreshed
(``RefreshSession``) a minute before it expires, or when the server refuses it
(``UNAUTHENTICATED INVALID_CREDENTIALS``, as after a restart without
``--session-key-file``); a refused refresh signs in again with the device id.

The session is kept in memory only. Two clients of one machine (``tabletop
play`` in two terminals, or ``tabletop games`` beside it) each sign in: were
they to share a kept refresh token, the one refreshing second would present a
used token, which ends the sign-in of both (``REFRESH_TOKEN_REUSED``).

A server without ``AuthService`` (``UNIMPLEMENTED``), or one that refuses the
sign-in, leaves the client a guest, as ``--guest`` asks: one line says so.
Tokens and the device id are never printed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import cast

import grpc
from rich.console import Console
from rich.text import Text
from tabletop.v1 import auth_service_pb2, auth_service_pb2_grpc

from infra.terminal.connection import UNARY_TIMEOUT, describe_error
from infra.terminal.devices import load_device_id

DEFAULT_NAME = "Player"  # a guest's name, or a new player's, without --name
RENEW_BEFORE = timedelta(minutes=1)  # refresh this long before the token expires
# Answers that mean the server was not reached: the call that needs the
# session fails the same way, so the client does not carry on as a guest.
UNREACHED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Account:
    """A signed-in player: its session, refreshed before its access token expires.

    The turn loop and the live feed's thread use it at once; a lock makes one
    of them refresh while the other waits for the new token.
    """

    def __init__(
        self,
        stub: auth_service_pb2_grpc.AuthServiceStub,
        device_id: str,
        session: auth_service_pb2.Session,
        now: Clock = _utc_now,
    ) -> None:
        self._stub, self._device_id, self._now = stub, device_id, now
        self._session = session
        self._lock = threading.Lock()

    @property
    def display_name(self) -> str:
        """Returns the player's name, as the tables show it."""
        return self._session.player.display_name

    def access_token(self) -> str:
        """Returns an access token good for a minute at least, refreshed if need be."""
        with self._lock:
            expires = self._session.access_token_expire_time.ToDatetime(tzinfo=UTC)
            if expires - self._now() < RENEW_BEFORE:
                self._renew()
            return self._session.access_token

    def renew(self, refused: str) -> None:
        """Replaces an access token the server refused, unless that is done already."""
        with self._lock:
            if self._session.access_token == refused:
                self._renew()

    def _renew(self) -> None:
        """Refreshes the session; signs in again with the device id if refused."""
        try:
            refreshed = self._stub.RefreshSession(
                auth_service_pb2.RefreshSessionRequest(
                    refresh_token=self._session.refresh_token
                ),
                timeout=UNARY_TIMEOUT,
            )
        except grpc.RpcError as error:
            if cast("grpc.Call", error).code() in UNREACHED:
                raise
            self._session = self._sign_in().session
        else:
            self._session = refreshed.session

    def _sign_in(self) -> auth_service_pb2.SignInWithDeviceResponse:
        # Never with a session: SignInWithDevice called with one links the
        # device to that session's player instead of signing in.
        return self._stub.SignInWithDevice(
            auth_service_pb2.SignInWithDeviceRequest(device_id=self._device_id),
            timeout=UNARY_TIMEOUT,
        )


def sign_in(
    channel: grpc.Channel,
    server: str,
    console: Console,
    name: str | None,
    *,
    make: bool = True,
) -> Account | None:
    """Signs in with the device id kept for ``server``; returns the account, or
    None to carry on as a guest (a line says why).

    ``name`` names a player this sign-in creates (``Player`` if None). Without
    ``make``, a machine that keeps no device id for the server stays a guest,
    silently.
    """
    device_id = load_device_id(server, make=make)
    if device_id is None:
        return None
    stub = auth_service_pb2_grpc.AuthServiceStub(channel)
    try:
        reply = stub.SignInWithDevice(
            auth_service_pb2.SignInWithDeviceRequest(
                device_id=device_id, display_name=name or DEFAULT_NAME
            ),
            timeout=UNARY_TIMEOUT,
        )
    except grpc.RpcError as error:
        if cast("grpc.Call", error).code() in UNREACHED:
            raise
        console.print(Text(guest_line(error), style="yellow"))
        return None
    account = Account(stub, device_id, reply.session)
    console.print(signed_in_line(account.display_name, reply.created, name))
    return account


def guest_line(error: grpc.RpcError) -> str:
    """Returns the line that says why the client carries on as a guest."""
    if cast("grpc.Call", error).code() == grpc.StatusCode.UNIMPLEMENTED:
        return "Playing as a guest: this server does not sign players in."
    return (
        f"Playing as a guest: the server refused to sign in ({describe_error(error)})"
    )


def signed_in_line(display_name: str, created: bool, asked: str | None) -> Text:  # noqa: FBT001
    """Returns the line that says who the client plays as."""
    line = Text.assemble("Signed in as ", (display_name, "bold"))
    if created:
        line.append(" (a new player on this server)")
    elif asked is not None and asked != display_name:
        line.append(
            " (--name names a new player only; this device's player keeps its name)"
        )
    return line
