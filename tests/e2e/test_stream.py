"""StreamGame across two server processes on one PostgreSQL schema.

Seats play through server B while spectators and a seat watch through server A:
moves reach A through the event store's LISTEN/NOTIFY subscription.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator

import grpc
import pytest
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2, game_service_pb2_grpc

from tests.e2e.client import (
    auth,
    create_qwirkle,
    error_of,
    expect_error,
    get,
    seat_two,
)
from tests.e2e.client import play_to_end as play
from tests.e2e.conftest import Server, start_server
from tests.pg import fresh_schema

HEARTBEAT = 0.5
DEADLINE = 60  # seconds: no stream call may hang the suite
Item = game_service_pb2.StreamGameResponse


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with fresh_schema() as url:
        yield url


@pytest.fixture(scope="module")
def servers(database: str) -> Iterator[tuple[Server, Server]]:
    """Yields servers A and B, both on ``database``."""
    first = start_server(database, dev=True, heartbeat_seconds=HEARTBEAT)
    second = start_server(database, dev=True, heartbeat_seconds=HEARTBEAT)
    yield first, second
    assert first.stop() == 0
    assert second.stop() == 0


def request(
    name: str, after: int = 0, *, snapshot_first: bool = False, batch: bool = False
) -> game_service_pb2.StreamGameRequest:
    return game_service_pb2.StreamGameRequest(
        name=name,
        after_revision=after,
        snapshot_first=snapshot_first,
        batch_events=batch,
    )


class Watcher:
    """Reads one stream in a background thread, keeping every item.

    With ``resume_after`` it cancels its call once it has seen that revision and
    calls again from the last revision it received, as a reconnecting app does.
    ``live`` is set once its first call has caught up (or ended).
    """

    def __init__(
        self,
        stub: game_service_pb2_grpc.GameServiceStub,
        name: str,
        token: str | None = None,
        resume_after: int = 0,
        *,
        batch: bool = False,
    ) -> None:
        self.stub, self.name, self.token = stub, name, token
        self.resume_after = resume_after
        self.batch = batch
        self.calls: list[list[Item]] = []
        self.codes: list[grpc.StatusCode] = []
        self.live = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        after = 0
        try:
            while True:
                items: list[Item] = []
                self.calls.append(items)
                call = self.stub.StreamGame(
                    request(self.name, after, batch=self.batch),
                    metadata=auth(self.token) if self.token else None,
                    timeout=DEADLINE,
                )
                for item in call:
                    items.append(item)
                    if item.HasField("caught_up"):
                        self.live.set()
                    if self.resume_after and item.event.revision >= self.resume_after:
                        break
                else:
                    self.codes.append(call.code())
                    return
                call.cancel()
                self.codes.append(call.code())
                after, self.resume_after = item.event.revision, 0
        finally:
            self.live.set()

    def finish(self) -> list[Item]:
        """Waits for the stream to end; returns every item of every call."""
        self.thread.join(DEADLINE)
        assert not self.thread.is_alive()
        return [item for items in self.calls for item in items]


def check_catch_up(items: list[Item]) -> int:
    """Checks that one call's items hold one ``caught_up``, where the live part starts.

    Events up to its revision come before it, newer ones and heartbeats after;
    returns its revision.
    """
    kinds = [item.WhichOneof("item") for item in items]
    assert kinds.count("caught_up") == 1, kinds
    at = kinds.index("caught_up")
    revision = items[at].caught_up.revision
    assert all(e.revision <= revision for e in events_of(items[:at]))
    assert all(e.revision > revision for e in events_of(items[at + 1 :]))
    assert "heartbeat" not in kinds[:at]
    return revision


def revisions(items: list[Item]) -> list[int]:
    return [item.event.revision for item in items if item.HasField("event")]


def events_of(items: list[Item]) -> list[event_pb2.GameEvent]:
    """Returns the events of a stream's items, one per item or batched."""
    found: list[event_pb2.GameEvent] = []
    for item in items:
        if item.HasField("event"):
            found.append(item.event)
        elif item.HasField("events"):
            found.extend(item.events.events)
    return found


def tiles_of_others(event: event_pb2.GameEvent, name: str, seat: int) -> int:
    """Counts the tiles an event shows of racks other than ``seat``'s (-1: all)."""
    qwirkle, player = event.qwirkle, f"{name}/players/{seat}"
    if qwirkle.HasField("tiles_dealt"):
        racks = qwirkle.tiles_dealt.racks
        return sum(len(rack.tiles) for i, rack in enumerate(racks) if i != seat)
    if qwirkle.HasField("tiles_drawn") and qwirkle.tiles_drawn.player != player:
        return len(qwirkle.tiles_drawn.tiles)
    exchanged = qwirkle.tiles_exchanged
    if qwirkle.HasField("tiles_exchanged") and exchanged.player != player:
        return len(exchanged.returned) + len(exchanged.drawn)
    return 0


def test_watchers_on_one_server_see_a_game_played_on_another(
    servers: tuple[Server, Server],
) -> None:
    watched, played = servers
    name, tokens = seat_two(played.stub)
    spectator = Watcher(watched.stub, name)
    resumer = Watcher(watched.stub, name, resume_after=12)
    seat = Watcher(watched.stub, name, tokens[0])
    for watcher in (spectator, resumer, seat):
        assert watcher.live.wait(10)
    time.sleep(2.5 * HEARTBEAT)  # idle: heartbeats
    played.stub.StartGame(
        game_service_pb2.StartGameRequest(name=name),
        metadata=auth(tokens[0]),
        timeout=10,
    )
    play(played.stub, name, tokens, random.Random(5).choice)
    final = get(played.stub, name)
    everything = list(range(1, final.revision + 1))

    seen = spectator.finish()
    assert spectator.codes == [grpc.StatusCode.OK]
    assert revisions(seen) == everything
    assert check_catch_up(seen) == 3  # the table as it waited for StartGame
    started = next(i for i, item in enumerate(seen) if item.event.revision == 4)
    waiting = seen[:started]  # before StartGame's first event
    idle = [item.heartbeat.revision for item in waiting if item.HasField("heartbeat")]
    assert idle  # sent while the table waited, at its revision
    assert set(idle) == {3}
    *_, last_event, snapshot = seen
    assert snapshot.snapshot.state == game_pb2.GAME_STATE_FINISHED
    assert snapshot.snapshot.revision == final.revision
    assert snapshot.snapshot.seed
    before_end = [item.event for item in seen if item.HasField("event")][:-1]
    assert sum(tiles_of_others(event, name, -1) for event in before_end) == 0
    finished = last_event.event.game_finished
    assert [s.score for s in finished.scores] == [p.score for p in final.players]
    assert list(finished.winners) == list(final.winners)

    resumed = resumer.finish()
    assert resumer.codes == [grpc.StatusCode.CANCELLED, grpc.StatusCode.OK]
    assert revisions(resumer.calls[0])[-1] == 12
    assert revisions(resumed) == everything
    # Each call catches up once: the first with the waiting table, the second
    # from revision 12 to wherever the game had got to when it called again.
    assert check_catch_up(resumer.calls[0]) == 3
    assert check_catch_up(resumer.calls[1]) >= 12

    mine = seat.finish()
    assert revisions(mine) == everything
    assert check_catch_up(mine) == 3
    player = f"{name}/players/0"
    in_play = [i.event for i in mine if i.HasField("event")][:-1]  # before the end
    assert sum(tiles_of_others(event, name, 0) for event in in_play) == 0
    dealt = next(
        e.qwirkle.tiles_dealt for e in in_play if e.qwirkle.HasField("tiles_dealt")
    )
    assert len(dealt.racks[0].tiles) == 6
    own_draws = [
        e.qwirkle.tiles_drawn for e in in_play if e.qwirkle.tiles_drawn.player == player
    ]
    assert own_draws
    assert all(len(d.tiles) == d.count for d in own_draws)

    check_late_calls(watched.stub, final)


def check_late_calls(
    stub: game_service_pb2_grpc.GameServiceStub, final: game_pb2.Game
) -> None:
    """Checks that a client calling after the end gets the final game and OK.

    Nothing is live there, so no ``caught_up`` is sent.
    """
    name = final.name
    for late in (request(name, final.revision), request(name, snapshot_first=True)):
        items = list(stub.StreamGame(late, timeout=10))
        assert [item.WhichOneof("item") for item in items] == ["snapshot"]
        assert items[0].snapshot.state == game_pb2.GAME_STATE_FINISHED
        assert items[0].snapshot.revision == final.revision


def test_batched_and_per_event_streams_carry_the_same_events_in_order(
    servers: tuple[Server, Server],
) -> None:
    watched, played = servers
    name, tokens = seat_two(played.stub)
    watchers = {
        (token, batch): Watcher(watched.stub, name, token, batch=batch)
        for token in (None, tokens[1])
        for batch in (False, True)
    }
    for watcher in watchers.values():
        assert watcher.live.wait(10)
    played.stub.StartGame(
        game_service_pb2.StartGameRequest(name=name),
        metadata=auth(tokens[0]),
        timeout=10,
    )
    play(played.stub, name, tokens, random.Random(8).choice)
    final = get(played.stub, name)

    seen = {key: watcher.finish() for key, watcher in watchers.items()}
    assert all(w.codes == [grpc.StatusCode.OK] for w in watchers.values())
    for token in (None, tokens[1]):
        one_each, batched = seen[token, False], seen[token, True]
        assert [e.revision for e in events_of(one_each)] == list(
            range(1, final.revision + 1)
        )
        assert events_of(batched) == events_of(one_each)
        kinds = {item.WhichOneof("item") for item in batched}
        assert kinds <= {"events", "caught_up", "heartbeat", "snapshot"}
        assert check_catch_up(batched) == check_catch_up(one_each) == 3
        assert all(0 < len(i.events.events) <= 100 for i in batched if i.events.events)
        assert batched[-1] == one_each[-1]  # the same final snapshot
        assert batched[-1].snapshot.state == game_pb2.GAME_STATE_FINISHED
    assert events_of(seen[None, True]) != events_of(seen[tokens[1], True])


def test_a_snapshot_first_stream_shows_the_seat_then_follows_the_table(
    servers: tuple[Server, Server],
) -> None:
    watched, played = servers
    created = create_qwirkle(played.stub, "Ana")
    name = created.game.name
    call = watched.stub.StreamGame(
        request(name, snapshot_first=True),
        metadata=auth(created.seat_token),
        timeout=10,
    )
    first = next(call)
    assert first.snapshot.revision == 2
    assert first.snapshot.players[0].display_name == "Ana"
    # Caught up at once, without waiting for the first heartbeat.
    assert next(call).caught_up.revision == 2
    assert next(call).heartbeat.revision == 2
    played.stub.JoinGame(
        game_service_pb2.JoinGameRequest(name=name, display_name="Ben"), timeout=10
    )
    following = next(call)
    while following.HasField("heartbeat"):
        following = next(call)
    assert following.event.revision == 3
    assert following.event.player_joined.display_name == "Ben"
    call.cancel()


def test_bad_stream_requests_are_refused(servers: tuple[Server, Server]) -> None:
    watched, played = servers
    created = create_qwirkle(played.stub, "Ana")
    name = created.game.name
    other = create_qwirkle(played.stub, "Cy")

    def first(
        req: game_service_pb2.StreamGameRequest, token: str | None = None
    ) -> Callable[[], Item]:
        metadata = auth(token) if token else None
        return lambda: next(watched.stub.StreamGame(req, metadata=metadata, timeout=10))

    unknown = "games/00000000-0000-4000-8000-000000000000"
    cases = [
        (
            first(request(name), other.seat_token),
            "UNAUTHENTICATED",
            "INVALID_CREDENTIALS",
        ),
        (first(request(name), "not-a-seat"), "UNAUTHENTICATED", "INVALID_CREDENTIALS"),
        (first(request(unknown)), "NOT_FOUND", "GAME_NOT_FOUND"),
        (first(request("games/nope")), "INVALID_ARGUMENT", "INVALID_NAME"),
        (first(request(name, -1)), "INVALID_ARGUMENT", "INVALID_REVISION"),
        (first(request(name, 3)), "NOT_FOUND", "REVISION_NOT_FOUND"),
    ]
    for call, code, reason in cases:
        got_code, got_reason, _ = expect_error(call)
        assert (got_code.name, got_reason) == (code, reason)


def test_open_streams_end_unavailable_when_their_server_stops(
    database: str, servers: tuple[Server, Server]
) -> None:
    _, played = servers
    name = create_qwirkle(played.stub, "Ana").game.name
    leaving = start_server(database, dev=True, heartbeat_seconds=HEARTBEAT)
    call = leaving.stub.StreamGame(request(name), timeout=10)
    assert next(call).event.revision == 1
    leaving.process.send_signal(15)  # SIGTERM
    with pytest.raises(grpc.RpcError) as raised:
        list(call)
    assert error_of(raised.value)[:2] == (
        grpc.StatusCode.UNAVAILABLE,
        "SERVER_SHUTTING_DOWN",
    )
    assert leaving.process.wait(timeout=30) == 0
    leaving.channel.close()
