"""Who sits at a table, through a real server: invite codes, the host, leaving,
removal, expiry, resigning and abandoned games.

Every test plays what a client (or an attacker) would do over the public API;
the bot moves for a resigned seat and the closing of an expired table come
from the server's own table clock, so the tests poll with deadlines for them.
"""

from __future__ import annotations

import re
import secrets
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import TypeAlias, TypeVar, cast

import grpc
import pytest
from tabletop.v1 import event_pb2, game_pb2, move_pb2, qwirkle_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from tests.e2e.client import (
    Spectator,
    auth,
    error_of,
    expect_error,
    get,
    legal_moves,
    seat_of,
    start_two_seats,
    submit,
    verified_export,
)
from tests.e2e.conftest import Server, start_server

T = TypeVar("T")
WAITING = "state = WAITING_FOR_PLAYERS"
# 16 base32 letters in four dash-separated groups of four.
INVITE_CODE = re.compile(r"[a-z2-7]{4}(?:-[a-z2-7]{4}){3}")
WAIT_SECONDS = 2  # TABLETOP_TABLE_WAIT_SECONDS of the expiry test's server
PLAY_SECONDS = 40.0  # a whole game of Qwirkle against the resigned seat's bot
PASS = move_pb2.Move(
    qwirkle=qwirkle_pb2.QwirkleMove(pass_turn=qwirkle_pb2.QwirklePass())
)
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED


# -- a client's calls ---------------------------------------------------------


def create_table(
    stub: GameServiceStub,
    display_name: str = "Ana",
    *,
    private: bool = False,
    request_id: str = "",
    max_players: int = 0,
) -> api.CreateGameResponse:
    """Opens a Qwirkle table (0 players: as many as the game allows)."""
    visibility = game_pb2.VISIBILITY_PRIVATE if private else game_pb2.VISIBILITY_PUBLIC
    return stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_QWIRKLE,
                visibility=visibility,
                max_players=max_players,
            ),
            display_name=display_name,
            request_id=request_id or str(uuid.uuid4()),
        ),
        timeout=10,
    )


def join(
    stub: GameServiceStub, name: str, display_name: str, code: str = ""
) -> api.JoinGameResponse:
    """Takes a seat, with an invite code if one is given."""
    return stub.JoinGame(
        api.JoinGameRequest(name=name, display_name=display_name, invite_code=code),
        timeout=10,
    )


def start(stub: GameServiceStub, name: str, token: str) -> api.StartGameResponse:
    return stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(token), timeout=10
    )


def leave(stub: GameServiceStub, name: str, token: str) -> api.LeaveGameResponse:
    return stub.LeaveGame(
        api.LeaveGameRequest(name=name, request_id=str(uuid.uuid4())),
        metadata=auth(token),
        timeout=10,
    )


def remove(
    stub: GameServiceStub, name: str, seat: int, token: str
) -> api.RemovePlayerResponse:
    return stub.RemovePlayer(
        api.RemovePlayerRequest(name=f"{name}/players/{seat}"),
        metadata=auth(token),
        timeout=10,
    )


def rotate(
    stub: GameServiceStub, name: str, token: str, request_id: str = ""
) -> api.RotateInviteCodeResponse:
    return stub.RotateInviteCode(
        api.RotateInviteCodeRequest(
            name=name, request_id=request_id or str(uuid.uuid4())
        ),
        metadata=auth(token),
        timeout=10,
    )


def resign(stub: GameServiceStub, name: str, token: str) -> api.ResignGameResponse:
    return stub.ResignGame(
        api.ResignGameRequest(name=name, request_id=str(uuid.uuid4())),
        metadata=auth(token),
        timeout=10,
    )


def listed(
    stub: GameServiceStub, token: str | None = None, query: str = ""
) -> list[str]:
    """Returns the names ListGames shows the caller (one page: a few tables)."""
    reply = stub.ListGames(
        api.ListGamesRequest(page_size=50, filter=query),
        metadata=auth(token) if token else None,
        timeout=10,
    )
    assert not reply.next_page_token
    return [game.name for game in reply.games]


def all_events(
    stub: GameServiceStub, name: str, page_size: int = 200
) -> list[event_pb2.GameEvent]:
    """Returns every event of a game, page by page, as a spectator sees them."""
    events: list[event_pb2.GameEvent] = []
    page_token = ""
    while True:
        reply = stub.ListGameEvents(
            api.ListGameEventsRequest(
                parent=name, page_size=page_size, page_token=page_token
            ),
            timeout=10,
        )
        events.extend(reply.events)
        page_token = reply.next_page_token
        if not page_token:
            return events


def kinds(events: list[event_pb2.GameEvent]) -> list[str]:
    return [str(event.WhichOneof("event")) for event in events]


def player(name: str, seat: int) -> str:
    return f"{name}/players/{seat}"


def poll(check: Callable[[], T | None], seconds: float, what: str) -> T:
    """Returns the first result of ``check`` that is not None, within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def game_when(
    stub: GameServiceStub,
    name: str,
    wanted: Callable[[game_pb2.Game], bool],
    what: str,
    seconds: float = 10,
) -> game_pb2.Game:
    """Polls the game (as a spectator) until ``wanted`` holds; returns it."""

    def check() -> game_pb2.Game | None:
        game = get(stub, name)
        return game if wanted(game) else None

    return poll(check, seconds, what)


def is_closed(game: game_pb2.Game) -> bool:
    return game.state == game_pb2.GAME_STATE_CLOSED


def streamed(spectator: Spectator, seconds: float) -> list[event_pb2.GameEvent]:
    """Waits (at most ``seconds``) for a spectator's stream to end; returns its
    events, in order."""
    spectator.thread.join(seconds)
    if spectator.thread.is_alive():
        spectator.call.cancel()
        pytest.fail("the stream did not end")
    assert spectator.code == grpc.StatusCode.OK
    return [item.event for item in spectator.items if item.HasField("event")]


def denied(call: Callable[..., object], *args: object, **kwargs: object) -> str:
    """Returns the reason of a call that must be PERMISSION_DENIED."""
    code, reason, _ = expect_error(call, *args, **kwargs)
    assert code == PERMISSION_DENIED, (code, reason)
    return reason


def precondition(call: Callable[..., object], *args: object) -> str:
    """Returns the reason of a call that must fail FAILED_PRECONDITION."""
    code, reason, _ = expect_error(call, *args)
    assert code == FAILED_PRECONDITION, (code, reason)
    return reason


def refused_token(stub: GameServiceStub, name: str, token: str) -> None:
    """Checks that a seat token acts for nothing in the game any more."""
    for call in (
        lambda: get(stub, name, token),
        lambda: leave(stub, name, token),
        lambda: start(stub, name, token),
    ):
        code, reason, _ = expect_error(call)
        assert (code, reason) == (UNAUTHENTICATED, "INVALID_CREDENTIALS")


# -- squatting and invite codes ------------------------------------------------


def squat(stub: GameServiceStub) -> dict[str, list[str]]:
    """Plays the squatter: takes every free seat of every waiting table listed,
    then tries to start each; returns the seat tokens it got, by table."""
    taken: dict[str, list[str]] = {}
    for name in listed(stub, query=WAITING):
        tokens = taken.setdefault(name, [])
        while (token := squat_seat(stub, name, len(tokens) + 1)) is not None:
            tokens.append(token)
        for token in tokens:
            assert denied(start, stub, name, token) == "NOT_THE_HOST"
    return taken


def squat_seat(stub: GameServiceStub, name: str, number: int) -> str | None:
    """Returns the token of one more seat at the table, None once it is full."""
    try:
        return join(stub, name, f"Squat {number}").seat_token
    except grpc.RpcError as error:
        refusal = error_of(error)
    assert refusal[:2] == (FAILED_PRECONDITION, "TABLE_FULL")
    return None


def test_a_squatter_finds_no_private_table_and_is_removed_from_a_public_one(
    server: Server,
) -> None:
    stub = server.stub
    secret = create_table(stub, "Pia", private=True)
    hidden = secret.game.name
    assert secret.game.visibility == game_pb2.VISIBILITY_PRIVATE
    public = create_table(stub, "Hal", max_players=4)
    table, host = public.game.name, public.seat_token
    assert public.game.visibility == game_pb2.VISIBILITY_PUBLIC
    assert public.invite_code == ""

    taken = squat(stub)

    assert set(taken) == {table}  # the private table is not listed to anybody
    assert len(taken[table]) == 3  # four seats: the squatter took all the free ones
    assert hidden in listed(stub, secret.seat_token)  # its own players see it
    before = get(stub, hidden, secret.seat_token).revision
    # The squatter learnt the private table's name but not its code.
    for code in ("", "aaaa-bbbb-cccc-dddd"):
        assert denied(join, stub, hidden, "Squat", code) == "INVALID_INVITE_CODE"
    after = get(stub, hidden, secret.seat_token)
    assert after.revision == before  # nothing stored
    assert [p.display_name for p in after.players] == ["Pia"]

    assert precondition(join, stub, table, "Ben") == "TABLE_FULL"
    for _ in taken[table]:  # seat 1 each time: the seats after it move down
        removal = remove(stub, table, 1, host)
        [left] = removal.events
        assert left.player_left.removed
        assert left.player_left.player == player(table, 1)
        assert left.player_left.display_name.startswith("Squat")
    for token in taken[table]:
        refused_token(stub, table, token)
    ben = join(stub, table, "Ben")
    cy = join(stub, table, "Cy")
    assert (ben.player, cy.player) == (player(table, 1), player(table, 2))
    assert denied(start, stub, table, ben.seat_token) == "NOT_THE_HOST"
    started = start(stub, table, host).game
    assert started.state == game_pb2.GAME_STATE_IN_PROGRESS
    assert [p.display_name for p in started.players] == ["Hal", "Ben", "Cy"]
    assert started.host == player(table, 0)


def test_guessing_invite_codes_is_rate_limited(server: Server) -> None:
    stub = server.stub
    created = create_table(stub, private=True)
    name = created.game.name
    refusals: list[tuple[grpc.StatusCode, str]] = []
    for _ in range(6):
        guess = "-".join(secrets.token_hex(2) for _ in range(4))
        code, reason, _ = expect_error(join, stub, name, "Guesser", guess)
        refusals.append((code, reason))
        if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
            break
    # A few wrong codes in a row (an honest typo or two) are only refused...
    wrong = (PERMISSION_DENIED, "INVALID_INVITE_CODE")
    assert refusals[:3] == [wrong] * 3
    # ...but each costs ten joins of the address's burst of 30: guessing stops.
    assert refusals[-1] == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    assert len(refusals) <= 5
    # The right code from the guessing address is refused too, before the
    # handler runs, and nothing was stored.
    code, reason, metadata = expect_error(
        join, stub, name, "Guesser", created.invite_code
    )
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    assert metadata["limit"] == "JoinGame"
    game = get(stub, name, created.seat_token)
    assert (game.revision, len(game.players)) == (created.game.revision, 1)


def test_the_host_rotates_the_invite_code_and_retries_return_the_same_code(
    server: Server,
) -> None:
    stub = server.stub
    opened = str(uuid.uuid4())
    created = create_table(stub, private=True, request_id=opened)
    name, host = created.game.name, created.seat_token
    assert INVITE_CODE.fullmatch(created.invite_code), created.invite_code
    again = create_table(stub, private=True, request_id=opened)
    assert (again.game.name, again.invite_code, again.seat_token) == (
        name,
        created.invite_code,
        host,
    )
    assert again.game.revision == created.game.revision  # nothing stored again

    rotated_with = str(uuid.uuid4())
    rotated = rotate(stub, name, host, rotated_with)
    code = rotated.invite_code
    assert INVITE_CODE.fullmatch(code)
    assert code != created.invite_code
    retried = rotate(stub, name, host, rotated_with)
    assert retried.invite_code == code
    assert retried.game.revision == rotated.game.revision
    events = all_events(stub, name)
    assert kinds(events).count("invite_code_set") == 2  # opened, rotated once

    reason = denied(join, stub, name, "Ben", created.invite_code)
    assert reason == "INVALID_INVITE_CODE"  # the old code stopped working
    ben = join(stub, name, "Ben", code.upper().replace("-", ""))
    assert ben.player == player(name, 1)
    assert denied(rotate, stub, name, ben.seat_token) == "NOT_THE_HOST"
    assert name in listed(stub, ben.seat_token)
    assert name not in listed(stub)

    public = create_table(stub, "Hal")
    assert precondition(rotate, stub, public.game.name, public.seat_token) == (
        "TABLE_NOT_PRIVATE"
    )
    # A public table ignores a code; its seat token lists no private table.
    cy = join(stub, public.game.name, "Cy", "not-a-code")
    assert name not in listed(stub, cy.seat_token)


# -- leaving and removal -------------------------------------------------------


def test_players_leave_the_host_passes_on_and_the_last_one_out_closes_the_table(
    server: Server,
) -> None:
    stub = server.stub
    created = create_table(stub)
    name = created.game.name
    ana = created.seat_token
    ben, cy, dee = (join(stub, name, n).seat_token for n in ("Ben", "Cy", "Dee"))

    gone = leave(stub, name, ben)
    [left] = gone.events
    assert left.player_left == event_pb2.PlayerLeft(
        player=player(name, 1), display_name="Ben", removed=False
    )
    assert [p.display_name for p in gone.game.players] == ["Ana", "Cy", "Dee"]
    assert [p.seat for p in gone.game.players] == [0, 1, 2]
    # Each token tells its player where they sit now; a spectator sits nowhere.
    assert get(stub, name, cy).caller == player(name, 1)
    assert get(stub, name, dee).caller == player(name, 2)
    assert get(stub, name).caller == ""
    refused_token(stub, name, ben)
    assert denied(remove, stub, name, 2, cy) == "NOT_THE_HOST"

    gone = leave(stub, name, ana)  # the host leaves: Cy is seat 0 and host
    assert gone.events[0].player_left.player == player(name, 0)
    assert [p.display_name for p in gone.game.players] == ["Cy", "Dee"]
    assert gone.game.host == player(name, 0)
    assert get(stub, name, cy).caller == player(name, 0)
    refused_token(stub, name, ana)
    assert denied(start, stub, name, dee) == "NOT_THE_HOST"
    assert denied(remove, stub, name, 0, dee) == "NOT_THE_HOST"

    removed = remove(stub, name, 1, cy)
    assert removed.events[0].player_left == event_pb2.PlayerLeft(
        player=player(name, 1), display_name="Dee", removed=True
    )
    refused_token(stub, name, dee)
    assert name in listed(stub, query=WAITING)

    closing = leave(stub, name, cy)
    assert kinds(list(closing.events)) == ["player_left", "table_closed"]
    assert closing.events[1].table_closed.reason == game_pb2.CLOSED_REASON_EMPTY
    closed = get(stub, name)
    assert closed.state == game_pb2.GAME_STATE_CLOSED
    assert closed.closed_reason == game_pb2.CLOSED_REASON_EMPTY
    assert (closed.host, list(closed.players)) == ("", [])
    refused_token(stub, name, cy)
    assert precondition(join, stub, name, "Eve") == "TABLE_CLOSED"
    assert name not in listed(stub)


def test_nobody_leaves_or_is_removed_once_play_has_begun(server: Server) -> None:
    stub = server.stub
    name, tokens = start_two_seats(stub)
    assert precondition(leave, stub, name, tokens[1]) == "GAME_ALREADY_STARTED"
    assert precondition(remove, stub, name, 1, tokens[0]) == "GAME_ALREADY_STARTED"
    assert len(get(stub, name).players) == 2


# -- resigning -----------------------------------------------------------------


def most_tiles(moves: list[move_pb2.Move]) -> move_pb2.Move:
    """Returns the move placing the most tiles: a short game."""
    return max(moves, key=lambda move: len(move.qwirkle.place_tiles.placements))


def play_against_the_bot(
    stub: GameServiceStub, name: str, seat: int, token: str
) -> game_pb2.Game:
    """Plays ``seat`` until the game ends, waiting for the bot in between."""
    deadline = time.monotonic() + PLAY_SECONDS
    me = player(name, seat)
    while True:
        game = get(stub, name, token)
        if game.state == game_pb2.GAME_STATE_FINISHED:
            return game
        if game.current_player == me:
            revision, moves = legal_moves(stub, name, token)
            submit(stub, name, token, most_tiles(moves), revision)
        else:
            time.sleep(0.01)
        assert time.monotonic() < deadline, "the game did not end in time"


def await_turn(stub: GameServiceStub, name: str, seat: int) -> game_pb2.Game:
    """Waits until ``seat`` is to move (the bot plays resigned seats meanwhile)."""
    wanted = player(name, seat)
    return game_when(
        stub, name, lambda game: game.current_player == wanted, f"seat {seat}'s turn"
    )


def test_the_bot_plays_a_resigned_seat_to_the_end_and_it_cannot_win(
    server: Server,
) -> None:
    stub = server.stub
    name, tokens = start_two_seats(stub)
    quitter = seat_of(get(stub, name).current_player)  # resigns on its turn
    human = 1 - quitter
    resigned = resign(stub, name, tokens[quitter])
    assert kinds(list(resigned.events)) == ["player_resigned"]
    assert resigned.events[0].player_resigned.player == player(name, quitter)
    assert resigned.game.players[quitter].resigned
    assert resigned.game.state == game_pb2.GAME_STATE_IN_PROGRESS
    for call in (
        lambda: submit(stub, name, tokens[quitter], PASS),
        lambda: resign(stub, name, tokens[quitter]),
    ):
        assert denied(call) == "SEAT_RESIGNED"

    final = play_against_the_bot(stub, name, human, tokens[human])

    assert not final.abandoned
    assert [p.resigned for p in final.players] == [s == quitter for s in (0, 1)]
    assert list(final.winners) == [player(name, human)]
    events = all_events(stub, name)
    names = kinds(events)
    finished = events[-1].game_finished
    assert names[-1] == "game_finished"
    assert list(finished.resigned) == [player(name, quitter)]
    assert player(name, quitter) not in finished.winners
    assert not finished.abandoned
    after = names.index("player_resigned")
    bot_turns = [i for i, kind in enumerate(names) if kind == "resigned_seat_played"]
    assert len(bot_turns) >= 3
    for index in bot_turns:
        assert events[index].resigned_seat_played.player == player(name, quitter)
        assert names[index + 1] == "move_played"
        assert events[index + 1].actor == player(name, quitter)
    # After the resignation every move of the resigned seat is the bot's.
    quitter_moves = [
        i
        for i, kind in enumerate(names)
        if i > after
        and kind == "move_played"
        and events[i].actor == player(name, quitter)
    ]
    assert quitter_moves == [i + 1 for i in bot_turns]
    assert denied(lambda: submit(stub, name, tokens[quitter], PASS)) == (
        "SEAT_RESIGNED"
    )


def test_when_every_seat_resigns_the_game_is_abandoned(server: Server) -> None:
    stub = server.stub
    name, tokens = start_two_seats(stub)
    first = seat_of(get(stub, name).current_player)
    second = 1 - first
    resign(stub, name, tokens[first])
    # The bot plays the first seat's turn; then the second seat resigns too.
    await_turn(stub, name, second)  # the bot played the first seat's turn
    last = resign(stub, name, tokens[second])
    assert kinds(list(last.events)) == ["player_resigned", "game_finished"]
    finished = last.events[1].game_finished
    assert finished.abandoned
    assert sorted(finished.resigned) == [player(name, 0), player(name, 1)]
    assert list(finished.winners) == []
    assert [s.player for s in finished.scores] == [player(name, 0), player(name, 1)]
    game = get(stub, name)
    assert game.state == game_pb2.GAME_STATE_FINISHED
    assert game.abandoned
    assert [p.resigned for p in game.players] == [True, True]
    assert [s.score for s in finished.scores] == [p.score for p in game.players]
    assert any(s.score > 0 for s in finished.scores)  # the bot's move scored
    assert list(game.winners) == []
    assert game.seed == finished.seed != ""


# -- expiry --------------------------------------------------------------------


@pytest.fixture
def hurried(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """Yields a server whose tables wait 2 s for players before they close."""
    monkeypatch.setenv("TABLETOP_TABLE_WAIT_SECONDS", str(WAIT_SECONDS))
    running = start_server(postgres_url, dev=True, operator_token=secrets.token_hex(16))
    yield running
    assert running.stop() == 0


def test_a_table_waiting_too_long_closes_and_its_stream_ends(hurried: Server) -> None:
    stub = hurried.stub
    created = create_table(stub)
    name, host = created.game.name, created.seat_token
    ben = join(stub, name, "Ben").seat_token
    private = create_table(stub, "Pia", private=True)
    waits = (
        created.game.expire_time.ToDatetime() - created.game.create_time.ToDatetime()
    )
    assert abs(waits - timedelta(seconds=WAIT_SECONDS)) < timedelta(seconds=1)
    spectator = Spectator(stub, name)
    played, played_tokens = start_two_seats(stub)  # started: it never expires
    assert name in listed(stub, query=WAITING)
    assert private.game.name in listed(stub, private.seat_token)

    closed = game_when(stub, name, is_closed, "the table to expire", WAIT_SECONDS + 8)

    assert closed.closed_reason == game_pb2.CLOSED_REASON_EXPIRED
    assert not closed.HasField("expire_time")
    assert [p.display_name for p in closed.players] == ["Ana", "Ben"]
    assert precondition(join, stub, name, "Cy") == "TABLE_CLOSED"
    assert precondition(start, stub, name, host) == "TABLE_CLOSED"
    assert denied(start, stub, name, ben) == "NOT_THE_HOST"
    game_when(stub, private.game.name, is_closed, "the private table to expire", 5)
    assert listed(stub) == [played]
    assert listed(stub, private.seat_token) == [played]
    assert get(stub, played, played_tokens[0]).state == (
        game_pb2.GAME_STATE_IN_PROGRESS
    )

    events = streamed(spectator, 10)
    assert kinds(events)[-1] == "table_closed"
    assert events[-1].table_closed.reason == game_pb2.CLOSED_REASON_EXPIRED
    assert events[-1].actor == ""  # the server closed it, not a player
    snapshot = spectator.items[-1]
    assert snapshot.HasField("snapshot")
    assert snapshot.snapshot.state == game_pb2.GAME_STATE_CLOSED

    assert hurried.operator_token is not None
    report = verified_export(hurried.channel, name, hurried.operator_token)
    assert report.ok, report.render()


# -- spectators, replay and the audit --------------------------------------------


def busy_lobby(stub: GameServiceStub) -> tuple[str, list[str], Spectator]:
    """Opens a private table that sees joins, a new code, a leaver and a
    removal, followed from the start by a spectator; starts it with 3 seats."""
    created = create_table(stub, private=True)
    name, ana = created.game.name, created.seat_token
    spectator = Spectator(stub, name)
    code = created.invite_code
    ben, cy, _ = (join(stub, name, n, code).seat_token for n in ("Ben", "Cy", "Dee"))
    code = rotate(stub, name, ana).invite_code
    leave(stub, name, ben)  # Cy is seat 1 now, Dee seat 2
    remove(stub, name, 2, ana)  # Dee
    eve = join(stub, name, "Eve", code).seat_token
    start(stub, name, ana)
    return name, [ana, cy, eve], spectator


def resign_one_by_one(stub: GameServiceStub, name: str, tokens: list[str]) -> int:
    """Plays until every seat resigned; returns the seat that resigned first.

    The first seat to move resigns: the bot plays its turn. The next plays by
    hand; the third resigns on its turn, so the bot plays it and the first
    seat again; then the last seat still playing resigns: abandoned.
    """
    first = seat_of(get(stub, name).current_player)
    second, third = (first + 1) % 3, (first + 2) % 3
    resign(stub, name, tokens[first])
    await_turn(stub, name, second)
    revision, moves = legal_moves(stub, name, tokens[second])
    submit(stub, name, tokens[second], most_tiles(moves), revision)
    resign(stub, name, tokens[third])
    await_turn(stub, name, second)
    resign(stub, name, tokens[second])
    return first


def check_snapshots(
    stub: GameServiceStub, name: str, names: list[str], first: int
) -> None:
    """Checks the game at the revisions of the new events (index + 1)."""

    def at(revision: int) -> game_pb2.Game:
        request = api.GetGameRevisionRequest(name=f"{name}/revisions/{revision}")
        snapshot = stub.GetGameRevision(request, timeout=10).snapshot
        assert snapshot.revision == revision
        return snapshot

    def seated(revision: int) -> list[str]:
        return [p.display_name for p in at(revision).players]

    left, removed = (i + 1 for i, k in enumerate(names) if k == "player_left")
    assert seated(left - 1) == ["Ana", "Ben", "Cy", "Dee"]
    assert seated(left) == ["Ana", "Cy", "Dee"]
    assert seated(removed) == ["Ana", "Cy"]
    resigned = names.index("player_resigned") + 1
    assert not at(resigned - 1).players[first].resigned
    assert at(resigned).players[first].resigned
    assert at(resigned).state == game_pb2.GAME_STATE_IN_PROGRESS
    bot_moved = names.index("resigned_seat_played") + 2  # its move_played
    assert (at(resigned).move_count, at(bot_moved).move_count) == (0, 1)
    ended = at(len(names))
    assert (ended.abandoned, ended.state) == (True, game_pb2.GAME_STATE_FINISHED)
    assert [p.resigned for p in ended.players] == [True, True, True]


def test_spectators_replay_and_the_audit_follow_every_new_event(
    server: Server,
) -> None:
    stub = server.stub
    name, tokens, spectator = busy_lobby(stub)
    first = resign_one_by_one(stub, name, tokens)

    final = get(stub, name)
    assert (final.state, final.abandoned) == (game_pb2.GAME_STATE_FINISHED, True)
    seen = streamed(spectator, 10)
    assert [e.revision for e in seen] == list(range(1, final.revision + 1))
    names = kinds(seen)
    assert names.count("invite_code_set") == 2
    assert names.count("player_left") == 2
    assert names.count("player_resigned") == 3
    assert names.count("resigned_seat_played") == 3
    assert names[-1] == "game_finished"
    assert seen[-1].game_finished.abandoned
    assert len(seen[-1].game_finished.scores) == 3
    assert spectator.items[-1].snapshot.abandoned

    listed_events = all_events(stub, name, page_size=7)
    assert [e.revision for e in listed_events] == [e.revision for e in seen]
    assert kinds(listed_events) == names
    for index, kind in enumerate(names):
        if kind == "resigned_seat_played":
            assert names[index + 1] == "move_played"
            assert listed_events[index + 1].actor == (
                listed_events[index].resigned_seat_played.player
            )
    check_snapshots(stub, name, names, first)

    assert server.operator_token is not None
    report = verified_export(server.channel, name, server.operator_token)
    assert report.ok, report.render()
    assert report.finished


# -- a seat given up keeps nothing ---------------------------------------------


Ending: TypeAlias = tuple[grpc.StatusCode, str, dict[str, str]]


def _follow_seat(
    stub: GameServiceStub, name: str, token: str
) -> Iterator[event_pb2.GameEvent | Ending]:
    """Yields a seat's live feed: its events, then the error that ends it."""
    stream = stub.StreamGame(
        api.StreamGameRequest(name=name), metadata=auth(token), timeout=30
    )
    try:
        for item in stream:
            if item.WhichOneof("item") == "event":
                yield item.event
    except grpc.RpcError as error:
        yield error_of(error)


def test_a_stream_follows_its_seat_and_ends_when_the_seat_is_given_up(
    server: Server,
) -> None:
    """The attack: a seat's stream, opened before its player left, kept the old
    seat number and showed the next holder of that number their tiles."""
    stub = server.stub
    created = create_table(stub, max_players=3)
    name, ana = created.game.name, created.seat_token
    eve = join(stub, name, "Eve").seat_token  # seat 1
    cy = join(stub, name, "Cy").seat_token  # seat 2, then 1 once Eve leaves
    eves, cys = _follow_seat(stub, name, eve), _follow_seat(stub, name, cy)
    firsts = [next(eves) for _ in range(3)]  # created, Ana and Eve joined
    joined = [item for item in firsts if isinstance(item, event_pb2.GameEvent)]
    assert kinds(joined) == ["game_created", "player_joined", "player_joined"]
    leave(stub, name, eve)
    join(stub, name, "Bob")  # seat 2: Eve's stream must never see his tiles
    start(stub, name, ana)

    seen = list(eves)
    events = [item for item in seen if isinstance(item, event_pb2.GameEvent)]
    assert seen[len(events)] == seen[-1]  # the error ends the stream
    ended = seen[-1]
    assert isinstance(ended, tuple)
    assert ended[:2] == (PERMISSION_DENIED, "SEAT_GIVEN_UP")
    assert kinds(events)[-1] == "player_left"  # nothing after it
    dealt: list[event_pb2.GameEvent] = []
    for item in cys:
        assert isinstance(item, event_pb2.GameEvent), item
        if item.WhichOneof("event") == "qwirkle":
            dealt.append(item)
            break
    racks = dealt[0].qwirkle.tiles_dealt.racks
    mine = get(stub, name, cy)
    assert mine.caller == player(name, 1)
    # Cy, now seat 1, sees the tiles of seat 1, Cy's own, and no one else's.
    assert [len(rack.tiles) for rack in racks] == [0, 6, 0]
    own = list(mine.qwirkle_view.private_state.rack)
    assert sorted(map(str, racks[1].tiles)) == sorted(map(str, own))


def test_a_creator_who_left_gets_no_seat_back_by_retrying_create(
    server: Server,
) -> None:
    """The attack: a retry of CreateGame answered as seat 0 however seats moved,
    so a host who left read the new host's tiles for the whole game."""
    stub = server.stub
    request_id = str(uuid.uuid4())
    created = create_table(stub, "Eve", private=True, request_id=request_id)
    name = created.game.name
    ben = join(stub, name, "Ben", created.invite_code).seat_token
    join(stub, name, "Cy", created.invite_code)
    leave(stub, name, created.seat_token)
    start(stub, name, ben)
    code, reason, _ = expect_error(
        create_table, stub, "Eve", private=True, request_id=request_id
    )
    assert (code, reason) == (FAILED_PRECONDITION, "SEAT_GIVEN_UP")


def test_a_retried_leave_gets_its_first_answer(server: Server) -> None:
    stub = server.stub
    created = create_table(stub)
    name = created.game.name
    ben = join(stub, name, "Ben").seat_token
    request = api.LeaveGameRequest(name=name, request_id=str(uuid.uuid4()))
    first = stub.LeaveGame(request, metadata=auth(ben), timeout=10)
    again = stub.LeaveGame(request, metadata=auth(ben), timeout=10)
    assert list(again.events) == list(first.events)
    assert again.game.revision == first.game.revision
    refused_token(stub, name, ben)


def test_an_unknown_visibility_is_refused_and_opens_no_table(server: Server) -> None:
    stub = server.stub
    before = listed(stub)
    code, reason, _ = expect_error(
        stub.CreateGame,
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_QWIRKLE,
                visibility=cast("game_pb2.Visibility", 7),  # no such value
            ),
            display_name="Ana",
        ),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_VISIBILITY")
    assert listed(stub) == before
