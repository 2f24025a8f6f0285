"""Three seats play Split to the end through the real server.

A spectator follows the whole game on ``StreamGame``; on the way a seat takes
back a move that drew and revealed nothing by itself (D21), a middle revision
is replayed, and the operator's export of the finished game verifies.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict

import grpc
from tabletop.v1 import event_pb2, game_pb2, move_pb2, split_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import Spectator, auth, get, legal_moves, verified_export
from tests.e2e.conftest import Server

SEED = bytes(range(32))
NAMES = ("Ana", "Ben", "Cy")


def _open_table(server: Server) -> tuple[str, list[str]]:
    created = server.stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_SPLIT,
                split_config=split_pb2.SplitConfig(),
            ),
            display_name=NAMES[0],
            seed=SEED,
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )
    name, tokens = created.game.name, [created.seat_token]
    for display_name in NAMES[1:]:
        joined = server.stub.JoinGame(
            api.JoinGameRequest(name=name, display_name=display_name), timeout=10
        )
        tokens.append(joined.seat_token)
    return name, tokens


def _facts(events: list[event_pb2.GameEvent]) -> list[bytes]:
    return [e.split.SerializeToString() for e in events if e.HasField("split")]


def _undoable(reply: api.SubmitMoveResponse) -> bool:
    played = [e.move_played for e in reply.events if e.HasField("move_played")]
    return (
        bool(played)
        and played[0].undoable
        and reply.game.state == (game_pb2.GAME_STATE_IN_PROGRESS)
    )


def _choose(
    options: list[tuple[int, move_pb2.Move]], chooser: random.Random
) -> tuple[int, move_pb2.Move]:
    """Returns a random option, by action first so that rounds end briskly."""
    by_action: dict[str, list[tuple[int, move_pb2.Move]]] = defaultdict(list)
    for option in options:
        by_action[str(option[1].split.WhichOneof("action"))].append(option)
    return chooser.choice(by_action[chooser.choice(sorted(by_action))])


def _play(server: Server, name: str, tokens: list[str], chooser: random.Random) -> int:
    """Plays until the end, any seat that may act; returns the self-undos made."""
    undone = 0
    while get(server.stub, name).state == game_pb2.GAME_STATE_IN_PROGRESS:
        options: list[tuple[int, move_pb2.Move]] = []
        revision = 0
        for seat, token in enumerate(tokens):
            revision, moves = legal_moves(server.stub, name, token)
            options += [(seat, move) for move in moves]
        seat, move = _choose(options, chooser)
        request = api.SubmitMoveRequest(name=name, move=move)
        reply = server.stub.SubmitMove(request, metadata=auth(tokens[seat]), timeout=10)
        if undone == 0 and _undoable(reply):
            taken = server.stub.UndoMove(
                api.UndoMoveRequest(name=name, expected_revision=reply.game.revision),
                metadata=auth(tokens[seat]),
                timeout=10,
            )
            assert any(e.HasField("moves_undone") for e in taken.events)
            assert taken.game.revision > revision
            again = server.stub.SubmitMove(
                request, metadata=auth(tokens[seat]), timeout=10
            )
            assert _facts(list(again.events)) == _facts(list(reply.events))
            undone += 1
    return undone


def test_three_seats_play_split_to_the_end_while_a_spectator_follows(
    server: Server,
) -> None:
    name, tokens = _open_table(server)
    spectator = Spectator(server.stub, name)
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )

    assert _play(server, name, tokens, random.Random(2026)) == 1

    final = get(server.stub, name)
    assert final.state == game_pb2.GAME_STATE_FINISHED
    items = spectator.finish()
    assert spectator.code == grpc.StatusCode.OK
    *_, last_event, snapshot = items
    finished = last_event.event.game_finished
    assert [s.score for s in finished.scores] == [p.score for p in final.players]
    assert list(finished.winners) == list(final.winners)
    assert snapshot.snapshot.seed == final.seed != ""
    seen = [item.event for item in items if item.HasField("event")]
    assert [e.revision for e in seen] == list(range(1, final.revision + 1))
    assert any(e.HasField("moves_undone") for e in seen)

    middle = server.stub.GetGameRevision(
        api.GetGameRevisionRequest(name=f"{name}/revisions/{final.revision // 2}"),
        timeout=10,
    ).snapshot
    assert middle.revision == final.revision // 2
    assert middle.seed == final.seed

    assert server.operator_token is not None
    report = verified_export(server.channel, name, server.operator_token)
    assert report.ok, report.render()
