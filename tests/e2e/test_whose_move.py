"""Who is to act, through the real server: the answers a client reads it from.

``GameStarted.turn_order`` starts with the seat that takes the first turn,
``Game.players_to_act`` names every player the game waits for (several in
Gnoming A Round's initial flip, where ``current_player`` is empty), and a
caller with no move now (a spectator, a seat not to act) gets empty answers
from ListLegalMoves and SuggestMove alike.
"""

from __future__ import annotations

import base64
import secrets

import grpc
from tabletop.v1 import auth_service_pb2 as auth_api
from tabletop.v1 import auth_service_pb2_grpc, event_pb2, game_pb2, gnoming_a_round_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import auth, expect_error, get, seat_of, seat_two
from tests.e2e.conftest import Server
from tests.e2e.playthrough import open_table

Metadata = tuple[tuple[str, str], ...] | None


def _legal(server: Server, name: str, metadata: Metadata) -> api.ListLegalMovesResponse:
    request = api.ListLegalMovesRequest(name=name, page_size=5)
    reply: api.ListLegalMovesResponse = server.stub.ListLegalMoves(
        request, metadata=metadata, timeout=10
    )
    return reply


def _suggest(server: Server, name: str, metadata: Metadata) -> api.SuggestMoveResponse:
    request = api.SuggestMoveRequest(name=name)
    reply: api.SuggestMoveResponse = server.stub.SuggestMove(
        request, metadata=metadata, timeout=10
    )
    return reply


def _signed_in(server: Server) -> str:
    """Returns the access token of a new player, who sits at no table."""
    stub = auth_service_pb2_grpc.AuthServiceStub(server.channel)
    device = base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")
    request = auth_api.SignInWithDeviceRequest(device_id=device, display_name="Cy")
    token: str = stub.SignInWithDevice(request, timeout=10).session.access_token
    return token


def _started(events: list[event_pb2.GameEvent]) -> list[str]:
    (started,) = [e.game_started for e in events if e.HasField("game_started")]
    return list(started.turn_order)


def test_a_spectator_and_a_seat_not_to_act_get_the_same_empty_answers(
    server: Server,
) -> None:
    name, tokens = seat_two(server.stub)
    waiting = get(server.stub, name)
    for metadata in (None, auth(tokens[0])):  # no move before play begins
        assert list(_legal(server, name, metadata).moves) == []
        assert not _suggest(server, name, metadata).HasField("move")
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    game = get(server.stub, name)
    assert game.revision > waiting.revision
    mover = seat_of(game.current_player)
    # No token, a signed-in player without a seat here, a seat not to act.
    for metadata in (None, auth(_signed_in(server)), auth(tokens[1 - mover])):
        legal = _legal(server, name, metadata)
        assert (list(legal.moves), legal.next_page_token) == ([], "")
        assert legal.revision == game.revision
        suggested = _suggest(server, name, metadata)
        assert not suggested.HasField("move")
        assert suggested.revision == game.revision
    assert len(_legal(server, name, auth(tokens[mover])).moves) == 5
    assert _suggest(server, name, auth(tokens[mover])).HasField("move")
    # A token that is nobody's here is still refused, as by every call.
    for call, request in (
        (server.stub.ListLegalMoves, api.ListLegalMovesRequest(name=name)),
        (server.stub.SuggestMove, api.SuggestMoveRequest(name=name)),
    ):
        code, reason, _ = expect_error(
            call, request, metadata=auth("made-up-token"), timeout=10
        )
        assert (code, reason) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "INVALID_CREDENTIALS",
        )


def test_qwirkle_turn_order_starts_with_the_starting_player(server: Server) -> None:
    name, tokens = seat_two(server.stub)
    reply = server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    listed = server.stub.ListGameEvents(
        api.ListGameEventsRequest(parent=name), timeout=10
    )
    starter = reply.game.current_player
    order = [starter, f"{name}/players/{1 - seat_of(starter)}"]
    assert _started(list(listed.events)) == order
    assert list(reply.game.players_to_act) == [starter]


def test_gnoming_a_round_names_everyone_to_flip_then_its_first_player(
    server: Server,
) -> None:
    config = gnoming_a_round_pb2.GnomingARoundConfig(first_player=1)
    game = game_pb2.Game(
        game_type=game_pb2.GAME_TYPE_GNOMING_A_ROUND, gnoming_a_round_config=config
    )
    name, tokens = open_table(server, game)
    players = [f"{name}/players/{seat}" for seat in range(3)]
    # A spectator's live feed, opened before the start, sees GameStarted as it
    # happens: converted before the opening events that choose who starts.
    stream = server.stub.StreamGame(api.StreamGameRequest(name=name), timeout=30)
    for item in stream:  # up to the end of its catch-up: the waiting table
        if item.HasField("caught_up"):
            break
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    live = next(item.event for item in stream if item.event.HasField("game_started"))
    stream.cancel()
    expected = [players[1], players[2], players[0]]
    assert list(live.game_started.turn_order) == expected
    listed = server.stub.ListGameEvents(
        api.ListGameEventsRequest(parent=name), timeout=10
    )
    assert _started(list(listed.events)) == expected

    flipping = get(server.stub, name)
    assert list(flipping.players_to_act) == players
    assert flipping.current_player == ""
    for seat, token in enumerate(tokens):
        move = _suggest(server, name, auth(token))
        assert move.HasField("move")
        server.stub.SubmitMove(
            api.SubmitMoveRequest(name=name, move=move.move),
            metadata=auth(token),
            timeout=10,
        )
        left = get(server.stub, name).players_to_act
        assert list(left) == (players[seat + 1 :] or [players[1]])
    turn = get(server.stub, name)
    assert turn.current_player == players[1]
