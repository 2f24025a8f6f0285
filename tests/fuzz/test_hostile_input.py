"""Hostile input against a real server on PostgreSQL: every RPC, fuzzed.

Each case must end OK or with a well-formed error: never ``INTERNAL``/``UNKNOWN``
or a deadline (a hang), always a ``google.rpc.Status`` whose ``ErrorInfo`` names
an UPPER_SNAKE reason (an oversized message's ``RESOURCE_EXHAUSTED`` comes from
gRPC itself and carries none). A refused call stores nothing, and the server
answers its health check after every case.
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import grpc
import psycopg
import pytest
from google.protobuf import field_mask_pb2
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import sql
from tabletop.v1 import (
    auth_service_pb2,
    game_audit_service_pb2,
    game_pb2,
    game_service_pb2,
    move_pb2,
)

from infra.server import MAX_REQUEST_BYTES
from tests.e2e.client import auth, health_status
from tests.e2e.conftest import Server, start_server
from tests.fuzz.conftest import CASES, EXAMPLES_VARIABLE
from tests.fuzz.messages import TEXT, field_values, messages
from tests.pg import connect, fresh_schema

pytestmark = pytest.mark.e2e

EXAMPLES = int(os.environ.get(EXAMPLES_VARIABLE, "8"))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
RECEIVE_LIMIT = MAX_REQUEST_BYTES  # gRPC refuses longer requests itself
_REASON = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*")
_SERVICES = (
    auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"],
    game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
    game_audit_service_pb2.DESCRIPTOR.services_by_name["GameAuditService"],
)
METHODS: dict[str, MethodDescriptor] = {
    m.name: m for service in _SERVICES for m in service.methods
}


@dataclass
class Table:
    """A reference game: its name, type and seat tokens."""

    name: str
    game_type: game_pb2.GameType
    config_field: str
    tokens: list[str]


@dataclass
class World:
    """The server, its schema and the games every case is checked against."""

    server: Server
    schema: str
    tables: list[Table]
    lobby: Table
    operator: str
    database: psycopg.Connection[tuple[object, ...]]

    def stored(self) -> tuple[int, tuple[int, ...]]:
        """Returns the number of stored events and each reference game's revision.

        A game in which a seat has resigned (a fuzzed ResignGame may succeed)
        is left out: the server plays that seat by itself, at any moment.
        """
        games = {t.name: self.game(t.name) for t in [*self.tables, self.lobby]}
        moving = [
            name.removeprefix("games/")
            for name, game in games.items()
            if any(player.resigned for player in game.players)
        ]
        query = sql.SQL(
            "SELECT count(*) FROM {} WHERE NOT originator_id::text = ANY(%s)"
        ).format(sql.Identifier(self.schema, "tabletop_events"))
        row = self.database.execute(query, (moving,)).fetchone()
        assert row is not None
        revisions = tuple(
            game.revision
            for name, game in games.items()
            if name.removeprefix("games/") not in moving
        )
        return cast("int", row[0]), revisions

    def game(self, name: str) -> game_pb2.Game:
        """Returns a game as a spectator sees it."""
        request = game_service_pb2.GetGameRequest(name=name)
        return self.server.stub.GetGame(request, timeout=10).game

    def raw(self, rpc: str) -> Callable[..., Any]:
        """Returns a callable that sends already-serialized bytes to ``rpc``."""
        method = METHODS[rpc]
        path = f"/{method.containing_service.full_name}/{rpc}"
        if method.server_streaming:
            return self.server.channel.unary_stream(path)
        return self.server.channel.unary_unary(path)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    """Yields a server with one started game of every type and one open table."""
    with fresh_schema() as url, pytest.MonkeyPatch.context() as patch:
        # Thousands of calls a minute from one address are the point here.
        patch.setenv("TABLETOP_RATE_LIMIT", "0")
        operator = secrets.token_hex(16)
        server = start_server(
            url, dev=True, heartbeat_seconds=0.2, operator_token=operator
        )
        types = server.stub.ListGameTypes(
            game_service_pb2.ListGameTypesRequest(), timeout=10
        ).game_types
        tables = [
            _open(server, t.game_type, t.config_field, t.min_players) for t in types
        ]
        for table in tables:
            server.stub.StartGame(
                game_service_pb2.StartGameRequest(name=table.name),
                metadata=auth(table.tokens[0]),
                timeout=10,
            )
        lobby = _open(server, types[0].game_type, types[0].config_field, 1)
        schema = url.rsplit("schema=", 1)[1]
        with connect() as database:
            yield World(server, schema, tables, lobby, operator, database)
        assert server.stop() == 0


def _open(
    server: Server,
    game_type: game_pb2.GameType,
    config_field: str,
    seats: int,
) -> Table:
    created = server.stub.CreateGame(
        game_service_pb2.CreateGameRequest(
            game=game_pb2.Game(game_type=game_type), display_name="Ana"
        ),
        timeout=10,
    )
    tokens = [created.seat_token]
    for seat in range(1, seats):
        joined = server.stub.JoinGame(
            game_service_pb2.JoinGameRequest(
                name=created.game.name, display_name=f"P{seat}"
            ),
            timeout=10,
        )
        tokens.append(joined.seat_token)
    return Table(created.game.name, game_type, config_field, tokens)


def call_and_check(
    world: World,
    rpc: str,
    payload: bytes,
    metadata: tuple[tuple[str, str], ...] | None,
    *,
    oversized: bool = False,
) -> grpc.StatusCode:
    """Sends one case and checks every invariant; returns the status it ended with."""
    CASES[rpc] += 1
    # gRPC itself refuses a message past the limit, before any handler runs.
    oversized = oversized or len(payload) > RECEIVE_LIMIT
    before = world.stored()
    code = grpc.StatusCode.OK
    try:
        _invoke(world, rpc, payload, metadata)
    except grpc.RpcError as error:
        code = _check_error(cast("grpc.Call", error), oversized=oversized)
    if code is not grpc.StatusCode.OK:
        assert world.stored() == before, f"{rpc} refused with {code} but stored"
    status = health_status(world.server.channel)
    assert status == health_pb2.HealthCheckResponse.SERVING
    return code


def _invoke(world: World, rpc: str, payload: bytes, metadata: Any) -> None:
    call = world.raw(rpc)(payload, metadata=metadata, timeout=10)
    if METHODS[rpc].server_streaming:
        # The first item (a snapshot, event or heartbeat) shows the stream works.
        try:
            next(call)
        except StopIteration:
            pass
        finally:
            call.cancel()


def _check_error(call: grpc.Call, *, oversized: bool) -> grpc.StatusCode:
    code = call.code()
    detail = call.details()
    assert code not in (
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    ), f"{code}: {detail}"
    if oversized and code is grpc.StatusCode.RESOURCE_EXHAUSTED:
        return code
    status = rpc_status.from_call(call)
    assert status is not None, f"{code} without google.rpc.Status: {detail}"
    reasons = []
    for packed in status.details:
        if packed.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            packed.Unpack(info)
            reasons.append(info.reason)
    assert len(reasons) == 1, f"{code} needs one ErrorInfo: {detail}"
    assert _REASON.fullmatch(reasons[0]), reasons[0]
    return cast("grpc.StatusCode", code)


# Credentials: none, garbage, malformed, the operator's, any seat of any game.
def credentials(world: World) -> st.SearchStrategy[tuple[tuple[str, str], ...] | None]:
    """Returns a strategy for a call's authorization metadata."""
    tokens = [t for table in [*world.tables, world.lobby] for t in table.tokens]
    garbage = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1)
    headers = st.one_of(
        st.sampled_from([*tokens, world.operator]).map(lambda t: f"Bearer {t}"),
        garbage.map(lambda t: f"Bearer {t}"),
        st.sampled_from(["Bearer", "Bearer   ", "Basic abc", "bearer x", ""]),
        garbage,
    )
    return st.one_of(st.none(), headers.map(lambda h: (("authorization", h),)))


def _names(world: World) -> list[str]:
    names = [t.name for t in [*world.tables, world.lobby]]
    revisions = [f"{n}/revisions/{r}" for n in names[:2] for r in (1, 2, 10**6)]
    return [*names, *revisions, names[0].upper(), f"{names[0]}/", "games/", ""]


@pytest.mark.parametrize("rpc", sorted(METHODS))
@FUZZ
@given(data=st.data())
def test_any_message_gets_ok_or_a_well_formed_error(
    world: World, rpc: str, data: st.DataObject
) -> None:
    """Messages generated from the descriptor alone, aimed at real games or not."""
    descriptor = METHODS[rpc].input_type
    request = data.draw(messages(descriptor))
    for key in ("name", "parent"):
        if key in descriptor.fields_by_name and data.draw(st.booleans()):
            setattr(request, key, data.draw(st.sampled_from(_names(world))))
    call_and_check(
        world, rpc, request.SerializeToString(), data.draw(credentials(world))
    )


# A device id and a refresh token of the right shapes (the latter nobody's).
_DEVICE = "bXktZmF6ei1kZXZpY2UtaWQtMDAx"
_REFRESH = "rt1." + "0" * 32 + "." + "A" * 43


# Valid requests for a live game, the starting point of every mutation.
def _valid(world: World, rpc: str, table: Table) -> Message:
    current = world.game(table.name)
    name, revision = table.name, current.revision
    g, a = game_service_pb2, auth_service_pb2
    builders: dict[str, Callable[[], Message]] = {
        "CreateGame": lambda: g.CreateGameRequest(
            game=_configured(table), display_name="Ana", request_id=str(uuid.uuid4())
        ),
        "GetGame": lambda: g.GetGameRequest(name=name, view=g.GAME_VIEW_FULL),
        "ListGames": lambda: g.ListGamesRequest(page_size=5),
        "ListMyGames": lambda: g.ListMyGamesRequest(page_size=5),
        "StreamNotifications": lambda: g.StreamNotificationsRequest(
            after_notification_id=1
        ),
        "SignInWithDevice": lambda: a.SignInWithDeviceRequest(
            device_id=_DEVICE, display_name="Ana"
        ),
        "SignInWithIdToken": lambda: a.SignInWithIdTokenRequest(
            id_token="eyJhbGciOiJSUzI1NiJ9.e30.c2ln", display_name="Ana"
        ),
        "RefreshSession": lambda: a.RefreshSessionRequest(refresh_token=_REFRESH),
        "SignOut": lambda: a.SignOutRequest(refresh_token=_REFRESH),
        "GetPlayer": lambda: a.GetPlayerRequest(name="players/me"),
        "UpdatePlayer": lambda: a.UpdatePlayerRequest(
            player=a.PlayerAccount(name="players/me", display_name="Ana"),
            update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
        ),
        "DeletePlayer": lambda: a.DeletePlayerRequest(name="players/me"),
        "JoinGame": lambda: g.JoinGameRequest(name=world.lobby.name, display_name="Bo"),
        "StartGame": lambda: g.StartGameRequest(name=world.lobby.name),
        "LeaveGame": lambda: g.LeaveGameRequest(name=world.lobby.name),
        "RemovePlayer": lambda: g.RemovePlayerRequest(
            name=f"{world.lobby.name}/players/1"
        ),
        "RotateInviteCode": lambda: g.RotateInviteCodeRequest(name=world.lobby.name),
        "ResignGame": lambda: g.ResignGameRequest(name=name),
        "SubmitMove": lambda: g.SubmitMoveRequest(
            name=name,
            move=_a_legal_move(world, table, current),
            expected_revision=revision,
        ),
        "ListLegalMoves": lambda: g.ListLegalMovesRequest(name=name, page_size=3),
        "SuggestMove": lambda: g.SuggestMoveRequest(name=name),
        "UndoMove": lambda: g.UndoMoveRequest(name=name, expected_revision=revision),
        "ProposeUndo": lambda: g.ProposeUndoRequest(
            name=name, expected_revision=revision
        ),
        "RespondUndo": lambda: g.RespondUndoRequest(
            name=name, proposal_id=1, vote=g.UNDO_VOTE_ACCEPT
        ),
        "StreamGame": lambda: g.StreamGameRequest(name=name, snapshot_first=True),
        "GetGameRevision": lambda: g.GetGameRevisionRequest(name=f"{name}/revisions/1"),
        "ListGameEvents": lambda: g.ListGameEventsRequest(parent=name, page_size=5),
        "ListGameTypes": g.ListGameTypesRequest,
        "ExportGame": lambda: game_audit_service_pb2.ExportGameRequest(name=name),
        "GetSigningKey": game_audit_service_pb2.GetSigningKeyRequest,
    }
    return builders[rpc]()


def _configured(table: Table) -> game_pb2.Game:
    game = game_pb2.Game(game_type=table.game_type)
    getattr(game, table.config_field).SetInParent()
    return game


def _a_legal_move(world: World, table: Table, game: game_pb2.Game) -> move_pb2.Move:
    if not game.current_player:
        return move_pb2.Move()
    token = table.tokens[int(game.current_player.rsplit("/", 1)[1])]
    reply = world.server.stub.ListLegalMoves(
        game_service_pb2.ListLegalMovesRequest(name=table.name, page_size=1),
        metadata=auth(token),
        timeout=10,
    )
    return reply.moves[0] if reply.moves else move_pb2.Move()


def _token(kind: str, position: int, query: str, revision: int) -> str:
    raw = json.dumps([kind, position, query, revision]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


HUGE_TEXT = st.sampled_from(
    ["x" * 200_000, "\u200f" * 100_000, "\U0001f469\u200d\U0001f680" * 30_000]
)
_EXTREMES = (-1, -(2**63), 2**63 - 1, 2**31 - 1, -(2**31), 10**6)
HUGE_INT = st.sampled_from(_EXTREMES)


def _extremes(descriptor: FieldDescriptor) -> st.SearchStrategy[int]:
    bits = 32 if descriptor.cpp_type == descriptor.CPPTYPE_INT32 else 64
    return st.sampled_from(
        [n for n in _EXTREMES if -(2 ** (bits - 1)) <= n < 2 ** (bits - 1)]
    )


@st.composite
def hostile_value(draw: st.DrawFn, world: World, request: Message, key: str) -> Any:
    """Returns a hostile replacement for one field of a valid request."""
    descriptor = cast("FieldDescriptor", request.DESCRIPTOR.fields_by_name[key])
    name = str(getattr(request, "name", "") or getattr(request, "parent", ""))
    # An earlier draw may have made the name hostile already: only a table's
    # own name is looked up.
    known = {table.name for table in world.tables}
    revision = world.game(name).revision if name in known else 0
    options: list[st.SearchStrategy[Any]] = [field_values(descriptor, 3)]
    if descriptor.type == descriptor.TYPE_STRING:
        options += [TEXT, HUGE_TEXT]
    if key in ("expected_revision", "page_size", "after_revision", "proposal_id"):
        options.append(_extremes(descriptor))
    if key == "page_token":
        kinds = st.sampled_from(["games", "legal-moves", "events", "x"])
        options.append(
            st.builds(
                _token,
                kinds,
                HUGE_INT | st.integers(),
                st.just(name),
                st.sampled_from([revision, *_EXTREMES]),
            )
        )
    if key == "name" and name:
        options.append(
            st.sampled_from(
                [f"{name}/revisions/{n}" for n in (0, 2**63 - 1, 10**30, -1)]
                + [world.tables[-1].name]
            )
        )
    if key == "move":
        options.append(st.sampled_from(_foreign_moves(world)))
    if key == "game":
        options.append(st.sampled_from([_mismatched(t) for t in world.tables]))
    return draw(st.one_of(options))


def _foreign_moves(world: World) -> list[move_pb2.Move]:
    moves = []
    for table in world.tables:
        game = world.game(table.name)
        moves.append(_a_legal_move(world, table, game))
    return moves


def _mismatched(table: Table) -> game_pb2.Game:
    game = game_pb2.Game(game_type=cast("game_pb2.GameType", table.game_type % 5 + 1))
    getattr(game, table.config_field).SetInParent()
    return game


@pytest.mark.parametrize("rpc", sorted(METHODS))
@FUZZ
@given(data=st.data())
def test_mutated_valid_requests_get_ok_or_a_well_formed_error(
    world: World, rpc: str, data: st.DataObject
) -> None:
    """A valid request for a live game, with fields and credentials made hostile."""
    table = data.draw(st.sampled_from(world.tables))
    request = _valid(world, rpc, table)
    keys = [f.name for f in request.DESCRIPTOR.fields]
    for key in data.draw(st.lists(st.sampled_from(keys), max_size=3)) if keys else []:
        value = data.draw(hostile_value(world, request, key))
        if isinstance(value, Message):
            getattr(request, key).CopyFrom(value)
        else:
            setattr(request, key, value)
    seat = data.draw(st.sampled_from(table.tokens))
    metadata = data.draw(st.one_of(st.just(auth(seat)), credentials(world)))
    call_and_check(world, rpc, request.SerializeToString(), metadata)


def _unknown_field(size: int) -> bytes:
    """Returns an unknown length-delimited field (number 1000) of ``size`` bytes."""
    header = bytes([0xC2, 0x3E])  # key of field 1000, wire type 2
    length = bytearray()
    rest = size
    while True:
        byte, rest = rest & 0x7F, rest >> 7
        length.append(byte | (0x80 if rest else 0))
        if not rest:
            return header + bytes(length) + b"x" * size


@pytest.mark.parametrize("rpc", sorted(METHODS))
def test_a_message_over_the_receive_limit_is_refused(world: World, rpc: str) -> None:
    """A valid request padded past the limit is refused before any handler runs."""
    table = world.tables[0]
    request = _valid(world, rpc, table)
    payload = request.SerializeToString() + _unknown_field(RECEIVE_LIMIT + 1)
    code = call_and_check(world, rpc, payload, auth(table.tokens[0]), oversized=True)
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_every_rpc_is_fuzzed() -> None:
    """A new RPC is fuzzed as soon as the protos declare it."""
    assert set(METHODS) >= {
        "SubmitMove",
        "ExportGame",
        "GetSigningKey",
        "StreamGame",
        "CreateGame",
    }
    assert GetMessageClass(METHODS["SubmitMove"].input_type) is (
        game_service_pb2.SubmitMoveRequest
    )


@pytest.mark.parametrize("rpc", sorted(METHODS))
def test_every_rpc_has_a_valid_request_to_mutate(world: World, rpc: str) -> None:
    """``_valid`` builds a request of the RPC's own input type for every RPC."""
    request = _valid(world, rpc, world.tables[0])
    assert request.DESCRIPTOR is METHODS[rpc].input_type
