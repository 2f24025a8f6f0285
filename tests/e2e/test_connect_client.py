"""A Node.js client of ``@connectrpc/connect`` plays whole games over the HTTP port.

``tests/web/play_connect.ts``, which ``make web`` bundles into
``infra/web/dist-node/play_connect.mjs``, uses the code protoc-gen-es generates
from ``protos/`` and the transports of ``@connectrpc/connect-web`` on Node's
fetch, as the web page does: the Connect protocol (binary and JSON) and
gRPC-Web. It plays a two-seat Qwirkle game while a spectator streams it, and
makes mistakes on purpose. This test checks what it reports against what the
gRPC API says of the same game and of the same mistakes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from tabletop.v1 import (
    common_pb2,
    event_pb2,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    move_pb2,
    qwirkle_pb2,
)

from tests.e2e.client import (
    expect_error,
    get,
    legal_moves,
    seat_of,
    start_two_seats,
    submit,
    verified_export,
)
from tests.e2e.conftest import Server, start_server

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "infra" / "web" / "dist-node" / "play_connect.mjs"
TIMEOUT = 120  # seconds for the whole game; it takes a few

# The client's arguments for each way of calling; each run plays its own game.
RUNS: dict[str, list[str]] = {
    "connect": ["--protocol", "connect"],
    "connect-json": ["--protocol", "connect", "--json"],
    "grpc-web": ["--protocol", "grpc-web", "--batch-events"],
}


def _node() -> str:
    """Returns the ``node`` executable; fails (never skips) when it cannot run."""
    node = shutil.which("node")
    if node is None:
        pytest.fail(
            "`node` is not on PATH: install Node.js 20 or later to run the Connect "
            "client of tests/web",
            pytrace=False,
        )
    if not BUNDLE.is_file():
        pytest.fail(
            f"{BUNDLE.relative_to(ROOT)} is missing: `make web` builds it "
            "(`make test` does too)",
            pytrace=False,
        )
    return node


@pytest.fixture
def http_server(postgres_url: str) -> Iterator[Server]:
    """Yields a server with its HTTP port and an operator credential."""
    running = start_server(
        postgres_url, dev=True, operator_token=uuid.uuid4().hex, http=True
    )
    yield running
    assert running.stop() == 0


def _play(url: str, arguments: list[str]) -> dict[str, Any]:
    """Runs the client against ``url``; returns its one-line JSON summary."""
    node = _node()
    try:
        done = subprocess.run(  # noqa: S603 (our own bundle, fixed arguments)
            [node, str(BUNDLE), *arguments, url],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        msg = f"the Connect client did not finish in {TIMEOUT} s: {expired.stderr!r}"
        raise AssertionError(msg) from expired
    assert done.returncode == 0, (
        f"the Connect client exited {done.returncode}:\n{done.stderr}{done.stdout}"
    )
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, f"expected one summary line, got {done.stdout!r}"
    summary: dict[str, Any] = json.loads(lines[0])
    return summary


# ---------------------------------------------------------------------------
# What the gRPC API says.


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(word.title() for word in rest)


def _kind(event: event_pb2.GameEvent) -> str:
    """The event's member as the client names it: ``qwirkle.tilesPlaced``."""
    member = event.WhichOneof("event") or ""
    kind = _camel(member)
    if member:
        fact: Message = getattr(event, member)
        if "event" in fact.DESCRIPTOR.oneofs_by_name:
            kind += "." + _camel(fact.WhichOneof("event") or "")
    return kind


def _events(
    stub: game_service_pb2_grpc.GameServiceStub, game: str
) -> list[dict[str, Any]]:
    """The game's events as ListGameEvents lists them, summarized as the client does."""
    events: list[dict[str, Any]] = []
    page_token = ""
    while True:
        reply = stub.ListGameEvents(
            game_service_pb2.ListGameEventsRequest(
                parent=game, page_size=1000, page_token=page_token
            ),
            timeout=10,
        )
        events += [
            {
                "revision": event.revision,
                "moveNumber": event.move_number,
                "actor": event.actor,
                "kind": _kind(event),
                "recordDigest": event.record_digest,
            }
            for event in reply.events
        ]
        page_token = reply.next_page_token
        if not page_token:
            return events


def _weight(move: move_pb2.Move) -> int:
    """The client's choice: the most tiles placed, else exchanged, else a pass."""
    qwirkle = move.qwirkle
    match qwirkle.WhichOneof("action"):
        case "place_tiles":
            return 1000 + len(qwirkle.place_tiles.placements)
        case "exchange_tiles":
            return 100 + len(qwirkle.exchange_tiles.tiles)
        case "pass_turn":
            return 1
        case _:
            return 0


def _placing(*cells: tuple[qwirkle_pb2.QwirkleTile, int, int]) -> move_pb2.Move:
    placements = [
        qwirkle_pb2.QwirklePlacement(tile=tile, at=common_pb2.Coordinate(x=x, y=y))
        for tile, x, y in cells
    ]
    return move_pb2.Move(
        qwirkle=qwirkle_pb2.QwirkleMove(
            place_tiles=qwirkle_pb2.QwirklePlaceTiles(placements=placements)
        )
    )


def _grpc_refusals(server: Server) -> list[dict[str, Any]]:
    """Makes the client's mistakes over gRPC in a game of its own; the refusals."""
    stub = server.stub
    name, tokens = start_two_seats(stub)
    seat = seat_of(get(stub, name).current_player)
    mover, other = tokens[seat], tokens[1 - seat]
    revision, moves = legal_moves(stub, name, mover)
    move = max(moves, key=_weight)
    tile = get(stub, name, mover).qwirkle_view.private_state.rack[0]

    def submitting(
        token: str | None, move: move_pb2.Move, base: int
    ) -> Callable[[], Any]:
        if token is None:
            request = game_service_pb2.SubmitMoveRequest(
                name=name,
                move=move,
                expected_revision=base,
                request_id=str(uuid.uuid4()),
            )
            return lambda: stub.SubmitMove(request, timeout=10)
        return lambda: submit(stub, name, token, move, expected_revision=base)

    def stream_unknown() -> None:
        unknown = f"games/{uuid.uuid4()}"
        list(
            stub.StreamGame(
                game_service_pb2.StreamGameRequest(name=unknown), timeout=10
            )
        )

    mistakes: list[tuple[str, str, Callable[[], Any]]] = [
        ("a move out of turn", "SubmitMove", submitting(other, move, revision)),
        ("a stale revision", "SubmitMove", submitting(mover, move, revision - 1)),
        (
            "a duplicate tile",
            "SubmitMove",
            submitting(mover, _placing((tile, 0, 0), (tile, 1, 0)), revision),
        ),
        (
            "a wrong seat token",
            "SubmitMove",
            submitting("not-a-seat-token", move, revision),
        ),
        ("no seat token", "SubmitMove", submitting(None, move, revision)),
        ("a stream of an unknown game", "StreamGame", stream_unknown),
    ]
    refusals = []
    for mistake, rpc, call in mistakes:
        code, reason, _ = expect_error(call)
        refusals.append(
            {"mistake": mistake, "rpc": rpc, "code": code.value[0], "reason": reason}
        )
    assert get(stub, name).revision == revision
    return refusals


# ---------------------------------------------------------------------------


@pytest.mark.parametrize("run", list(RUNS))
def test_a_connect_client_plays_and_streams_a_whole_qwirkle_game(
    http_server: Server, run: str
) -> None:
    server = http_server
    assert server.http_url is not None
    summary = _play(server.http_url, RUNS[run])
    assert summary["protocol"] == RUNS[run][1]
    assert summary["format"] == ("json" if "--json" in RUNS[run] else "binary")

    final = get(server.stub, summary["game"])
    assert final.game_type == game_pb2.GAME_TYPE_QWIRKLE
    assert final.state == game_pb2.GAME_STATE_FINISHED
    assert final.move_count == summary["moves"] > 0
    assert [player.score for player in final.players] == summary["scores"]
    assert [seat_of(winner) for winner in final.winners] == summary["winners"]
    assert final.etag == summary["etag"]
    assert final.record_digest == summary["recordDigest"]

    # The spectator's stream saw every revision once, in order, the last one
    # included, each the event the gRPC API lists (its digest covers the record).
    events = _events(server.stub, final.name)
    assert final.revision == summary["finalRevision"] == summary["eventsStreamed"]
    assert [event["revision"] for event in events] == list(range(1, final.revision + 1))
    assert summary["events"] == events
    assert events[-1]["kind"] == "gameFinished"
    others = summary["heartbeats"] + summary["snapshots"]
    if "--batch-events" in RUNS[run]:
        assert 0 < summary["streamBatches"] < summary["eventsStreamed"]
        assert summary["streamItems"] == summary["streamBatches"] + others
    else:
        assert summary["streamBatches"] == 0
        assert summary["streamItems"] == summary["eventsStreamed"] + others

    # Each mistake was refused with the code and reason the gRPC API gives.
    checked = [
        {key: refusal[key] for key in ("mistake", "rpc", "code", "reason")}
        for refusal in summary["errorsChecked"]
    ]
    assert checked == _grpc_refusals(server)
    assert [refusal["reason"] for refusal in checked] == [
        "NOT_YOUR_TURN",
        "REVISION_MISMATCH",
        "DUPLICATE_TILE",
        "INVALID_CREDENTIALS",
        "MISSING_CREDENTIALS",
        "GAME_NOT_FOUND",
    ]

    assert server.operator_token is not None
    report = verified_export(server.channel, final.name, server.operator_token)
    assert report.ok, report.render()
    assert report.finished
