"""A whole game through the server, the same way for every game.

Every seat that may act is offered its legal moves; the first move that its
mover may take back alone is taken back and made again (it must give the same
facts); a spectator's stream, a middle replay and the audit export are checked
at the end.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict
from collections.abc import Callable

import grpc
from tabletop.v1 import event_pb2, game_pb2, move_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import Spectator, auth, get, legal_moves, verified_export
from tests.e2e.conftest import Server

Option = tuple[int, move_pb2.Move]
SEED = bytes(range(32))
NAMES = ("Ana", "Ben", "Cy")


def open_table(
    server: Server, game: game_pb2.Game, names: tuple[str, ...] = NAMES
) -> tuple[str, list[str]]:
    """Opens a table of ``game`` with a fixed seed and seats ``names``; returns
    the game's name and the seat tokens in seat order."""
    created = server.stub.CreateGame(
        api.CreateGameRequest(
            game=game,
            display_name=names[0],
            seed=SEED,
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )
    name, tokens = created.game.name, [created.seat_token]
    for display_name in names[1:]:
        joined = server.stub.JoinGame(
            api.JoinGameRequest(name=name, display_name=display_name), timeout=10
        )
        tokens.append(joined.seat_token)
    return name, tokens


def by_action(
    game_field: str, chooser: random.Random
) -> Callable[[list[Option]], Option]:
    """Returns a chooser of a random option, the kind of action drawn first, so
    that rare actions (a second cue, a bonus, going out) come up briskly."""

    def choose(options: list[Option]) -> Option:
        grouped: dict[str, list[Option]] = defaultdict(list)
        for option in options:
            action = getattr(option[1], game_field).WhichOneof("action")
            grouped[str(action)].append(option)
        return chooser.choice(grouped[chooser.choice(sorted(grouped))])

    return choose


def _facts(events: list[event_pb2.GameEvent], game_field: str) -> list[bytes]:
    return [
        getattr(e, game_field).SerializeToString()
        for e in events
        if e.HasField(game_field)
    ]


def _undoable(reply: api.SubmitMoveResponse) -> bool:
    played = [e.move_played for e in reply.events if e.HasField("move_played")]
    in_progress = reply.game.state == game_pb2.GAME_STATE_IN_PROGRESS
    return bool(played) and played[0].undoable and in_progress


def play_with_one_self_undo(
    server: Server,
    name: str,
    tokens: list[str],
    choose: Callable[[list[Option]], Option],
    game_field: str,
) -> int:
    """Plays to the end with any seat that may act; returns the self-undos made."""
    undone = 0
    while get(server.stub, name).state == game_pb2.GAME_STATE_IN_PROGRESS:
        options: list[Option] = []
        revision = 0
        for seat, token in enumerate(tokens):
            revision, moves = legal_moves(server.stub, name, token)
            options += [(seat, move) for move in moves]
        seat, move = choose(options)
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
            assert _facts(list(again.events), game_field) == _facts(
                list(reply.events), game_field
            )
            undone += 1
    return undone


def check_the_finished_game(server: Server, name: str, spectator: Spectator) -> None:
    """Checks the stream, a middle replay and the audit export of a finished game."""
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
