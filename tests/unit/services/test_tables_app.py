"""Private tables, seats and expiry through the use cases of ``GamesApp``."""

from __future__ import annotations

import base64
import re
from uuid import UUID

import pytest

from domain.common.decision import Rejected
from domain.common.table_state import ClosedBecause, TableClosed, TableStatus
from domain.games.qwirkle import QwirkleConfig
from services.api.listing import listed
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RemovePlayer,
    RotateInviteCode,
    SeatRequest,
)
from services.games import Applied, GamesApp, Invited, Seated
from services.records import GameRecord
from services.tokens import invite_code, invite_hash, new_token
from tests.helpers import SEED
from tests.playing import TABLE_WAIT as WAIT
from tests.playing import Clock, make_app

# 16 letters of the base32 alphabet, in four groups of four.
CODE = re.compile(r"[a-z2-7]{4}(-[a-z2-7]{4}){3}")


@pytest.fixture
def app(clock: Clock) -> GamesApp:
    """Returns an application on the in-memory store with the test's clock."""
    return make_app(clock)


def open_table(
    app: GamesApp, request_id: str = "", *, private: bool = True, players: int = 0
) -> Seated:
    seated = app.create_game(
        CreateGame(
            "qwirkle",
            QwirkleConfig(),
            players,
            "Ana",
            SEED,
            request_id=request_id,
            private=private,
        )
    )
    assert isinstance(seated, Seated), seated
    return seated


def join(app: GamesApp, host: Seated, name: str, request_id: str = "") -> Seated:
    joined = app.join_game(
        JoinGame(
            host.record.game_id,
            name,
            request_id=request_id,
            invite_code=host.invite_code,
        )
    )
    assert isinstance(joined, Seated), joined
    return joined


def game(app: GamesApp, game_id: UUID) -> GameRecord:
    record = app.get_game(game_id)
    assert record is not None
    return record


def refusal(result: object) -> str:
    assert isinstance(result, Rejected), result
    return result.reason


# --- Invite codes ---


def test_an_invite_code_is_16_base32_letters_in_groups_of_four(app: GamesApp) -> None:
    for request_id in ["", "open-1"]:
        code = open_table(app, request_id).invite_code
        assert CODE.fullmatch(code), code
        raw = base64.b32decode(code.replace("-", "").upper())
        assert len(raw) * 8 >= 80


def test_a_public_table_has_no_invite_code(app: GamesApp) -> None:
    host = open_table(app, private=False)
    assert host.invite_code == ""
    assert not host.record.table.private
    assert host.record.table.invite_hash == ""


def test_a_retried_request_gets_the_same_table_and_invite_code(app: GamesApp) -> None:
    first = open_table(app, "open-1")
    again = open_table(app, "open-1")
    assert again.record.game_id == first.record.game_id
    assert again.token == first.token
    assert again.invite_code == first.invite_code != ""
    # It is derived from the table's secret seed and the request, not stored.
    seed = first.record.table.seed
    derived = invite_code(seed, first.record.game_id, "open", "open-1")
    assert derived == first.invite_code
    assert first.record.table.invite_hash == invite_hash(first.invite_code)
    assert first.invite_code not in repr(app.recorded_events(first.record.game_id))


def test_a_retry_through_another_process_gets_the_same_invite_code(
    processes: tuple[GamesApp, GamesApp],
) -> None:
    first, second = processes
    opened = open_table(first, "open-1")
    again = open_table(second, "open-1")
    assert again.record.game_id == opened.record.game_id
    assert again.invite_code == opened.invite_code
    assert isinstance(join(second, again, "Ben"), Seated)


def test_different_requests_get_different_codes(app: GamesApp) -> None:
    codes = {open_table(app, f"open-{n}").invite_code for n in range(5)}
    assert len(codes) == 5


def test_without_a_request_id_every_code_is_random(app: GamesApp) -> None:
    codes = {open_table(app).invite_code for _ in range(5)}
    assert len(codes) == 5
    game_id = UUID(int=1)
    seed = SEED.hex()
    assert invite_code(seed, game_id, "open", "") != invite_code(
        seed, game_id, "open", ""
    )


def test_a_code_is_read_whatever_its_case_and_dashes() -> None:
    code = "abcd-efgh-ijkl-mn23"
    spellings = ["ABCD-EFGH-IJKL-MN23", "abcdefghijklmn23", "ABCDEFGHIJKLMN23"]
    spellings += ["abcd efgh ijkl mn23", "AbCd-eFgH ijkl-MN23"]
    assert {invite_hash(spelled) for spelled in spellings} == {invite_hash(code)}
    assert invite_hash("abcd-efgh-ijkl-mn24") != invite_hash(code)
    assert invite_hash("") == invite_hash("- -") == ""


# --- Joining a private table ---


@pytest.mark.parametrize("upper", [True, False], ids=["upper-case", "lower-case"])
@pytest.mark.parametrize("dashes", [True, False], ids=["dashes", "no-dashes"])
def test_a_code_joins_in_upper_case_and_without_dashes(
    app: GamesApp, *, upper: bool, dashes: bool
) -> None:
    host = open_table(app)
    shown = host.invite_code.upper() if upper else host.invite_code
    shown = shown if dashes else shown.replace("-", "")
    joined = app.join_game(JoinGame(host.record.game_id, "Ben", invite_code=shown))
    assert isinstance(joined, Seated), joined
    assert joined.seat == 1
    assert joined.invite_code == ""  # only the host is shown the code


@pytest.mark.parametrize("shown", ["", "aaaa-aaaa-aaaa-aaaa"], ids=["none", "wrong"])
def test_a_private_table_is_not_joined_without_its_code(
    app: GamesApp, shown: str
) -> None:
    host = open_table(app)
    refused = app.join_game(JoinGame(host.record.game_id, "Ben", invite_code=shown))
    assert refusal(refused) == "INVALID_INVITE_CODE"
    assert len(game(app, host.record.game_id).table.seats) == 1


def test_a_join_retry_gets_the_same_seat_and_token(app: GamesApp) -> None:
    host = open_table(app)
    ben = join(app, host, "Ben", "join-ben")
    again = join(app, host, "Ben", "join-ben")
    assert (again.seat, again.token) == (ben.seat, ben.token)
    assert len(game(app, host.record.game_id).table.seats) == 2


@pytest.mark.parametrize("how", ["left", "removed"])
def test_a_join_retried_after_its_player_gave_up_the_seat_is_refused(
    app: GamesApp, how: str
) -> None:
    host = open_table(app)
    game_id = host.record.game_id
    ben = join(app, host, "Ben", "join-ben")
    if how == "left":
        gone = app.leave_game(SeatRequest(game_id, Call(ben.token)))
    else:
        gone = app.remove_player(RemovePlayer(game_id, ben.seat, Call(host.token)))
    assert isinstance(gone, Applied), gone
    cy = join(app, host, "Cy", "join-cy")  # takes the seat Ben had
    assert cy.seat == ben.seat
    retried = app.join_game(
        JoinGame(game_id, "Ben", request_id="join-ben", invite_code=host.invite_code)
    )
    assert refusal(retried) == "SEAT_GIVEN_UP"
    seats = game(app, game_id).table.seats
    assert [holder.display_name for holder in seats] == ["Ana", "Cy"]


def test_a_join_retried_after_an_earlier_seat_left_finds_its_moved_seat(
    app: GamesApp,
) -> None:
    host = open_table(app)
    game_id = host.record.game_id
    ben = join(app, host, "Ben", "join-ben")
    cy = join(app, host, "Cy", "join-cy")
    assert cy.seat == 2
    assert isinstance(app.leave_game(SeatRequest(game_id, Call(ben.token))), Applied)
    again = join(app, host, "Cy", "join-cy")
    assert (again.seat, again.token) == (1, cy.token)


# --- Rotating the invite code ---


def test_a_rotation_retried_returns_the_same_code_and_the_old_code_stops_working(
    app: GamesApp,
) -> None:
    host = open_table(app)
    game_id = host.record.game_id
    rotated = app.rotate_invite(RotateInviteCode(game_id, host.token, "rotate-1", ""))
    assert isinstance(rotated, Invited), rotated
    assert CODE.fullmatch(rotated.invite_code)
    assert rotated.invite_code != host.invite_code
    revision = game(app, game_id).revision
    again = app.rotate_invite(RotateInviteCode(game_id, host.token, "rotate-1", ""))
    assert isinstance(again, Invited), again
    assert again.invite_code == rotated.invite_code
    assert game(app, game_id).revision == revision  # the retry stored nothing
    old = app.join_game(JoinGame(game_id, "Ben", invite_code=host.invite_code))
    assert refusal(old) == "INVALID_INVITE_CODE"
    new = app.join_game(
        JoinGame(game_id, "Ben", invite_code=rotated.invite_code.upper())
    )
    assert isinstance(new, Seated), new


def test_rotations_without_a_request_id_get_fresh_codes(app: GamesApp) -> None:
    host = open_table(app)
    game_id = host.record.game_id
    first = app.rotate_invite(RotateInviteCode(game_id, host.token, "", ""))
    second = app.rotate_invite(RotateInviteCode(game_id, host.token, "", ""))
    assert isinstance(first, Invited)
    assert isinstance(second, Invited)
    assert first.invite_code != second.invite_code
    stale = app.join_game(JoinGame(game_id, "Ben", invite_code=first.invite_code))
    assert refusal(stale) == "INVALID_INVITE_CODE"
    assert isinstance(
        app.join_game(JoinGame(game_id, "Ben", invite_code=second.invite_code)), Seated
    )


def test_only_the_host_rotates_the_code(app: GamesApp) -> None:
    host = open_table(app)
    ben = join(app, host, "Ben")
    refused = app.rotate_invite(
        RotateInviteCode(host.record.game_id, ben.token, "rotate-1", "")
    )
    assert refusal(refused) == "NOT_THE_HOST"
    assert isinstance(join(app, host, "Cy"), Seated)  # the code still works


# --- Listing ---


def test_a_public_table_is_listed_to_everybody(app: GamesApp) -> None:
    host = open_table(app, private=False)
    record = game(app, host.record.game_id)
    for token in [None, new_token(), host.token]:
        assert listed(app, record, token)


def test_a_private_table_is_listed_only_to_its_seats(app: GamesApp) -> None:
    host = open_table(app)
    ben = join(app, host, "Ben")
    elsewhere = open_table(app, private=False)  # a seat at another table
    record = game(app, host.record.game_id)
    assert not listed(app, record, None)
    assert not listed(app, record, new_token())
    assert not listed(app, record, elsewhere.token)
    assert not listed(app, record, host.invite_code)  # the code is no seat
    assert listed(app, record, host.token)
    assert listed(app, record, ben.token)


def test_a_private_table_is_hidden_from_a_player_who_left(app: GamesApp) -> None:
    host = open_table(app)
    ben = join(app, host, "Ben")
    game_id = host.record.game_id
    assert isinstance(app.leave_game(SeatRequest(game_id, Call(ben.token))), Applied)
    assert not listed(app, game(app, game_id), ben.token)


@pytest.mark.parametrize("private", [False, True])
@pytest.mark.parametrize("why", [ClosedBecause.EXPIRED, ClosedBecause.EMPTY])
def test_a_closed_table_is_listed_to_nobody(
    app: GamesApp, clock: Clock, *, private: bool, why: ClosedBecause
) -> None:
    host = open_table(app, private=private)
    game_id = host.record.game_id
    if why is ClosedBecause.EXPIRED:
        clock.advance(WAIT.total_seconds())
        closed = app.expire(game_id)
    else:
        closed = app.leave_game(SeatRequest(game_id, Call(host.token)))
    assert isinstance(closed, Applied), closed
    record = game(app, game_id)
    assert record.table.closed is why
    for token in [None, new_token(), host.token]:
        assert not listed(app, record, token)


# --- Expiry ---


def test_expire_refuses_a_table_before_its_expiry(app: GamesApp, clock: Clock) -> None:
    host = open_table(app, private=False)
    game_id = host.record.game_id
    revision = game(app, game_id).revision
    assert refusal(app.expire(game_id)) == "TABLE_NOT_EXPIRED"
    clock.advance(WAIT.total_seconds() - 1)
    assert refusal(app.expire(game_id)) == "TABLE_NOT_EXPIRED"
    assert game(app, game_id).revision == revision
    clock.advance(1)
    closed = app.expire(game_id)
    assert isinstance(closed, Applied), closed
    assert [item.event for item in closed.events] == [
        TableClosed(ClosedBecause.EXPIRED)
    ]
    assert closed.record.table.status is TableStatus.CLOSED


def test_expire_refuses_a_legacy_table_before_the_configured_wait(
    clock: Clock,
) -> None:
    app = make_app(clock, table_wait=None)
    host = open_table(app, private=False)
    game_id = host.record.game_id
    assert host.record.table.expires_at is None
    assert refusal(app.expire(game_id)) == "TABLE_NOT_EXPIRED"  # no wait: never
    app.table_wait = WAIT
    clock.advance(WAIT.total_seconds() - 1)
    assert refusal(app.expire(game_id)) == "TABLE_NOT_EXPIRED"
    clock.advance(1)
    assert isinstance(app.expire(game_id), Applied)
    assert game(app, game_id).table.closed is ClosedBecause.EXPIRED


def test_expire_refuses_a_started_table(app: GamesApp, clock: Clock) -> None:
    host = open_table(app)
    join(app, host, "Ben")
    game_id = host.record.game_id
    assert isinstance(app.start_game(SeatRequest(game_id, Call(host.token))), Applied)
    clock.advance(WAIT.total_seconds() * 2)
    assert refusal(app.expire(game_id)) == "GAME_ALREADY_STARTED"
    assert game(app, game_id).table.status is TableStatus.IN_PROGRESS
