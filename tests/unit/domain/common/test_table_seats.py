"""A table's seats: invite codes, the host, leaving, expiry, resigning, abandonment.

Every request goes through ``commands.decide``, as the service decides it, on a
Qwirkle table (and, where a game must end on cue, on the counting game).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from domain.bots import choose_move
from domain.common import commands
from domain.common import table as tables
from domain.common.commands import (
    AnswerTakeback,
    CreateTable,
    ExpireTable,
    JoinTable,
    LeaveTable,
    PlayMove,
    PlayResigned,
    ProposeTakeback,
    RemoveSeat,
    Resign,
    RotateInvite,
    StartTable,
    TableCommand,
    TimeOut,
    UndoLastMove,
)
from domain.common.decision import Decision, Rejected, RejectionKind
from domain.common.rules import Outcome
from domain.common.seats import Operator, Seat, Spectator, Viewer
from domain.common.undo import (
    MovePlayed,
    MovesUndone,
    UndoAccepted,
    UndoOutcome,
    UndoProposed,
    UndoResolved,
)
from domain.games.qwirkle import RULES, QwirkleConfig
from tests import counting_game
from tests.helpers import SEED, accepted, first_legal_move, refused, seat_to_move

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
EXPIRES = NOW + timedelta(hours=1)
CODE = "hash-of-the-invite-code"
NEW_CODE = "hash-of-the-new-invite-code"
TURN_SECONDS = 60


# --- Builders ---


def _fold(
    table: tables.Table | None, events: Iterable[Any], rules: tables.Rules = RULES
) -> tables.Table:
    for event in events:
        table = tables.evolve(table, event, rules)
    assert table is not None, "no events"
    return table


def _decide(
    table: tables.Table,
    command: TableCommand,
    seat: int | None = None,
    now: datetime = NOW,
    rules: tables.Rules = RULES,
) -> Decision[Any]:
    return commands.decide(table, rules, seat, command, now)


def _apply(
    table: tables.Table,
    command: TableCommand,
    seat: int | None = None,
    now: datetime = NOW,
    rules: tables.Rules = RULES,
) -> tuple[tables.Table, tuple[Any, ...]]:
    """Returns the table after an accepted command, and the command's events."""
    events = accepted(_decide(table, command, seat, now, rules))
    return _fold(table, events, rules), events


def _refused(
    decision: Decision[Any],
    reason: str,
    kind: RejectionKind = RejectionKind.NOT_ALLOWED_NOW,
) -> Rejected:
    rejected = refused(decision)
    assert (rejected.reason, rejected.kind) == (reason, kind), rejected
    return rejected


def _created(
    *,
    invite: str = "",
    expires_at: datetime | None = None,
    turn_seconds: int = 0,
    max_players: int = 0,
    rules: tables.Rules = RULES,
) -> tuple[Any, ...]:
    config = QwirkleConfig() if rules is RULES else counting_game.Config()
    create = CreateTable(
        rules.name,
        config,
        max_players,
        "Player 0",
        "hash-0",
        turn_seconds,
        invite_hash=invite,
        expires_at=expires_at,
    )
    return accepted(commands.create(rules, create, SEED))


def _open(
    players: int = 1,
    *,
    invite: str = "",
    expires_at: datetime | None = None,
    turn_seconds: int = 0,
    max_players: int = 0,
    rules: tables.Rules = RULES,
) -> tables.Table:
    """Returns a table waiting with ``players`` seated: "Player n" holds "hash-n"."""
    created = _created(
        invite=invite,
        expires_at=expires_at,
        turn_seconds=turn_seconds,
        max_players=max_players,
        rules=rules,
    )
    table = _fold(None, created, rules)
    for seat in range(1, players):
        joining = JoinTable(f"Player {seat}", f"hash-{seat}", invite)
        table, _ = _apply(table, joining, rules=rules)
    return table


def _started(
    players: int = 2,
    *,
    invite: str = "",
    turn_seconds: int = 0,
    rules: tables.Rules = RULES,
) -> tables.Table:
    table = _open(players, invite=invite, turn_seconds=turn_seconds, rules=rules)
    table, _ = _apply(table, StartTable(), seat=0, rules=rules)
    return table


def _names(table: tables.Table) -> list[str]:
    return [holder.display_name for holder in table.seats]


def _tokens(table: tables.Table) -> list[str]:
    return [holder.token_hash for holder in table.seats]


def _bot_move(table: tables.Table, seat: int) -> Any:
    move = choose_move(table.game_type, table.game, seat)
    assert move is not None
    return move


def _move(table: tables.Table, now: datetime = NOW) -> tables.Table:
    """The seat to move plays the bot's choice itself."""
    seat = seat_to_move(table)
    table, _ = _apply(table, PlayMove(_bot_move(table, seat)), seat, now)
    return table


def _time_out(table: tables.Table) -> tuple[tables.Table, tuple[Any, ...]]:
    """Times out the seat to move once its deadline has come."""
    assert table.turn_deadline is not None
    seat = seat_to_move(table)
    timing_out = TimeOut(seat, _bot_move(table, seat))
    return _apply(table, timing_out, None, table.turn_deadline)


def _play_resigned(table: tables.Table) -> tables.Table:
    """The bot plays the resigned seat that is to move."""
    seat = seat_to_move(table)
    assert seat in table.resigned
    table, _ = _apply(table, PlayResigned(seat, _bot_move(table, seat)))
    return table


def _left(events: tuple[Any, ...]) -> list[tuple[int, bool]]:
    """Returns each event's seat and whether it was removed; all must be PlayerLeft."""
    assert all(isinstance(event, tables.PlayerLeft) for event in events), events
    return [(event.seat, event.removed) for event in events]


def _finished(events: tuple[Any, ...]) -> list[tables.GameFinished]:
    return [event for event in events if isinstance(event, tables.GameFinished)]


# --- Private tables ---


def test_a_private_table_sets_its_invite_code_right_after_game_created() -> None:
    created, invited, joined = _created(invite=CODE)
    assert isinstance(created, tables.GameCreated)
    assert created.private is True
    assert invited == tables.InviteCodeSet(CODE)
    assert joined == tables.PlayerJoined(0, "Player 0", "hash-0")
    table = _fold(None, (created, invited, joined))
    assert table.private is True
    assert table.invite_hash == CODE


def test_a_public_table_has_no_invite_code() -> None:
    created, joined = _created()
    assert isinstance(created, tables.GameCreated)
    assert created.private is False
    assert isinstance(joined, tables.PlayerJoined)
    table = _fold(None, (created, joined))
    assert table.private is False
    assert table.invite_hash == ""


def test_a_private_table_seats_a_player_who_gives_its_code() -> None:
    table = _open(1, invite=CODE)
    joined = accepted(_decide(table, JoinTable("Ben", "hash-1", CODE)))
    assert joined == (tables.PlayerJoined(1, "Ben", "hash-1"),)


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("", "missing."),
        ("wrong", "not this table's."),
        (CODE.upper(), "not this table's."),
        (CODE + "x", "not this table's."),
        (CODE[:-1], "not this table's."),
    ],
)
def test_a_private_table_refuses_a_missing_or_wrong_code(given: str, says: str) -> None:
    table = _open(1, invite=CODE)
    rejected = _refused(
        _decide(table, JoinTable("Ben", "hash-1", given)),
        "INVALID_INVITE_CODE",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    assert rejected.rule == "table/invite_code"
    assert rejected.message.endswith(says)


def test_the_code_is_checked_before_the_seat_limit() -> None:
    table = _open(2, invite=CODE, max_players=2)
    _refused(
        _decide(table, JoinTable("Cy", "hash-2", "wrong")),
        "INVALID_INVITE_CODE",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    _refused(_decide(table, JoinTable("Cy", "hash-2", CODE)), "TABLE_FULL")


@pytest.mark.parametrize("given", ["", CODE, "anything at all"])
def test_a_public_table_seats_anybody_whatever_code_they_give(given: str) -> None:
    table = _open(1)
    joined = accepted(_decide(table, JoinTable("Ben", "hash-1", given)))
    assert joined == (tables.PlayerJoined(1, "Ben", "hash-1"),)


def test_rotating_the_code_makes_the_old_one_stop_working() -> None:
    table = _open(2, invite=CODE)
    table, rotated = _apply(table, RotateInvite(NEW_CODE), seat=0)
    assert rotated == (tables.InviteCodeSet(NEW_CODE),)
    assert table.invite_hash == NEW_CODE
    _refused(
        _decide(table, JoinTable("Cy", "hash-2", CODE)),
        "INVALID_INVITE_CODE",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    joined = accepted(_decide(table, JoinTable("Cy", "hash-2", NEW_CODE)))
    assert joined == (tables.PlayerJoined(2, "Cy", "hash-2"),)


def test_a_code_rotated_twice_works_only_in_its_newest_form() -> None:
    table = _open(1, invite=CODE)
    table, _ = _apply(table, RotateInvite(NEW_CODE), seat=0)
    table, _ = _apply(table, RotateInvite("third"), seat=0)
    for stale in (CODE, NEW_CODE):
        _refused(
            _decide(table, JoinTable("Ben", "hash-1", stale)),
            "INVALID_INVITE_CODE",
            RejectionKind.NOT_A_PARTICIPANT,
        )
    accepted(_decide(table, JoinTable("Ben", "hash-1", "third")))


@pytest.mark.parametrize("seat", [1, 2])
def test_only_the_host_rotates_the_code(seat: int) -> None:
    table = _open(3, invite=CODE)
    rejected = _refused(
        _decide(table, RotateInvite(NEW_CODE), seat=seat),
        "NOT_THE_HOST",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    assert rejected.rule == "table/host"


@pytest.mark.parametrize("seat", [None, 3, -1])
def test_a_caller_without_a_seat_cannot_rotate_the_code(seat: int | None) -> None:
    table = _open(3, invite=CODE)
    _refused(
        _decide(table, RotateInvite(NEW_CODE), seat=seat),
        "NOT_A_PARTICIPANT",
        RejectionKind.NOT_A_PARTICIPANT,
    )


def test_a_public_table_has_no_code_to_rotate() -> None:
    table = _open(2)
    _refused(_decide(table, RotateInvite(NEW_CODE), seat=0), "TABLE_NOT_PRIVATE")


def test_the_code_cannot_be_rotated_once_play_began() -> None:
    table = _started(2, invite=CODE)
    _refused(_decide(table, RotateInvite(NEW_CODE), seat=0), "GAME_ALREADY_STARTED")


@pytest.mark.parametrize("viewer", [Seat(0), Seat(1), Spectator()])
def test_nobody_but_the_operator_sees_the_codes_hash(viewer: Viewer) -> None:
    event = tables.InviteCodeSet(CODE)
    assert tables.visible(event, viewer, RULES) == tables.InviteCodeSet("")
    assert tables.visible(event, Operator(), RULES) == event


def test_a_private_table_never_takes_an_empty_code() -> None:
    table = _open(1, invite=CODE)
    _refused(
        _decide(table, RotateInvite(""), seat=0),
        "INVALID_INVITE_CODE",
        RejectionKind.MALFORMED,
    )


def test_a_code_with_non_ascii_characters_is_refused_not_raised() -> None:
    table = _open(1, invite=CODE)
    _refused(
        _decide(table, JoinTable("Ben", "hash-1", "cöde")),
        "INVALID_INVITE_CODE",
        RejectionKind.NOT_A_PARTICIPANT,
    )


# --- The host and the start ---


def test_the_creator_is_the_host_in_seat_0() -> None:
    table = _open(3)
    assert table.host == 0
    assert table.seats[0] == tables.SeatHolder("Player 0", "hash-0")


@pytest.mark.parametrize("seat", [1, 2])
def test_only_the_host_starts_the_game(seat: int) -> None:
    table = _open(3)
    rejected = _refused(
        _decide(table, StartTable(), seat=seat),
        "NOT_THE_HOST",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    assert rejected.rule == "table/host"
    events = accepted(_decide(table, StartTable(), seat=0))
    assert events[0] == tables.GameStarted(3, tables.MISSED_TURNS_GONE)


@pytest.mark.parametrize("seat", [None, 3])
def test_a_caller_without_a_seat_cannot_start(seat: int | None) -> None:
    table = _open(3)
    _refused(
        _decide(table, StartTable(), seat=seat),
        "NOT_A_PARTICIPANT",
        RejectionKind.NOT_A_PARTICIPANT,
    )


# --- Leaving ---


def test_leaving_moves_the_later_seats_down_by_one() -> None:
    table = _open(4)
    table, left = _apply(table, LeaveTable(), seat=1)
    assert _left(left) == [(1, False)]
    assert _names(table) == ["Player 0", "Player 2", "Player 3"]
    assert _tokens(table) == ["hash-0", "hash-2", "hash-3"]
    assert table.status is tables.TableStatus.WAITING_FOR_PLAYERS


def test_a_player_who_moved_down_acts_from_their_new_seat() -> None:
    table = _open(4)
    table, _ = _apply(table, LeaveTable(), seat=1)
    # Player 2 holds seat 1 now: leaving from it takes them, not Player 3.
    table, left = _apply(table, LeaveTable(), seat=1)
    assert _left(left) == [(1, False)]
    assert _names(table) == ["Player 0", "Player 3"]
    assert _tokens(table) == ["hash-0", "hash-3"]


def test_a_newcomer_takes_the_seat_after_the_last_one_taken() -> None:
    table = _open(3)
    table, _ = _apply(table, LeaveTable(), seat=1)
    joined = accepted(_decide(table, JoinTable("Dee", "hash-d")))
    assert joined == (tables.PlayerJoined(2, "Dee", "hash-d"),)


def test_leaving_frees_a_seat_at_a_full_table() -> None:
    table = _open(2, max_players=2)
    _refused(_decide(table, JoinTable("Cy", "hash-2")), "TABLE_FULL")
    table, _ = _apply(table, LeaveTable(), seat=1)
    table, joined = _apply(table, JoinTable("Cy", "hash-2"))
    assert joined == (tables.PlayerJoined(1, "Cy", "hash-2"),)
    assert _tokens(table) == ["hash-0", "hash-2"]


def test_when_the_host_leaves_the_next_player_becomes_host() -> None:
    table = _open(3, invite=CODE)
    table, left = _apply(table, LeaveTable(), seat=0)
    assert _left(left) == [(0, False)]
    assert table.host == 0
    assert _tokens(table) == ["hash-1", "hash-2"]
    # Player 2, now in seat 1, is not the host; Player 1, now in seat 0, is.
    _refused(
        _decide(table, StartTable(), seat=1),
        "NOT_THE_HOST",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    _refused(
        _decide(table, RotateInvite(NEW_CODE), seat=1),
        "NOT_THE_HOST",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    accepted(_decide(table, RotateInvite(NEW_CODE), seat=0))
    assert accepted(_decide(table, StartTable(), seat=0))[0] == tables.GameStarted(
        2, tables.MISSED_TURNS_GONE
    )


def test_the_last_player_leaving_closes_the_table() -> None:
    table = _open(1)
    table, events = _apply(table, LeaveTable(), seat=0)
    assert _left(events[:1]) == [(0, False)]
    assert events[1:] == (tables.TableClosed(tables.ClosedBecause.EMPTY),)
    assert table.status is tables.TableStatus.CLOSED
    assert table.closed is tables.ClosedBecause.EMPTY
    assert table.seats == ()
    assert table.host is None


def test_the_last_of_several_players_leaving_closes_the_table() -> None:
    table = _open(3)
    for _ in range(2):
        table, events = _apply(table, LeaveTable(), seat=0)
        assert _left(events) == [(0, False)]
    table, events = _apply(table, LeaveTable(), seat=0)
    assert events[-1] == tables.TableClosed(tables.ClosedBecause.EMPTY)
    assert table.status is tables.TableStatus.CLOSED


@pytest.mark.parametrize("invite", ["", CODE])
def test_a_table_closed_empty_refuses_joining(invite: str) -> None:
    table, _ = _apply(_open(1, invite=invite), LeaveTable(), seat=0)
    rejected = _refused(
        _decide(table, JoinTable("Ben", "hash-1", invite)), "TABLE_CLOSED"
    )
    assert rejected.metadata["closedBecause"] == "EMPTY"
    assert rejected.message.endswith("all its players left.")


def test_a_table_closed_empty_cannot_be_started_or_expired() -> None:
    table, _ = _apply(_open(1), LeaveTable(), seat=0)
    # Nobody holds seat 0 any more, so the participant check refuses first.
    _refused(
        _decide(table, StartTable(), seat=0),
        "NOT_A_PARTICIPANT",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    _refused(_decide(table, ExpireTable(), now=EXPIRES), "TABLE_CLOSED")


@pytest.mark.parametrize("seat", [None, 2, -1])
def test_leaving_needs_a_seat(seat: int | None) -> None:
    table = _open(2)
    _refused(
        _decide(table, LeaveTable(), seat=seat),
        "NOT_A_PARTICIPANT",
        RejectionKind.NOT_A_PARTICIPANT,
    )


@pytest.mark.parametrize("seat", [0, 1])
def test_leaving_is_refused_once_play_began(seat: int) -> None:
    table = _started(2)
    rejected = _refused(_decide(table, LeaveTable(), seat=seat), "GAME_ALREADY_STARTED")
    assert "resign" in rejected.message


# --- Removing a seat ---


def test_the_host_removes_a_seat_and_the_later_seats_move_down() -> None:
    table = _open(4)
    table, events = _apply(table, RemoveSeat(2), seat=0)
    assert _left(events) == [(2, True)]
    assert _names(table) == ["Player 0", "Player 1", "Player 3"]
    assert _tokens(table) == ["hash-0", "hash-1", "hash-3"]
    assert table.status is tables.TableStatus.WAITING_FOR_PLAYERS


def test_the_host_may_remove_the_last_seat_taken() -> None:
    table = _open(3)
    table, events = _apply(table, RemoveSeat(2), seat=0)
    assert _left(events) == [(2, True)]
    assert _tokens(table) == ["hash-0", "hash-1"]


@pytest.mark.parametrize("seat", [1, 2])
def test_only_the_host_removes_a_seat(seat: int) -> None:
    table = _open(3)
    _refused(
        _decide(table, RemoveSeat(3 - seat), seat=seat),
        "NOT_THE_HOST",
        RejectionKind.NOT_A_PARTICIPANT,
    )


def test_a_caller_without_a_seat_cannot_remove_one() -> None:
    table = _open(3)
    _refused(
        _decide(table, RemoveSeat(1), seat=None),
        "NOT_A_PARTICIPANT",
        RejectionKind.NOT_A_PARTICIPANT,
    )


@pytest.mark.parametrize("removed", [0, 3, -1, 99])
def test_removing_the_host_or_a_seat_nobody_holds_is_refused(removed: int) -> None:
    table = _open(3)
    rejected = _refused(_decide(table, RemoveSeat(removed), seat=0), "NO_SUCH_SEAT")
    assert rejected.metadata == {"seat": str(removed), "seatedPlayers": "3"}


def test_seats_cannot_be_removed_once_play_began() -> None:
    table = _started(3)
    _refused(_decide(table, RemoveSeat(1), seat=0), "GAME_ALREADY_STARTED")


def test_a_removed_player_rejoins_a_private_table_only_with_the_new_code() -> None:
    table = _open(2, invite=CODE)
    table, _ = _apply(table, RemoveSeat(1), seat=0)
    table, _ = _apply(table, RotateInvite(NEW_CODE), seat=0)
    _refused(
        _decide(table, JoinTable("Player 1", "hash-1", CODE)),
        "INVALID_INVITE_CODE",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    joined = accepted(_decide(table, JoinTable("Player 1", "hash-1", NEW_CODE)))
    assert joined == (tables.PlayerJoined(1, "Player 1", "hash-1"),)


# --- Expiry ---


def test_the_expiry_time_is_recorded_with_the_table() -> None:
    created = _created(expires_at=EXPIRES)[0]
    assert isinstance(created, tables.GameCreated)
    assert created.expires_at == EXPIRES
    assert _open(1, expires_at=EXPIRES).expires_at == EXPIRES


@pytest.mark.parametrize(
    "early", [timedelta(microseconds=1), timedelta(seconds=1), timedelta(hours=1)]
)
def test_a_table_does_not_expire_before_its_time(early: timedelta) -> None:
    table = _open(2, expires_at=EXPIRES)
    rejected = _refused(
        _decide(table, ExpireTable(), now=EXPIRES - early), "TABLE_NOT_EXPIRED"
    )
    assert rejected.metadata == {"expireTime": EXPIRES.isoformat()}


@pytest.mark.parametrize(
    "late", [timedelta(0), timedelta(microseconds=1), timedelta(days=30)]
)
def test_a_table_expires_from_its_expiry_time_on(late: timedelta) -> None:
    table = _open(2, expires_at=EXPIRES)
    table, events = _apply(table, ExpireTable(), now=EXPIRES + late)
    assert events == (tables.TableClosed(tables.ClosedBecause.EXPIRED),)
    assert table.status is tables.TableStatus.CLOSED
    assert table.closed is tables.ClosedBecause.EXPIRED


@pytest.mark.parametrize(
    "now", [datetime(2000, 1, 1, tzinfo=UTC), NOW, NOW + timedelta(days=365)]
)
def test_a_table_without_expiry_time_may_be_expired_at_any_time(
    now: datetime,
) -> None:
    table = _open(2)
    assert table.expires_at is None
    events = accepted(_decide(table, ExpireTable(), now=now))
    assert events == (tables.TableClosed(tables.ClosedBecause.EXPIRED),)


def test_a_started_table_does_not_expire() -> None:
    table = _open(2, expires_at=EXPIRES)
    table, _ = _apply(table, StartTable(), seat=0)
    _refused(
        _decide(table, ExpireTable(), now=EXPIRES + timedelta(days=1)),
        "GAME_ALREADY_STARTED",
    )


@pytest.mark.parametrize(
    ("command", "seat"),
    [
        pytest.param(JoinTable("Cy", "hash-2", CODE), None, id="join"),
        pytest.param(StartTable(), 0, id="start"),
        pytest.param(LeaveTable(), 1, id="leave"),
        pytest.param(RemoveSeat(1), 0, id="remove"),
        pytest.param(RotateInvite(NEW_CODE), 0, id="rotate"),
        pytest.param(ExpireTable(), None, id="expire"),
    ],
)
def test_an_expired_table_refuses_every_lobby_request(
    command: TableCommand, seat: int | None
) -> None:
    table = _open(2, invite=CODE, expires_at=EXPIRES)
    table, _ = _apply(table, ExpireTable(), now=EXPIRES)
    rejected = _refused(_decide(table, command, seat, EXPIRES), "TABLE_CLOSED")
    assert rejected.metadata == {"closedBecause": "EXPIRED"}
    assert rejected.message.endswith("it waited too long for players.")


# --- Resigning ---


def test_resigning_before_play_begins_is_refused() -> None:
    table = _open(2)
    _refused(_decide(table, Resign(), seat=1), "GAME_NOT_IN_PROGRESS")


@pytest.mark.parametrize("seat", [None, 2, -1])
def test_a_caller_without_a_seat_cannot_resign(seat: int | None) -> None:
    table = _started(2)
    _refused(
        _decide(table, Resign(), seat=seat),
        "NOT_A_PARTICIPANT",
        RejectionKind.NOT_A_PARTICIPANT,
    )


def test_resigning_records_the_seat_and_play_goes_on() -> None:
    table = _started(3)
    table, events = _apply(table, Resign(), seat=1)
    assert events == (tables.PlayerResigned(1),)
    assert table.resigned == frozenset({1})
    assert table.status is tables.TableStatus.IN_PROGRESS
    assert table.final is None


def test_a_resigned_seat_may_not_move_even_when_its_move_would_be_legal() -> None:
    table = _started(2)
    seat = seat_to_move(table)
    move = PlayMove(first_legal_move(table.game, seat))
    accepted(_decide(table, move, seat))  # legal before the resignation
    table, _ = _apply(table, Resign(), seat=seat)
    rejected = _refused(
        _decide(table, move, seat), "SEAT_RESIGNED", RejectionKind.NOT_A_PARTICIPANT
    )
    assert rejected.metadata == {"seat": str(seat)}
    assert rejected.rule == "table/resigned"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(Resign(), id="resign-again"),
        pytest.param(UndoLastMove(), id="undo"),
        pytest.param(ProposeTakeback(), id="propose"),
        pytest.param(AnswerTakeback(1, accept=True), id="answer"),
        pytest.param(LeaveTable(), id="leave"),
        pytest.param(StartTable(), id="start"),
    ],
)
def test_a_resigned_seat_can_no_longer_act_at_all(command: TableCommand) -> None:
    table = _started(3)
    table, _ = _apply(table, Resign(), seat=0)
    _refused(
        _decide(table, command, seat=0),
        "SEAT_RESIGNED",
        RejectionKind.NOT_A_PARTICIPANT,
    )


def test_the_other_seats_still_act_after_one_resigned() -> None:
    table = _started(2)
    seat = seat_to_move(table)
    table, _ = _apply(table, Resign(), seat=1 - seat)
    accepted(_decide(table, PlayMove(first_legal_move(table.game, seat)), seat))


def test_resigning_withdraws_an_open_takeback_proposal() -> None:
    table = _started(3)
    mover = seat_to_move(table)
    table = _move(table)
    table, _ = _apply(table, ProposeTakeback(), seat=mover)
    proposal = table.undo.proposal
    assert proposal is not None
    other = (mover + 1) % 3
    table, events = _apply(table, Resign(), seat=other)
    assert events == (
        UndoResolved(proposal.proposal_id, UndoOutcome.WITHDRAWN, None, None),
        tables.PlayerResigned(other),
    )
    assert table.undo.proposal is None


# --- The bot's moves for a resigned seat ---


def test_the_bot_plays_a_resigned_seat_that_is_to_move() -> None:
    table = _started(2)
    seat = seat_to_move(table)
    table, _ = _apply(table, Resign(), seat=seat)
    move = _bot_move(table, seat)
    game_events = accepted(RULES.decide(table.game, move, table.rng))
    after, events = _apply(table, PlayResigned(seat, move))
    assert events == (
        tables.ResignedSeatPlayed(seat),
        MovePlayed(seat, undoable=False, reveals=False),
        *game_events,
    )
    assert seat_to_move(after) == 1 - seat
    assert after.bot_moving is None


def test_the_bot_may_not_play_a_seat_that_did_not_resign() -> None:
    table = _started(2)
    seat = seat_to_move(table)
    rejected = _refused(
        _decide(table, PlayResigned(seat, _bot_move(table, seat))),
        "SEAT_NOT_RESIGNED",
    )
    assert rejected.metadata == {"seat": str(seat)}


def test_the_bot_may_not_play_a_resigned_seat_out_of_turn() -> None:
    table = _started(2)
    mover = seat_to_move(table)
    waiting = 1 - mover
    table, _ = _apply(table, Resign(), seat=waiting)
    rejected = _refused(
        _decide(table, PlayResigned(waiting, first_legal_move(table.game, mover))),
        "SEAT_NOT_TO_MOVE",
    )
    assert rejected.metadata == {"seat": str(waiting)}


def test_the_bot_may_not_play_before_the_game_started() -> None:
    table = _open(2)
    _refused(_decide(table, PlayResigned(0, None)), "GAME_NOT_IN_PROGRESS")


def test_the_bots_move_for_a_resigned_seat_must_be_that_seats() -> None:
    table = _started(2)
    mover = seat_to_move(table)
    table, _ = _apply(table, Resign(), seat=mover)
    # A command of the game issued for the other seat is not the resigned seat's.
    other_seats = replace(first_legal_move(table.game, mover), seat=1 - mover)
    _refused(
        _decide(table, PlayResigned(mover, other_seats)),
        "NOT_A_PARTICIPANT",
        RejectionKind.NOT_A_PARTICIPANT,
    )


def test_the_bots_move_for_a_resigned_seat_is_re_decided_for_that_seat() -> None:
    # The store credits a PlayResigned to the seat it acts for (acting_seat),
    # and the audit re-decides it as that seat: it must decide the same way.
    table = _started(2)
    seat = seat_to_move(table)
    table, _ = _apply(table, Resign(), seat=seat)
    command = PlayResigned(seat, _bot_move(table, seat))
    live = accepted(_decide(table, command, None))
    credited = commands.acting_seat(command, None)
    assert credited == seat
    assert accepted(_decide(table, command, credited)) == live


# --- Abandoned games ---


def test_when_every_seat_resigns_the_game_ends_abandoned_without_a_winner() -> None:
    table = _started(2)
    table = _move(table)
    table = _move(table)
    table, events = _apply(table, Resign(), seat=0)
    assert events == (tables.PlayerResigned(0),)
    scores = RULES.outcome(table.game).scores
    assert any(scores)
    table, events = _apply(table, Resign(), seat=1)
    assert events == (
        tables.PlayerResigned(1),
        tables.GameFinished(scores, (), SEED.hex(), (0, 1), abandoned=True),
    )
    assert table.status is tables.TableStatus.FINISHED
    assert table.final == events[-1]
    assert tables.outcome(table, RULES) == Outcome(scores, (), finished=True)


def test_play_goes_on_while_one_seat_has_not_resigned() -> None:
    table = _started(3)
    for seat in (0, 2):
        table, events = _apply(table, Resign(), seat=seat)
        assert events == (tables.PlayerResigned(seat),)
    assert table.status is tables.TableStatus.IN_PROGRESS
    table, events = _apply(table, Resign(), seat=1)
    (finished,) = _finished(events)
    assert finished.abandoned is True
    assert finished.resigned == (0, 1, 2)
    assert finished.winners == ()


def test_every_seat_timing_out_three_times_in_a_row_abandons_the_game() -> None:
    table = _started(2, turn_seconds=TURN_SECONDS)
    first = seat_to_move(table)
    for turn in range(5):
        table, events = _time_out(table)
        assert not _finished(events)
        assert events[0] == tables.TurnTimedOut((first + turn) % 2)
        assert isinstance(events[-1], tables.TurnTimerStarted)
    assert table.missed[first] == 3
    assert table.missed[1 - first] == 2
    table, events = _time_out(table)
    scores = RULES.outcome(table.game).scores
    winners = RULES.leaders(table.game, (0, 1))
    assert events[-1] == tables.GameFinished(
        scores, winners, SEED.hex(), (), abandoned=True
    )
    assert not any(isinstance(e, tables.TurnTimerStarted) for e in events)
    assert table.status is tables.TableStatus.FINISHED
    assert table.turn_deadline is None
    assert tables.outcome(table, RULES) == Outcome(scores, winners, finished=True)


def test_a_game_started_before_the_rule_is_never_abandoned_for_missed_turns() -> None:
    table = _started(2, turn_seconds=TURN_SECONDS)
    # As a game started before T24 was folded: its GameStarted named no rule.
    table = replace(table, missed_turns_gone=0)
    for _ in range(4 * tables.MISSED_TURNS_GONE):
        table, events = _time_out(table)
        assert not _finished(events)
    assert table.status is tables.TableStatus.IN_PROGRESS


def test_a_seats_own_move_resets_its_count_of_missed_turns() -> None:
    table = _started(2, turn_seconds=TURN_SECONDS)
    first = seat_to_move(table)
    second = 1 - first
    for _ in range(4):
        table, _ = _time_out(table)
    assert table.missed == (2, 2)
    table = _move(table, table.turn_deadline or NOW)  # ``first`` moves itself
    assert table.missed[first] == 0
    assert table.missed[second] == 2
    # ``second`` goes on missing; ``first`` needs three in a row again.
    for missed_first in (1, 2):
        table, events = _time_out(table)  # second
        assert not _finished(events)
        table, events = _time_out(table)  # first
        assert not _finished(events)
        assert table.missed[first] == missed_first
    table, events = _time_out(table)  # second: five in a row
    assert not _finished(events)
    assert table.missed[second] == 5
    table, events = _time_out(table)  # first: three in a row at last
    (finished,) = _finished(events)
    assert finished.abandoned is True


def test_one_seat_timing_out_does_not_end_the_game_while_another_plays() -> None:
    table = _started(2, turn_seconds=TURN_SECONDS)
    absent = 1 - seat_to_move(table)
    for _ in range(5):
        table = _move(table, table.turn_deadline or NOW)
        table, events = _time_out(table)
        assert events[0] == tables.TurnTimedOut(absent)
        assert not _finished(events)
    assert table.missed[absent] == 5
    assert table.status is tables.TableStatus.IN_PROGRESS


def test_the_last_seat_playing_timing_out_after_a_resignation_ends_the_game() -> None:
    table = _started(2, turn_seconds=TURN_SECONDS)
    absent = seat_to_move(table)
    resigned = 1 - absent
    table, _ = _apply(table, Resign(), seat=resigned)
    for missed in (1, 2, 3):
        table, events = _time_out(table)
        assert table.missed[absent] == missed
        if missed < 3:
            assert not _finished(events)
            table = _play_resigned(table)
    (finished,) = _finished(events)
    assert finished.abandoned is True
    assert finished.resigned == (resigned,)
    # Timing out is not resigning: the seat that stayed away may still win.
    assert finished.winners == (absent,)
    assert finished.scores == RULES.outcome(table.game).scores
    assert tables.outcome(table, RULES) == Outcome(
        finished.scores, finished.winners, finished=True
    )


def test_resigning_when_every_other_seat_is_gone_ends_the_game() -> None:
    table = _started(2, turn_seconds=TURN_SECONDS)
    absent = 1 - seat_to_move(table)
    present = 1 - absent
    for _ in range(3):
        table = _move(table, table.turn_deadline or NOW)
        table, _ = _time_out(table)
    assert table.missed[absent] == 3
    assert table.status is tables.TableStatus.IN_PROGRESS
    table, events = _apply(table, Resign(), seat=present)
    scores = RULES.outcome(table.game).scores
    assert events == (
        tables.PlayerResigned(present),
        tables.GameFinished(scores, (absent,), SEED.hex(), (present,), abandoned=True),
    )


# --- A game played to its end after a resignation ---


@pytest.mark.parametrize("resigner", [0, 1])
def test_a_resigned_seat_never_wins_a_game_played_to_its_end(resigner: int) -> None:
    table = _started(2)
    table, _ = _apply(table, Resign(), seat=resigner)
    events: tuple[Any, ...] = ()
    for _ in range(500):
        if table.status is not tables.TableStatus.IN_PROGRESS:
            break
        seat = seat_to_move(table)
        if seat == resigner:
            table, events = _apply(table, PlayResigned(seat, _bot_move(table, seat)))
        else:
            move = PlayMove(first_legal_move(table.game, seat))
            table, events = _apply(table, move, seat)
    finished = table.final
    assert finished is not None
    assert events[-1] == finished
    assert finished.abandoned is False
    assert finished.resigned == (resigner,)
    # The bot outscores a player who always takes the first legal move, so the
    # game alone would crown the resigned seat.
    assert RULES.outcome(table.game).winners == (resigner,)
    assert finished.winners == (1 - resigner,)
    assert finished.scores == RULES.outcome(table.game).scores
    assert tables.outcome(table, RULES) == Outcome(
        finished.scores, finished.winners, finished=True
    )


def test_a_resigned_seat_whose_bot_ends_the_game_first_does_not_win() -> None:
    rules = counting_game.RULES
    table = _started(2, rules=rules)
    table, _ = _apply(table, Resign(), seat=1, rules=rules)
    table, _ = _apply(table, PlayMove(counting_game.Add(0, 1)), seat=0, rules=rules)
    finishing = PlayResigned(1, counting_game.Add(1, counting_game.TARGET))
    table, events = _apply(table, finishing, rules=rules)
    # The game alone would crown seat 1, which reached the target.
    assert rules.outcome(table.game).winners == (1,)
    assert events[-1] == tables.GameFinished((1, 10), (0,), SEED.hex(), (1,))
    assert tables.outcome(table, rules) == Outcome((1, 10), (0,), finished=True)


def test_a_game_finished_without_resignations_keeps_the_rules_outcome() -> None:
    rules = counting_game.RULES
    table = _started(2, rules=rules)
    table, _ = _apply(table, PlayMove(counting_game.Add(0, 4)), seat=0, rules=rules)
    table, events = _apply(table, PlayMove(counting_game.Add(1, 6)), 1, rules=rules)
    assert events[-1] == tables.GameFinished((4, 6), (1,), SEED.hex())
    assert tables.outcome(table, rules) == rules.outcome(table.game)


# --- Takebacks and resigned seats ---


def test_a_takeback_needs_no_consent_from_a_resigned_seat() -> None:
    table = _started(3)
    mover = seat_to_move(table)
    answering, resigning = (mover + 1) % 3, (mover + 2) % 3
    table, _ = _apply(table, Resign(), seat=resigning)
    before = table
    table = _move(table)
    table, events = _apply(table, ProposeTakeback(), seat=mover)
    (proposal,) = events
    assert isinstance(proposal, UndoProposed)
    pid = proposal.proposal_id
    _refused(
        _decide(table, AnswerTakeback(pid, accept=True), seat=resigning),
        "SEAT_RESIGNED",
        RejectionKind.NOT_A_PARTICIPANT,
    )
    table, events = _apply(table, AnswerTakeback(pid, accept=True), seat=answering)
    assert events == (
        UndoAccepted(pid, answering),
        MovesUndone(before.revision, 1, mover, pid),
        UndoResolved(pid, UndoOutcome.ACCEPTED, answering, NOW),
    )
    assert table.game == before.game


def test_with_every_other_seat_resigned_nobody_is_asked_for_a_takeback() -> None:
    table = _started(2)
    mover = seat_to_move(table)
    table, _ = _apply(table, Resign(), seat=1 - mover)
    table = _move(table)
    _refused(_decide(table, ProposeTakeback(), seat=mover), "NOBODY_TO_ASK")
