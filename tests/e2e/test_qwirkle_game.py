"""Two seats play Qwirkle to the end through the real server and PostgreSQL."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import grpc
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from tabletop.v1 import game_pb2, game_service_pb2

from domain.common import table as tables
from domain.common.decision import Accepted
from domain.common.rng import Rng, commitment
from domain.games.qwirkle import RULES, Color, QwirkleConfig, Shape, Tile
from services.api.convert.registry import converter_for
from tests.e2e.client import (
    auth,
    create_qwirkle,
    expect_error,
    get,
    health_status,
    legal_moves,
    play_to_end,
    seat_of,
    start_two_seats,
)
from tests.e2e.conftest import Server

convert = converter_for("qwirkle")

SEED = bytes(range(32))


def _domain_replay(seed: bytes, played: list[tuple[int, Any]]) -> tables.Table:
    """Plays the same moves on the pure domain: the scores the server must report."""
    opening = tables.GameCreated(
        RULES.name, QwirkleConfig(), 2, commitment(seed), seed.hex()
    )
    created = tables.create(RULES, opening, tables.SeatHolder("Ana", ""))
    assert isinstance(created, Accepted)
    table: tables.Table | None = None
    for event in (*created.events, tables.PlayerJoined(1, "Ben", "")):
        table = tables.evolve(table, event, RULES)
    assert table is not None
    decisions = [tables.start(table, RULES, 0)]
    for seat, move in played:
        assert isinstance(decisions[-1], Accepted)
        for event in decisions[-1].events:
            table = tables.evolve(table, event, RULES)
        command = convert.move_from_proto(move.qwirkle, seat, "move.qwirkle")
        decisions.append(tables.play(table, RULES, seat, command))
    last = decisions[-1]
    assert isinstance(last, Accepted)
    for event in last.events:
        table = tables.evolve(table, event, RULES)
    return table


def test_two_seats_play_a_whole_game_and_the_scores_match_the_domain(
    server: Server,
) -> None:
    name, tokens = start_two_seats(server.stub, SEED)
    chooser = random.Random(2026)
    spectator_view = get(server.stub, name)
    assert not spectator_view.qwirkle_view.HasField("private_state")

    played = play_to_end(server.stub, name, tokens, chooser.choice)

    final = get(server.stub, name)
    assert final.state == game_pb2.GAME_STATE_FINISHED
    expected = _domain_replay(SEED, played)
    assert expected.final is not None
    assert [p.score for p in final.players] == list(expected.final.scores)
    assert [int(w.rsplit("/", 1)[1]) for w in final.winners] == list(
        expected.final.winners
    )
    assert final.move_count == len(played)


def test_the_revealed_seed_matches_its_commitment_and_rederives_the_racks(
    server: Server,
) -> None:
    name, tokens = start_two_seats(server.stub)  # the server draws the seed
    opening = [get(server.stub, name, token) for token in tokens]
    committed = opening[0].seed_commitment
    assert all(view.seed == "" for view in opening)

    play_to_end(server.stub, name, tokens, random.Random(5).choice)

    final = get(server.stub, name)
    seed = bytes.fromhex(final.seed)
    prefix = b"tabletop/seed-commitment/v1"
    assert hashlib.sha256(prefix + seed).hexdigest() == committed
    canonical = [Tile(c, s) for c in Color for s in Shape for _ in range(3)]
    shuffled = Rng(seed).shuffle("qwirkle/round-1/shuffle", canonical)
    for seat, view in enumerate(opening):
        dealt = shuffled[seat * 6 : seat * 6 + 6]
        rack = view.qwirkle_view.private_state.rack
        seen = [convert.mapper.read(t, Tile, "tile") for t in rack]
        assert Counter(seen) == Counter(dealt)


def test_the_server_reports_health_and_serves_reflection(server: Server) -> None:
    for service in ("", "tabletop.v1.GameService"):
        status = health_status(server.channel, service)
        assert status == health_pb2.HealthCheckResponse.SERVING
    database = ProtoReflectionDescriptorDatabase(server.channel)
    assert "tabletop.v1.GameService" in database.get_services()


def test_list_games_finds_a_waiting_table_by_filter(server: Server) -> None:
    waiting = create_qwirkle(server.stub, "Cy").game.name
    started, _ = start_two_seats(server.stub)
    reply = server.stub.ListGames(
        game_service_pb2.ListGamesRequest(filter="state = WAITING_FOR_PLAYERS"),
        timeout=10,
    )
    names = [game.name for game in reply.games]
    assert waiting in names
    assert started not in names


def test_a_token_of_one_game_does_not_open_another(server: Server) -> None:
    _, first_tokens = start_two_seats(server.stub)
    second, _ = start_two_seats(server.stub)
    code, reason, _ = expect_error(get, server.stub, second, first_tokens[0])
    assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "INVALID_CREDENTIALS")


def test_a_basic_move_reply_is_the_basic_game_and_the_seats_own_events(
    server: Server,
) -> None:
    name, tokens = start_two_seats(server.stub, SEED)
    mover = seat_of(get(server.stub, name, tokens[0]).current_player)
    revision, moves = legal_moves(server.stub, name, tokens[mover])
    reply = server.stub.SubmitMove(
        game_service_pb2.SubmitMoveRequest(
            name=name,
            move=moves[0],
            expected_revision=revision,
            view=game_service_pb2.GAME_VIEW_BASIC,
        ),
        metadata=auth(tokens[mover]),
        timeout=10,
    )

    assert reply.game.WhichOneof("view") is None
    basic = server.stub.GetGame(
        game_service_pb2.GetGameRequest(
            name=name, view=game_service_pb2.GAME_VIEW_BASIC
        ),
        metadata=auth(tokens[mover]),
        timeout=10,
    ).game
    assert reply.game == basic
    listed = server.stub.ListGameEvents(
        game_service_pb2.ListGameEventsRequest(parent=name),
        metadata=auth(tokens[mover]),
        timeout=10,
    ).events
    assert list(reply.events) == [e for e in listed if e.revision > revision]
    assert any(event.HasField("qwirkle") for event in reply.events)
