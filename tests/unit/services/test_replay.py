"""Replay: a game at any revision and its event log in pages, redacted (DESIGN §5, §7).

Random Qwirkle games driven by legal moves, on the in-memory store. While a game
is in progress every viewer sees, at every revision, only what they could see
then; once it has finished every replay and every event page shows everything.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar
from uuid import UUID, uuid4

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2, qwirkle_pb2

from domain.common.decision import Rejected
from domain.common.seats import Operator, Seat, Spectator, Viewer
from domain.common.table import TableStatus
from domain.games.qwirkle import (
    RULES,
    ExchangeTiles,
    QwirkleConfig,
    Tile,
    TilesDealt,
    TilesDrawn,
    TilesExchanged,
)
from domain.games.qwirkle import State as QwirkleState
from services.api import replay
from services.api.convert.game import event_to_proto, game_to_proto, player_name
from services.api.convert.registry import converter_for
from services.api.errors import ApiError
from services.api.requests import PageToken, encode_page_token
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import Applied, GamesApp, Seated
from services.records import GameRecord, RecordedEvent, advance
from tests.helpers import error_info, status_details
from tests.playing import sent_move

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
M = TypeVar("M", bound=Message)

# --- Games driven by legal moves ---


@dataclass(frozen=True)
class Played:
    """A game on the in-memory store, its seat tokens and its secret seed."""

    app: GamesApp
    game_id: UUID
    tokens: tuple[str, ...]
    seed: bytes

    @property
    def name(self) -> str:
        return f"games/{self.game_id}"

    def events(self) -> list[RecordedEvent]:
        return self.app.recorded_events(self.game_id)

    def record(self) -> GameRecord:
        record = self.app.get_game(self.game_id)
        assert record is not None
        return record

    def callers(self) -> list[tuple[Viewer, str | None]]:
        """Returns every viewer with the token it calls with: spectator, then seats."""
        seats = [(Seat(i), token) for i, token in enumerate(self.tokens)]
        return [(Spectator(), None), *seats]

    def play(self, moves: int, rnd: random.Random) -> None:
        """Plays up to ``moves`` legal moves, an exchange every fourth one if legal."""
        record = self.record()
        for number in range(moves):
            if record.table.status is not TableStatus.IN_PROGRESS:
                return
            state: QwirkleState = record.table.game
            (seat,) = RULES.to_move(state)
            candidates = list(itertools.islice(RULES.legal_moves(state, seat), 12))
            if number % 4 == 3 and state.bag:
                exchanges = (
                    move
                    for move in RULES.legal_moves(state, seat)
                    if isinstance(move, ExchangeTiles)
                )
                candidates = list(itertools.islice(exchanges, 3)) or candidates
            move = rnd.choice(candidates)
            result = self.app.submit_move(
                SubmitMove(self.game_id, sent_move(move), Call(self.tokens[seat]))
            )
            assert isinstance(result, Applied), result
            record = result.record


def _seated(result: Seated | Rejected) -> Seated:
    assert isinstance(result, Seated), result
    return result


def _open(app: GamesApp, players: int, seed: bytes, *, start: bool = True) -> Played:
    creator = _seated(
        app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "P0", seed=seed))
    )
    game_id = creator.record.game_id
    joined = (
        _seated(app.join_game(JoinGame(game_id, f"P{i}"))) for i in range(1, players)
    )
    tokens = [creator.token, *(seated.token for seated in joined)]
    if start:
        assert isinstance(
            app.start_game(SeatRequest(game_id, Call(tokens[0]))), Applied
        )
    return Played(app, game_id, tuple(tokens), seed)


@pytest.fixture(scope="module")
def app() -> Iterator[GamesApp]:
    app = GamesApp(POPO, allow_client_seed=True)
    yield app
    app.close()


@pytest.fixture(scope="module")
def finished(app: GamesApp) -> Played:
    """A two-seat game played to its end."""
    game = _open(app, 2, random.Random(1).randbytes(32))
    game.play(1000, random.Random(1))
    assert game.record().table.status is TableStatus.FINISHED
    return game


@pytest.fixture(scope="module")
def in_progress(app: GamesApp) -> Played:
    """A three-seat game after 24 moves, exchanges among them."""
    game = _open(app, 3, random.Random(2).randbytes(32))
    game.play(24, random.Random(2))
    assert game.record().table.status is TableStatus.IN_PROGRESS
    return game


# --- Requests ---


def _revision(
    game: Played, revision: int, token: str | None = None
) -> game_service_pb2.GetGameRevisionResponse:
    request = game_service_pb2.GetGameRevisionRequest(
        name=f"{game.name}/revisions/{revision}"
    )
    return replay.get_game_revision(game.app, request, token)


def _page(
    game: Played, token: str | None = None, size: int = 0, page_token: str = ""
) -> game_service_pb2.ListGameEventsResponse:
    request = game_service_pb2.ListGameEventsRequest(
        parent=game.name, page_size=size, page_token=page_token
    )
    return replay.list_game_events(game.app, request, token)


def _all_pages(
    game: Played, token: str | None = None, size: int = 0
) -> list[list[event_pb2.GameEvent]]:
    pages: list[list[event_pb2.GameEvent]] = []
    page_token = ""
    while True:
        reply = _page(game, token, size, page_token)
        pages.append(list(reply.events))
        page_token = reply.next_page_token
        if not page_token:
            return pages


def _history(game: Played) -> list[GameRecord]:
    """Returns the game as folded at every revision, from the first."""
    records: list[GameRecord] = []
    for item in game.events():
        records.append(advance(records[-1] if records else None, game.game_id, item))
    return records


def _api_error(call: Callable[[], object]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call()
    return caught.value


def _detail(error: ApiError, kind: type[M]) -> M:
    for detail in status_details(error).details:
        message = kind()
        if detail.Unpack(message):
            return message
    msg = f"no {kind.__name__} in {error.status!r}"
    raise AssertionError(msg)


def _refusal(error: ApiError) -> tuple[grpc.StatusCode, str]:
    return error.status.code, error_info(error).reason


# --- What a message shows ---


def _tiles(messages: Any) -> Counter[Tile]:
    mapper = converter_for("qwirkle").mapper
    return Counter(mapper.read(t, Tile, "tile") for t in messages)


def _no_seed(message: Message, seed: bytes) -> None:
    wire = message.SerializeToString()
    assert seed not in wire
    assert seed.hex().encode() not in wire


def _check_redacted_event(
    game_id: UUID, message: event_pb2.GameEvent, viewer: Viewer
) -> None:
    """Fails when an event names a tile hidden from ``viewer``, or the seed."""
    me = player_name(game_id, viewer.index) if isinstance(viewer, Seat) else None
    event = message.qwirkle
    kind = event.WhichOneof("event")
    if kind == "tiles_dealt":
        for seat, rack in enumerate(event.tiles_dealt.racks):
            own = isinstance(viewer, Seat) and seat == viewer.index
            assert len(rack.tiles) == (6 if own else 0)
    elif kind == "tiles_drawn":
        drawn = event.tiles_drawn
        assert len(drawn.tiles) == (drawn.count if drawn.player == me else 0)
    elif kind == "tiles_exchanged":
        exchanged = event.tiles_exchanged
        own = exchanged.player == me
        assert len(exchanged.returned) == (exchanged.count if own else 0)
        assert len(exchanged.drawn) == (exchanged.count if own else 0)
    assert not message.HasField("game_finished")


# --- A finished game shows everything ---


def test_a_finished_game_replays_every_revision_as_folded_with_everything_shown(
    finished: Played,
) -> None:
    callers = finished.callers()
    history = _history(finished)
    assert len(history) > 100
    for revision, then in enumerate(history, start=1):
        viewer, token = callers[revision % len(callers)]  # every caller sees the same
        snapshot = _revision(finished, revision, token).snapshot
        expected = game_to_proto(then, Operator(), full=True)
        expected.seed = finished.seed.hex()
        if isinstance(viewer, Seat):  # only where the caller sits differs
            expected.caller = f"{expected.name}/players/{viewer.index}"
        assert snapshot == expected, (revision, viewer)
        assert snapshot.revision == revision
        assert snapshot.seed == finished.seed.hex()
        state: QwirkleState | None = then.table.game
        if state is None:  # not started yet: the table only
            assert not snapshot.HasField("qwirkle_view")
            assert len(snapshot.players) == revision - 1  # created, then the seats
            continue
        public = snapshot.qwirkle_view.public_state
        assert [p.score for p in snapshot.players] == list(state.scores)
        board = [
            converter_for("qwirkle").mapper.write(p, qwirkle_pb2.QwirklePlacement, str)
            for p in RULES.view(state, Operator()).public.board
        ]
        assert list(public.board) == board
        assert len(public.board) == len(state.board)
        assert [_tiles(r.tiles) for r in public.revealed_racks] == [
            Counter(rack) for rack in state.racks
        ]


def test_a_finished_games_event_pages_show_every_event_unredacted(
    finished: Played,
) -> None:
    record = finished.record()
    expected = [event_to_proto(record, e, Operator()) for e in finished.events()]
    for size, (_, token) in zip((7, 50, 1000), finished.callers(), strict=True):
        listed = [e for page in _all_pages(finished, token, size) for e in page]
        assert listed == expected
    dealt = next(e for e in expected if e.qwirkle.HasField("tiles_dealt"))
    assert [len(r.tiles) for r in dealt.qwirkle.tiles_dealt.racks] == [6, 6]
    assert expected[-1].game_finished.seed == finished.seed.hex()
    drawn = [
        e.qwirkle.tiles_drawn for e in expected if e.qwirkle.HasField("tiles_drawn")
    ]
    assert all(len(d.tiles) == d.count for d in drawn)


# --- A game in progress shows each viewer only what they could see then ---


def test_an_in_progress_replay_shows_each_viewer_only_their_view_at_that_revision(
    in_progress: Played,
) -> None:
    now: QwirkleState = in_progress.record().table.game
    rack_changed = set()
    for revision, then in enumerate(_history(in_progress), start=1):
        state: QwirkleState | None = then.table.game
        for viewer, token in in_progress.callers():
            snapshot = _revision(in_progress, revision, token).snapshot
            assert snapshot == game_to_proto(then, viewer, full=True)
            assert snapshot.revision == revision
            assert snapshot.seed == ""
            _no_seed(snapshot, in_progress.seed)
            view = snapshot.qwirkle_view
            assert not view.public_state.revealed_racks
            if state is None or not isinstance(viewer, Seat):
                assert not view.HasField("private_state")
                continue
            rack = Counter(state.racks[viewer.index])
            assert _tiles(view.private_state.rack) == rack
            if rack != Counter(now.racks[viewer.index]):
                rack_changed.add(viewer.index)
    assert rack_changed == {0, 1, 2}  # the replays showed racks as they were


def test_an_in_progress_games_event_pages_hide_other_seats_tiles_and_the_seed(
    in_progress: Played,
) -> None:
    record = in_progress.record()
    recorded = in_progress.events()
    kinds = Counter(type(e.event) for e in recorded)
    assert kinds[TilesExchanged] >= 2
    assert kinds[TilesDrawn] >= 10
    for viewer, token in in_progress.callers():
        listed = [event for page in _all_pages(in_progress, token, 7) for event in page]
        assert [e.revision for e in listed] == [e.revision for e in recorded]
        assert listed == [event_to_proto(record, e, viewer) for e in recorded]
        for message in listed:
            _check_redacted_event(in_progress.game_id, message, viewer)
            _no_seed(message, in_progress.seed)


def test_a_waiting_table_replays_its_lobby_and_a_later_seat_sees_its_past(
    app: GamesApp,
) -> None:
    game = _open(app, 3, random.Random(3).randbytes(32), start=False)
    for revision in (1, 2, 3, 4):  # created, the creator seated, then two joins
        for _, token in game.callers():
            snapshot = _revision(game, revision, token).snapshot
            assert snapshot.state == game_pb2.GAME_STATE_WAITING_FOR_PLAYERS
            assert [p.display_name for p in snapshot.players] == [
                f"P{seat}" for seat in range(revision - 1)
            ]
            assert not snapshot.HasField("qwirkle_view")
            assert snapshot.seed == ""
    code, reason = _refusal(_api_error(lambda: _revision(game, 5)))
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "REVISION_NOT_FOUND")


# --- Pagination ---


def test_pages_of_every_size_cover_the_log_once_and_end_with_an_empty_token(
    finished: Played,
) -> None:
    total = len(finished.events())
    for size in (7, total - 1, total, total + 1, 5000):
        pages = _all_pages(finished, size=size)
        revisions = [event.revision for page in pages for event in page]
        assert revisions == list(range(1, total + 1)), size
        expected = min(size, 1000)
        assert all(len(page) == expected for page in pages[:-1])
        assert 1 <= len(pages[-1]) <= expected  # the last page is never empty


def test_page_size_zero_is_a_hundred_and_sizes_above_the_maximum_are_coerced(
    finished: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _page(finished)
    assert [event.revision for event in first.events] == list(range(1, 101))
    assert first.next_page_token
    monkeypatch.setattr(replay, "MAX_PAGE_SIZE", 10)
    coerced = _page(finished, size=50)
    assert [event.revision for event in coerced.events] == list(range(1, 11))


def test_a_page_token_resumes_after_its_revision_and_a_game_in_progress_grows(
    app: GamesApp,
) -> None:
    game = _open(app, 2, random.Random(4).randbytes(32))
    game.play(3, random.Random(4))
    first = _page(game, size=5)
    assert [event.revision for event in first.events] == [1, 2, 3, 4, 5]
    before = game.record().revision
    singles = _all_pages(game, size=1)
    assert [[e.revision for e in page] for page in singles] == [
        [revision] for revision in range(1, before + 1)
    ]  # the token of the last page is empty: the end of the log
    game.play(3, random.Random(5))
    resumed = _page(game, size=1000, page_token=first.next_page_token)
    after = game.record().revision
    assert [event.revision for event in resumed.events] == list(range(6, after + 1))
    assert not resumed.next_page_token


def test_a_seat_and_a_spectator_may_share_a_page_token(in_progress: Played) -> None:
    first = _page(in_progress, None, size=10)
    second = _page(in_progress, in_progress.tokens[1], 10, first.next_page_token)
    assert [event.revision for event in second.events] == list(range(11, 21))


@pytest.mark.parametrize("size", [-1, -1000])
def test_a_negative_page_size_is_refused(finished: Played, size: int) -> None:
    error = _api_error(lambda: _page(finished, size=size))
    assert _refusal(error) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_SIZE")
    violation = _detail(error, error_details_pb2.BadRequest).field_violations[0]
    assert violation.field == "page_size"


def test_a_page_token_of_another_game_or_listing_is_refused(
    finished: Played, in_progress: Played
) -> None:
    other_game = _page(in_progress, size=3).next_page_token
    tokens = [
        other_game,
        "not a token",
        encode_page_token(PageToken("games", 3, finished.name)),
        encode_page_token(PageToken("game-events", -1, finished.name)),
        encode_page_token(PageToken("game-events", 3, finished.name.upper())),
    ]
    for page_token in tokens:
        error = _api_error(partial(_page, finished, page_token=page_token))
        expected = (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")
        assert _refusal(error) == expected, page_token


# --- Errors ---


@pytest.mark.parametrize(
    "suffix",
    [
        "",
        "/revisions",
        "/revisions/",
        "/revisions/0",
        "/revisions/-1",
        "/revisions/01",
        "/revisions/1.0",
        "/revisions/abc",
        "/revisions/1/",
        "/revisions/1/events",
        "/revisions/9223372036854775808",  # beyond int64
        "/revision/1",
    ],
)
def test_a_malformed_revision_name_is_refused(finished: Played, suffix: str) -> None:
    request = game_service_pb2.GetGameRevisionRequest(name=finished.name + suffix)
    error = _api_error(lambda: replay.get_game_revision(finished.app, request, None))
    assert _refusal(error) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")
    violation = _detail(error, error_details_pb2.BadRequest).field_violations[0]
    assert violation.field == "name"


@pytest.mark.parametrize(
    "name",
    [
        "",
        "revisions/1",
        "games//revisions/1",
        "games/not-a-uuid/revisions/1",
        "games/{upper}/revisions/1",
        "games/{plain}/revisions/1",
        " games/{game}/revisions/1",
    ],
)
def test_a_revision_name_needs_the_one_spelling_of_a_game(
    finished: Played, name: str
) -> None:
    game_id = finished.game_id
    spelled = name.format(game=game_id, upper=str(game_id).upper(), plain=game_id.hex)
    request = game_service_pb2.GetGameRevisionRequest(name=spelled)
    error = _api_error(lambda: replay.get_game_revision(finished.app, request, None))
    assert _refusal(error) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")


@pytest.mark.parametrize("parent", ["", "games/x", "games/{game}/", "{game}"])
def test_a_malformed_parent_is_refused(finished: Played, parent: str) -> None:
    request = game_service_pb2.ListGameEventsRequest(
        parent=parent.format(game=finished.game_id)
    )
    error = _api_error(lambda: replay.list_game_events(finished.app, request, None))
    assert _refusal(error) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")
    violation = _detail(error, error_details_pb2.BadRequest).field_violations[0]
    assert violation.field == "parent"


def test_an_unknown_game_is_not_found(app: GamesApp) -> None:
    unknown = Played(app, uuid4(), (), b"")
    for call in (lambda: _revision(unknown, 1), lambda: _page(unknown)):
        error = _api_error(call)
        assert _refusal(error) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
        resource = _detail(error, error_details_pb2.ResourceInfo)
        assert resource.resource_name == unknown.name


def test_a_revision_after_the_current_one_is_not_found(in_progress: Played) -> None:
    current = in_progress.record().revision
    for revision in (current + 1, 2**63 - 1):
        error = _api_error(partial(_revision, in_progress, revision))
        assert _refusal(error) == (grpc.StatusCode.NOT_FOUND, "REVISION_NOT_FOUND")
        info = error_info(error)
        assert info.metadata["currentRevision"] == str(current)
        assert info.metadata["revision"] == str(revision)
        resource = _detail(error, error_details_pb2.ResourceInfo)
        assert resource.resource_name == in_progress.name
    assert _revision(in_progress, current).snapshot.revision == current


def test_a_token_of_another_game_is_refused_before_anything_else(
    finished: Played, in_progress: Played
) -> None:
    stranger = in_progress.tokens[0]
    current = finished.record().revision
    calls = [
        lambda: _revision(finished, 1, stranger),
        lambda: _revision(finished, current + 1, stranger),  # who, before what exists
        lambda: _page(finished, stranger),
        lambda: _page(finished, "made-up-token", size=3),
    ]
    for call in calls:
        error = _api_error(call)
        expected = (grpc.StatusCode.UNAUTHENTICATED, "INVALID_CREDENTIALS")
        assert _refusal(error) == expected


def test_each_seat_replays_the_deal_with_its_own_dealt_rack(
    in_progress: Played,
) -> None:
    dealt = next(e for e in in_progress.events() if isinstance(e.event, TilesDealt))
    for seat, token in enumerate(in_progress.tokens):
        snapshot = _revision(in_progress, dealt.revision, token).snapshot
        rack = snapshot.qwirkle_view.private_state.rack
        assert _tiles(rack) == Counter(dealt.event.racks[seat])
