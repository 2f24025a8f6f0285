"""The channel to the server, call credentials and errors shown to a person."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Protocol, cast

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tabletop.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc, game_type_pb2

from infra.terminal.games import Catalogue

UNARY_TIMEOUT = 10.0  # seconds, for every call but the stream
# A server that went away is tried again soon, and at least every 5 seconds.
RECONNECT_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 500),
    ("grpc.max_reconnect_backoff_ms", 5000),
)
LOST = "connection lost, retrying..."
# What to do next, by ErrorInfo reason, under the refusal's own line.
HINTS = {
    "INVALID_INVITE_CODE": "A private table is joined with the invite code its "
    "host shared: tabletop play --join GAME_ID --code CODE",
}
# A game's id is a UUID (the server's one spelling is lower case).
_GAME_ID = re.compile(
    r"^(?:games/)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
    re.IGNORECASE,
)

Metadata = tuple[tuple[str, str], ...]


@dataclass(slots=True)
class Answers:
    """What a server said once and will not change while the channel is open."""

    catalogue: Catalogue | None = None  # its ListGameTypes


class Session(Protocol):
    """A signed-in player's session, as a connection presents it
    (``infra/terminal/account.py``)."""

    def access_token(self) -> str:
        """Returns an access token to send, renewed when about to expire."""
        ...

    def renew(self, refused: str) -> None:
        """Renews the session after the server refused ``refused``."""
        ...


@dataclass(frozen=True, slots=True)
class Connection:
    """A stub on an open channel and the caller's credentials (empty: a spectator).

    The credentials are a seat token in ``metadata``, or a signed-in player's
    ``session``, which the stub presents by itself (``with_session``).
    """

    channel: grpc.Channel  # the channel as opened, presenting nothing by itself
    stub: game_service_pb2_grpc.GameServiceStub
    metadata: Metadata = ()
    answers: Answers = field(default_factory=Answers, compare=False, repr=False)
    session: Session | None = field(default=None, compare=False, repr=False)


class ClientError(Exception):
    """A failure to show the person as one line, without a traceback."""


def connect(address: str) -> Connection:
    """Opens a channel to the server; calls fail later if it does not answer."""
    channel = grpc.insecure_channel(address, options=RECONNECT_OPTIONS)
    return Connection(channel, game_service_pb2_grpc.GameServiceStub(channel))


def with_token(connection: Connection, token: str) -> Connection:
    """Returns the connection presenting a seat token (and no session)."""
    stub = connection.stub
    if connection.session is not None:
        stub = game_service_pb2_grpc.GameServiceStub(connection.channel)
    metadata = (("authorization", f"Bearer {token}"),)
    return replace(connection, stub=stub, metadata=metadata, session=None)


def game_name(game_id: str) -> str:
    """Returns ``games/{id}`` for an id given with or without the prefix."""
    found = _GAME_ID.match(game_id.strip())
    if found is None:
        raise ClientError(
            f"not a game id: {game_id!r} (a game id is a UUID, given as it is "
            "or as games/<id>)"
        )
    return f"games/{found.group(1).lower()}"


def error_reason(error: grpc.RpcError) -> str:
    """Returns the ErrorInfo reason of a failed call, empty when it has none."""
    call = cast("grpc.Call", error)  # errors raised by stubs are also calls
    try:
        status = rpc_status.from_call(call)
    except ValueError:  # a trailer that does not match the call's code
        status = None
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason
    return ""


def describe_error(error: grpc.RpcError) -> str:
    """Returns a failed call as ``CODE REASON: message``, from its ErrorInfo."""
    call = cast("grpc.Call", error)
    code = call.code()
    code_name = code.name if code is not None else "UNKNOWN"
    message = call.details() or ""
    reason = error_reason(error)
    if reason:
        return f"{code_name} {reason}: {message}"
    if code == grpc.StatusCode.UNAVAILABLE:
        return f"{code_name}: the server does not answer ({message})"
    return f"{code_name}: {message}"


def unavailable(error: grpc.RpcError) -> bool:
    """Tells whether a call failed because the server is away (UNAVAILABLE)."""
    return cast("grpc.Call", error).code() == grpc.StatusCode.UNAVAILABLE


def error_hint(error: grpc.RpcError) -> str:
    """Returns what the person may do about a refusal, empty when nothing to add."""
    return HINTS.get(error_reason(error), "")


def get_game(connection: Connection, name: str) -> game_pb2.Game:
    """Returns the game as the caller sees it."""
    reply = connection.stub.GetGame(
        game_service_pb2.GetGameRequest(name=name),
        metadata=connection.metadata,
        timeout=UNARY_TIMEOUT,
    )
    return reply.game


def catalogue(connection: Connection) -> Catalogue:
    """Returns the game types the server plays; asked once per connection."""
    if connection.answers.catalogue is None:
        reply = connection.stub.ListGameTypes(
            game_service_pb2.ListGameTypesRequest(), timeout=UNARY_TIMEOUT
        )
        connection.answers.catalogue = Catalogue(tuple(reply.game_types))
    return connection.answers.catalogue


def game_type_info(
    connection: Connection, game_type: int
) -> game_type_pb2.GameTypeInfo | None:
    """Returns what ListGameTypes says of one game type (colours, player counts)."""
    return catalogue(connection).info(game_type)
