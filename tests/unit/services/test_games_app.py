"""The game use cases on the in-memory event store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.common import table as tables
from domain.common.decision import Rejected, RejectionKind
from domain.common.rng import SEED_BYTES, commitment
from domain.common.seats import Seat, Spectator
from domain.games.qwirkle import RULES, Pass, QwirkleConfig, TilesDealt
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SentMove, SubmitMove
from services.games import Applied, GamesApp, LegalMoves, Seated
from services.listings import Listings
from services.records import GameRecord, StoredEvent
from services.tokens import token_hash
from tests.helpers import SEED, fold_table, refused
from tests.playing import sent_move

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@pytest.fixture
def app() -> Iterator[GamesApp]:
    app = GamesApp(POPO, allow_client_seed=True)
    yield app
    app.close()


@dataclass(frozen=True)
class Game:
    """A started two-player game and the seat tokens of its players."""

    game_id: UUID
    tokens: tuple[str, str]


def seated(result: Seated | Rejected) -> Seated:
    assert isinstance(result, Seated), result
    return result


def applied(result: Applied | Rejected) -> Applied:
    assert isinstance(result, Applied), result
    return result


def create(app: GamesApp, seed: bytes = SEED, name: str = "Ada") -> Seated:
    return seated(
        app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, name, seed=seed))
    )


def start_two_player_game(app: GamesApp, seed: bytes = SEED) -> Game:
    creator = create(app, seed)
    game_id = creator.record.game_id
    joiner = seated(app.join_game(JoinGame(game_id, "Bo")))
    applied(app.start_game(SeatRequest(game_id, Call(creator.token))))
    return Game(game_id, (creator.token, joiner.token))


def current(app: GamesApp, game_id: UUID) -> GameRecord:
    record = app.get_game(game_id)
    assert record is not None
    return record


def first_move_for(record: GameRecord, seat: int) -> Any:
    return next(RULES.legal_moves(record.table.game, seat))


def on_turn(app: GamesApp, game: Game) -> tuple[int, str]:
    (seat,) = RULES.to_move(current(app, game.game_id).table.game)
    return seat, game.tokens[seat]


def play_first_move(app: GamesApp, game: Game, expected_revision: int = 0) -> Any:
    seat, token = on_turn(app, game)
    move = sent_move(first_move_for(current(app, game.game_id), seat))
    call = Call(token, expected_revision=expected_revision)
    return app.submit_move(SubmitMove(game.game_id, move, call))


# --- create, join, start ---


def test_create_game_stores_the_table_and_seats_the_creator(app: GamesApp) -> None:
    creator = create(app)
    record = creator.record
    assert creator.seat == 0
    assert record.revision == 2
    assert record.table.seats[0].display_name == "Ada"
    assert record.table.status is tables.TableStatus.WAITING_FOR_PLAYERS
    assert current(app, record.game_id) == record


def test_join_game_seats_players_in_order(app: GamesApp) -> None:
    game_id = create(app).record.game_id
    second = seated(app.join_game(JoinGame(game_id, "Bo")))
    third = seated(app.join_game(JoinGame(game_id, "Cy")))
    assert (second.seat, third.seat) == (1, 2)
    assert third.record.revision == 4
    names = [holder.display_name for holder in current(app, game_id).table.seats]
    assert names == ["Ada", "Bo", "Cy"]


def test_start_game_deals_and_opens_play(app: GamesApp) -> None:
    creator = create(app)
    game_id = creator.record.game_id
    seated(app.join_game(JoinGame(game_id, "Bo")))
    started = applied(app.start_game(SeatRequest(game_id, Call(creator.token))))
    assert [type(e.event).__name__ for e in started.events] == [
        "GameStarted",
        "TilesDealt",
        "StartingPlayerChosen",
    ]
    assert [e.revision for e in started.events] == [4, 5, 6]
    assert started.record == current(app, game_id)
    assert started.record.table.status is tables.TableStatus.IN_PROGRESS


def test_every_seat_token_is_new(app: GamesApp) -> None:
    creator = create(app)
    joiners = [
        seated(app.join_game(JoinGame(creator.record.game_id, f"P{i}")))
        for i in range(5)
    ]
    tokens = {creator.token, *(joiner.token for joiner in joiners)}
    assert len(tokens) == 6
    assert all(len(token) >= 22 for token in tokens)  # at least 128 random bits


def test_a_refused_create_stores_nothing(app: GamesApp) -> None:
    rejected = refused(
        app.create_game(CreateGame("qwirkle", QwirkleConfig(), 9, "Ada"))
    )
    assert rejected.reason == "INVALID_PLAYER_COUNT"
    assert refused(
        app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, " "))
    ).reason == ("INVALID_DISPLAY_NAME")
    assert app.game_ids(0, 10) == []


def test_an_unknown_game_type_is_refused_as_malformed(app: GamesApp) -> None:
    rejected = refused(app.create_game(CreateGame("chess", QwirkleConfig(), 0, "Ada")))
    assert rejected.reason == "UNKNOWN_GAME_TYPE"
    assert rejected.kind is RejectionKind.MALFORMED


# --- credentials ---


def test_a_seat_token_identifies_only_its_own_seat(app: GamesApp) -> None:
    game = start_two_player_game(app)
    other = start_two_player_game(app)
    record = current(app, game.game_id)
    assert app.viewer_for(record, game.tokens[0]) == Seat(0)
    assert app.viewer_for(record, game.tokens[1]) == Seat(1)
    assert app.viewer_for(record, other.tokens[0]) is None
    assert app.viewer_for(record, "not-a-token") is None
    assert app.viewer_for(record, None) == Spectator()


def test_authenticate_returns_the_seat_of_a_valid_token(app: GamesApp) -> None:
    game = start_two_player_game(app)
    record = current(app, game.game_id)
    assert app.authenticate(record, game.tokens[0]) == 0
    assert app.authenticate(record, game.tokens[1]) == 1


def test_authenticate_without_a_token_is_missing_credentials(app: GamesApp) -> None:
    game = start_two_player_game(app)
    rejected = refused(app.authenticate(current(app, game.game_id), None))
    assert rejected.reason == "MISSING_CREDENTIALS"
    assert rejected.kind is RejectionKind.UNAUTHENTICATED


@pytest.mark.parametrize("token", ["", "not-a-token", "other-game"])
def test_authenticate_with_a_token_of_no_seat_is_invalid_credentials(
    app: GamesApp, token: str
) -> None:
    game = start_two_player_game(app)
    if token == "other-game":
        token = start_two_player_game(app).tokens[0]
    rejected = refused(app.authenticate(current(app, game.game_id), token))
    assert rejected.reason == "INVALID_CREDENTIALS"
    assert rejected.kind is RejectionKind.UNAUTHENTICATED
    assert rejected.metadata["game"] == f"games/{game.game_id}"


def test_a_token_of_another_game_cannot_start_this_one(app: GamesApp) -> None:
    creator = create(app)
    seated(app.join_game(JoinGame(creator.record.game_id, "Bo")))
    intruder = create(app)
    rejected = refused(
        app.start_game(SeatRequest(creator.record.game_id, Call(intruder.token)))
    )
    assert rejected.reason == "INVALID_CREDENTIALS"
    assert current(app, creator.record.game_id).revision == 3


def test_start_game_without_a_token_is_missing_credentials(app: GamesApp) -> None:
    creator = create(app)
    seated(app.join_game(JoinGame(creator.record.game_id, "Bo")))
    rejected = refused(app.start_game(SeatRequest(creator.record.game_id, Call(None))))
    assert rejected.reason == "MISSING_CREDENTIALS"


def test_seat_tokens_are_stored_only_as_hashes(app: GamesApp) -> None:
    game = start_two_player_game(app)
    for _ in range(3):
        assert isinstance(play_first_move(app, game), Applied)
    record = current(app, game.game_id)
    assert [holder.token_hash for holder in record.table.seats] == [
        token_hash(token) for token in game.tokens
    ]
    decoded = json.dumps([repr(e) for e in app.recorded_events(game.game_id)])
    envelopes = list(app.events.get(game.game_id))
    assert all(isinstance(e, StoredEvent) for e in envelopes)
    raw = json.dumps([e.payload for e in envelopes if isinstance(e, StoredEvent)])
    stored = b"".join(item.state for item in app.recorder.select_events(game.game_id))
    for token in game.tokens:
        assert token not in decoded
        assert token not in raw
        assert token.encode() not in stored
    assert token_hash(game.tokens[1]) in raw


# --- seeds ---


def test_a_client_seed_is_refused_when_the_server_does_not_allow_it() -> None:
    app = GamesApp(POPO, allow_client_seed=False)
    rejected = refused(
        app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada", seed=SEED))
    )
    assert rejected.reason == "CLIENT_SEED_NOT_ALLOWED"
    assert app.game_ids(0, 10) == []


def test_without_a_client_seed_the_server_draws_a_fresh_one() -> None:
    app = GamesApp(POPO, allow_client_seed=False)
    first = seated(app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada")))
    second = seated(app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada")))
    seeds = [bytes.fromhex(s.record.table.seed) for s in (first, second)]
    assert all(len(seed) == SEED_BYTES for seed in seeds)
    assert seeds[0] != seeds[1]
    assert first.record.table.commitment == commitment(seeds[0])


@pytest.mark.parametrize("length", [1, 16, 31, 33, 64])
def test_a_client_seed_of_the_wrong_length_is_refused(
    app: GamesApp, length: int
) -> None:
    seed = bytes(length)
    rejected = refused(
        app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada", seed=seed))
    )
    assert rejected.reason == "INVALID_SEED"
    assert rejected.kind is RejectionKind.MALFORMED
    assert rejected.metadata["seedLength"] == str(length)


def test_a_client_seed_is_used_and_committed_to(app: GamesApp) -> None:
    table = create(app).record.table
    assert table.seed == SEED.hex()
    assert table.commitment == commitment(SEED)


def test_the_same_seed_gives_the_same_deal(app: GamesApp) -> None:
    def deal(seed: bytes) -> Any:
        game = start_two_player_game(app, seed)
        events = app.recorded_events(game.game_id)
        return next(e.event for e in events if isinstance(e.event, TilesDealt))

    assert deal(SEED) == deal(SEED)
    assert deal(SEED) != deal(bytes(32))


# --- unknown games, stale revisions, refusals ---


def test_an_unknown_game_is_not_found(app: GamesApp) -> None:
    missing = uuid4()
    assert app.get_game(missing) is None
    for rejected in (
        refused(app.join_game(JoinGame(missing, "Ada"))),
        refused(app.start_game(SeatRequest(missing, Call("token")))),
        refused(
            app.submit_move(SubmitMove(missing, sent_move(Pass(0)), Call("token")))
        ),
        refused(app.legal_moves(missing, "token")),
    ):
        assert rejected.reason == "GAME_NOT_FOUND"
        assert rejected.kind is RejectionKind.NOT_FOUND
        assert rejected.metadata["game"] == f"games/{missing}"


def test_a_move_with_the_current_revision_is_applied(app: GamesApp) -> None:
    game = start_two_player_game(app)
    revision = current(app, game.game_id).revision
    moved = applied(play_first_move(app, game, expected_revision=revision))
    assert moved.events[0].revision == revision + 1
    assert moved.record.revision == revision + len(moved.events)


def test_a_stale_expected_revision_is_refused_with_the_current_revision(
    app: GamesApp,
) -> None:
    game = start_two_player_game(app)
    stale = current(app, game.game_id).revision
    applied(play_first_move(app, game))
    now = current(app, game.game_id).revision
    rejected = refused(play_first_move(app, game, expected_revision=stale))
    assert rejected.reason == "REVISION_MISMATCH"
    assert rejected.kind is RejectionKind.STALE
    assert rejected.metadata["currentRevision"] == str(now)
    assert current(app, game.game_id).revision == now


def test_a_rejected_move_stores_nothing(app: GamesApp) -> None:
    game = start_two_player_game(app)
    before = app.recorded_events(game.game_id)
    seat, _ = on_turn(app, game)
    other_token = game.tokens[1 - seat]
    move = sent_move(first_move_for(current(app, game.game_id), seat))

    # The move is played for the caller's seat, whatever seat it names.
    rejected = refused(
        app.submit_move(SubmitMove(game.game_id, move, Call(other_token)))
    )
    assert rejected.reason == "NOT_YOUR_TURN"
    assert app.recorded_events(game.game_id) == before
    assert current(app, game.game_id).revision == before[-1].revision


def test_a_move_is_played_for_the_seat_of_the_callers_token(app: GamesApp) -> None:
    game = start_two_player_game(app)
    seat, token = on_turn(app, game)
    move = first_move_for(current(app, game.game_id), seat)
    named_for_another_seat = sent_move(replace(move, seat=1 - seat))
    moved = applied(
        app.submit_move(SubmitMove(game.game_id, named_for_another_seat, Call(token)))
    )
    assert {e.actor for e in moved.events} == {seat}


def test_a_move_that_did_not_read_is_refused_and_stores_nothing(app: GamesApp) -> None:
    game = start_two_player_game(app)
    revision = current(app, game.game_id).revision
    _, token = on_turn(app, game)
    unread = Rejected("MALFORMED_MOVE", "No.", "test/reading", RejectionKind.MALFORMED)
    move = SentMove("qwirkle", unread)
    rejected = app.submit_move(SubmitMove(game.game_id, move, Call(token)))
    assert rejected == unread
    assert current(app, game.game_id).revision == revision


def test_a_move_of_another_game_is_refused_before_it_is_read(app: GamesApp) -> None:
    game = start_two_player_game(app)
    revision = current(app, game.game_id).revision
    _, token = on_turn(app, game)
    unread = Rejected("MALFORMED_MOVE", "No.", "test/reading", RejectionKind.MALFORMED)
    for move, sent in (
        (SentMove("fool", unread), "move.fool"),
        (SentMove(None, None), "move"),
    ):
        rejected = refused(app.submit_move(SubmitMove(game.game_id, move, Call(token))))
        assert rejected.reason == "GAME_TYPE_MISMATCH"
        assert rejected.kind is RejectionKind.MALFORMED
        assert rejected.message == (
            f"This game is qwirkle; the move must set move.qwirkle, not {sent}."
        )
        assert dict(rejected.metadata) == {"field": sent, "gameType": "qwirkle"}
    assert current(app, game.game_id).revision == revision


def test_join_after_start_is_refused_and_stores_nothing(app: GamesApp) -> None:
    game = start_two_player_game(app)
    revision = current(app, game.game_id).revision
    assert (
        refused(app.join_game(JoinGame(game.game_id, "Late"))).reason
        == "GAME_ALREADY_STARTED"
    )
    assert current(app, game.game_id).revision == revision


# --- moves, replay and listing ---


def test_a_move_is_numbered_and_attributed_to_its_seat(app: GamesApp) -> None:
    game = start_two_player_game(app)
    seat, _ = on_turn(app, game)
    first = applied(play_first_move(app, game))
    second = applied(play_first_move(app, game))
    assert {e.move_number for e in first.events} == {1}
    assert {e.move_number for e in second.events} == {2}
    assert {e.actor for e in first.events} == {seat}
    assert second.record.move_count == 2


def test_legal_moves_lists_the_moves_of_the_callers_seat(app: GamesApp) -> None:
    game = start_two_player_game(app)
    seat, token = on_turn(app, game)
    result = app.legal_moves(game.game_id, token)
    assert not isinstance(result, Rejected)
    listed, more = result.page(0, 10_000)
    assert list(listed) == list(RULES.legal_moves(result.record.table.game, seat))
    assert listed
    assert not more
    waiting = app.legal_moves(game.game_id, game.tokens[1 - seat])
    assert not isinstance(waiting, Rejected)
    assert waiting.page(0, 10) == ((), False)


def test_legal_moves_pages_resume_the_listing_and_list_the_same_moves(
    app: GamesApp,
) -> None:
    game = start_two_player_game(app)
    seat, token = on_turn(app, game)
    legal = app.legal_moves(game.game_id, token)
    assert not isinstance(legal, Rejected)
    every = list(RULES.legal_moves(legal.record.table.game, seat))
    assert len(every) > 3
    listings = 0

    def counted(state: Any, seat: int) -> Iterator[Any]:
        nonlocal listings
        listings += 1
        return RULES.legal_moves(state, seat)

    record = replace(legal.record, rules=replace(RULES, legal_moves=counted))
    kept = Listings()
    paged: list[Any] = []
    more, start = True, 0
    while more:
        page, more = LegalMoves(record, seat, kept).page(start, 3)
        paged += page
        start += 3
    # A page nobody kept (another process's, say) lists again from the start.
    again = LegalMoves(record, seat, Listings()).page(3, 3)
    assert paged == every
    assert listings == 2
    assert again == (tuple(every[3:6]), len(every) > 6)


def test_get_game_at_a_revision_returns_the_state_then(app: GamesApp) -> None:
    game = start_two_player_game(app)
    for _ in range(4):
        applied(play_first_move(app, game))
    events = app.recorded_events(game.game_id)
    for revision in range(1, len(events) + 1):
        record = app.get_game(game.game_id, revision=revision)
        assert record is not None
        assert record.revision == revision
        assert record.table == fold_table(e.event for e in events[:revision])
    at_two = app.get_game(game.game_id, revision=2)
    assert at_two is not None
    assert at_two.table.status is tables.TableStatus.WAITING_FOR_PLAYERS
    assert len(at_two.table.seats) == 1


def test_recorded_events_are_gap_free_revisions_from_1(app: GamesApp) -> None:
    game = start_two_player_game(app)
    applied(play_first_move(app, game))
    revisions = [e.revision for e in app.recorded_events(game.game_id)]
    assert revisions == list(range(1, len(revisions) + 1))
    after = app.recorded_events(game.game_id, gt=3, lte=5)
    assert [e.revision for e in after] == [4, 5]


def test_game_ids_pages_through_games_in_creation_order(app: GamesApp) -> None:
    created: list[UUID] = []
    for i in range(5):
        game_id = create(app, name=f"Host {i}").record.game_id
        created.append(game_id)
        seated(
            app.join_game(JoinGame(game_id, "Guest"))
        )  # other events between creations
    pages: list[list[UUID]] = []
    after = 0
    while page := app.game_ids(after, 2):
        pages.append([game_id for _, game_id in page])
        after = page[-1][0]
    assert pages == [created[0:2], created[2:4], created[4:5]]


def test_game_ids_after_the_last_game_is_empty(app: GamesApp) -> None:
    create(app)
    ((position, _),) = app.game_ids(0, 10)
    assert app.game_ids(position, 10) == []


def _counting_decisions(app: GamesApp) -> list[int]:
    """Returns a log of the revisions ``app`` decides a seat's request on."""
    decided: list[int] = []
    authenticate = app.authenticate

    def counted(record: GameRecord, token: str | None) -> int | Rejected:
        decided.append(record.revision)
        return authenticate(record, token)

    app.authenticate = counted  # type: ignore[method-assign]
    return decided


def test_a_move_that_does_not_read_is_refused_once_without_reloading_the_game(
    app: GamesApp,
) -> None:
    game = start_two_player_game(app)
    refusal = Rejected("BAD_SHAPE", "No such move.", "t/shape", RejectionKind.MALFORMED)
    decided = _counting_decisions(app)
    move = SentMove("qwirkle", refusal)
    call = Call(game.tokens[0])
    assert app.submit_move(SubmitMove(game.game_id, move, call)) == refusal
    assert len(decided) == 1  # unreadable in any state: not read again after a reload


def test_a_refusal_that_depends_on_the_game_is_decided_again_on_the_latest(
    app: GamesApp,
) -> None:
    game = start_two_player_game(app)
    seat, _ = on_turn(app, game)
    decided = _counting_decisions(app)
    move = sent_move(first_move_for(current(app, game.game_id), seat))
    # The other seat's token: not its turn, which the rules refuse.
    call = Call(game.tokens[1 - seat])
    refused = app.submit_move(SubmitMove(game.game_id, move, call))
    assert isinstance(refused, Rejected)
    assert refused.reason == "NOT_YOUR_TURN"
    assert len(decided) == 2  # on the kept game, then on the latest
