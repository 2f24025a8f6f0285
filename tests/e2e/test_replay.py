"""Replay through a real server on PostgreSQL: a revision's snapshot and event pages."""

from __future__ import annotations

import random

import grpc
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2

from tests.e2e.client import (
    auth,
    expect_error,
    get,
    legal_moves,
    play_to_end,
    seat_of,
    start_two_seats,
    submit,
)
from tests.e2e.conftest import Server

PAGE_SIZE = 7


def _revision(
    server: Server, name: str, revision: int, token: str | None = None
) -> game_pb2.Game:
    reply = server.stub.GetGameRevision(
        game_service_pb2.GetGameRevisionRequest(name=f"{name}/revisions/{revision}"),
        metadata=auth(token) if token else None,
        timeout=10,
    )
    return reply.snapshot


def _pages(server: Server, name: str) -> list[list[int]]:
    """Returns the revisions of every page a spectator lists, PAGE_SIZE at a time."""
    pages: list[list[int]] = []
    page_token = ""
    while True:
        reply = server.stub.ListGameEvents(
            game_service_pb2.ListGameEventsRequest(
                parent=name, page_size=PAGE_SIZE, page_token=page_token
            ),
            timeout=10,
        )
        pages.append([event.revision for event in reply.events])
        page_token = reply.next_page_token
        if not page_token:
            return pages


def _all_events(server: Server, name: str) -> list[event_pb2.GameEvent]:
    reply = server.stub.ListGameEvents(
        game_service_pb2.ListGameEventsRequest(parent=name, page_size=1000),
        timeout=10,
    )
    assert not reply.next_page_token
    return list(reply.events)


def test_a_spectator_replays_a_whole_game_by_revision_and_in_pages_of_seven(
    server: Server,
) -> None:
    name, tokens = start_two_seats(server.stub, random.Random(7).randbytes(32))
    chooser = random.Random(2026)
    for _ in range(6):  # a few moves, then replay while the game is in progress
        current = get(server.stub, name)
        seat = seat_of(current.current_player)
        revision, moves = legal_moves(server.stub, name, tokens[seat])
        submit(server.stub, name, tokens[seat], chooser.choice(moves), revision)
    during = get(server.stub, name).revision
    for revision in range(1, during + 1):
        seen = _revision(server, name, revision)
        assert seen.revision == revision
        assert not seen.qwirkle_view.HasField("private_state")
        assert not seen.qwirkle_view.public_state.revealed_racks
        assert seen.seed == ""
    own = _revision(server, name, during, tokens[1]).qwirkle_view.private_state.rack
    assert len(own) == 6

    play_to_end(server.stub, name, tokens, chooser.choice)
    final = get(server.stub, name)
    assert final.state == game_pb2.GAME_STATE_FINISHED
    last = final.revision

    pages = _pages(server, name)
    revisions = [revision for page in pages for revision in page]
    assert revisions == list(range(1, last + 1))  # each exactly once, in order
    assert all(len(page) == PAGE_SIZE for page in pages[:-1])
    assert 1 <= len(pages[-1]) <= PAGE_SIZE

    middle = last // 2
    snapshot = _revision(server, name, middle)
    assert snapshot.revision == middle
    assert snapshot.state == game_pb2.GAME_STATE_IN_PROGRESS
    assert snapshot.seed == final.seed != ""
    racks = snapshot.qwirkle_view.public_state.revealed_racks
    assert len(racks) == 2
    sizes = snapshot.qwirkle_view.public_state.rack_sizes
    assert [len(rack.tiles) for rack in racks] == list(sizes)

    code, reason, metadata = expect_error(_revision, server, name, last + 1)
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "REVISION_NOT_FOUND")
    assert metadata["currentRevision"] == str(last)

    events = _all_events(server, name)
    dealt = next(e for e in events if e.qwirkle.HasField("tiles_dealt"))
    assert [len(r.tiles) for r in dealt.qwirkle.tiles_dealt.racks] == [6, 6]
    assert events[-1].game_finished.seed == final.seed
