"""Taking moves back: alone where allowed, otherwise by consent (DESIGN §6)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from domain.common import table as tables
from domain.common.decision import Accepted, Decision, Rejected
from domain.common.rng import commitment
from domain.common.takeback import propose_undo, respond_undo, undo_move
from domain.common.undo import (
    BACKOFF_FIRST,
    PROPOSAL_LIFETIME,
    SELF_UNDO_LIMIT,
    MovePlayed,
    MovesUndone,
    UndoAccepted,
    UndoOutcome,
    UndoProposed,
    UndoResolved,
)
from tests.counting_game import RULES, Add, Config

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SEED = bytes(range(32))


def _apply(table: tables.Table, decision: Decision[Any]) -> tables.Table:
    assert isinstance(decision, Accepted), decision
    for event in decision.events:
        table = tables.evolve(table, event, RULES)
    return table


def _refused(decision: Decision[Any], reason: str) -> None:
    assert isinstance(decision, Rejected), decision
    assert decision.reason == reason


def _started(players: int = 3) -> tables.Table:
    opening = tables.GameCreated(
        RULES.name, Config(), players, commitment(SEED), SEED.hex()
    )
    created = tables.create(RULES, opening, tables.SeatHolder("P0", ""))
    assert isinstance(created, Accepted)
    table: tables.Table | None = None
    for event in created.events:
        table = tables.evolve(table, event, RULES)
    assert table is not None
    for seat in range(1, players):
        table = _apply(table, tables.join(table, f"P{seat}", ""))
    return _apply(table, tables.start(table, RULES, 0))


def _move(
    table: tables.Table,
    seat: int,
    n: int = 1,
    *,
    draw: bool = False,
    show: bool = False,
) -> Any:
    return _apply(table, tables.play(table, RULES, seat, Add(seat, n, draw, show)))


def test_every_move_is_marked_for_undo_with_the_games_verdict() -> None:
    table = _started()
    decision = tables.play(table, RULES, 0, Add(0, 2, draw=True))
    assert isinstance(decision, Accepted)
    assert decision.events[0] == MovePlayed(0, undoable=False, reveals=False)
    shown = tables.play(table, RULES, 0, Add(0, 2, show=True))
    assert isinstance(shown, Accepted)
    assert shown.events[0] == MovePlayed(0, undoable=False, reveals=True)


def test_a_player_takes_back_a_move_that_revealed_nothing() -> None:
    before = _started()
    after = _move(before, 0, 3)
    decision = undo_move(after, 0, NOW)
    assert isinstance(decision, Accepted)
    assert decision.events == (MovesUndone(before.revision, 1, 0, 0),)
    undone = _apply(after, decision)
    assert undone.game == before.game
    assert undone.revision == after.revision + 1  # history is appended, not cut


def test_a_move_that_revealed_something_cannot_be_taken_back_alone() -> None:
    table = _move(_started(), 0, draw=True)
    _refused(undo_move(table, 0, NOW), "MOVE_NOT_UNDOABLE")


def test_only_the_last_mover_may_take_back_and_only_the_last_move() -> None:
    table = _move(_move(_started(), 0), 1)
    _refused(undo_move(table, 0, NOW), "LAST_MOVE_NOT_YOURS")
    _refused(propose_undo(table, 0, NOW), "LAST_MOVE_NOT_YOURS")


def test_there_is_nothing_to_undo_before_the_first_move() -> None:
    _refused(undo_move(_started(), 0, NOW), "NOTHING_TO_UNDO")


def test_consecutive_undos_walk_back_move_by_move() -> None:
    start = _started(2)
    one = _move(start, 0)
    two = _move(one, 1)
    back_to_one = _apply(two, undo_move(two, 1, NOW))
    assert back_to_one.game == one.game
    back_to_start = _apply(back_to_one, undo_move(back_to_one, 0, NOW))
    assert back_to_start.game == start.game


def test_a_takeback_needs_every_other_seat_to_accept() -> None:
    before = _started(3)
    table = _move(before, 0, draw=True)
    table = _apply(table, propose_undo(table, 0, NOW))
    proposal = table.undo.proposal
    assert proposal is not None
    assert proposal.target_revision == before.revision
    first = respond_undo(table, 1, proposal.proposal_id, accept=True, now=NOW)
    assert isinstance(first, Accepted)
    assert first.events == (UndoAccepted(proposal.proposal_id, 1),)
    table = _apply(table, first)
    last = respond_undo(table, 2, proposal.proposal_id, accept=True, now=NOW)
    assert isinstance(last, Accepted)
    assert [type(e) for e in last.events] == [UndoAccepted, MovesUndone, UndoResolved]
    table = _apply(table, last)
    assert table.game == before.game
    assert table.undo.proposal is None


def test_a_decline_closes_the_proposal_and_the_proposer_waits_longer_each_time() -> (
    None
):
    table = _move(_started(2), 0, draw=True)
    waits = []
    now = NOW
    for _ in range(3):
        table = _apply(table, propose_undo(table, 0, now))
        proposal = table.undo.proposal
        assert proposal is not None
        table = _apply(
            table, respond_undo(table, 1, proposal.proposal_id, accept=False, now=now)
        )
        assert table.undo.proposal is None
        refused = propose_undo(table, 0, now)
        _refused(refused, "UNDO_BACKOFF")
        assert isinstance(refused, Rejected)
        retry_at = datetime.fromisoformat(refused.metadata["retryAt"])
        waits.append(retry_at - now)
        now = retry_at
    assert waits == [BACKOFF_FIRST, BACKOFF_FIRST * 2, BACKOFF_FIRST * 4]


def test_a_new_move_withdraws_an_open_proposal() -> None:
    table = _move(_started(2), 0, draw=True)
    table = _apply(table, propose_undo(table, 0, NOW))
    proposal = table.undo.proposal
    assert proposal is not None
    decision = tables.play(table, RULES, 1, Add(1, 1))
    assert isinstance(decision, Accepted)
    assert decision.events[0] == UndoResolved(
        proposal.proposal_id, UndoOutcome.WITHDRAWN, None, None
    )
    table = _apply(table, decision)
    assert table.undo.proposal is None
    _refused(
        respond_undo(table, 1, proposal.proposal_id, accept=True, now=NOW),
        "NO_OPEN_PROPOSAL",
    )


def test_an_expired_proposal_cannot_be_answered_and_a_new_one_closes_it() -> None:
    table = _move(_started(2), 0, draw=True)
    table = _apply(table, propose_undo(table, 0, NOW))
    proposal = table.undo.proposal
    assert proposal is not None
    later = NOW + PROPOSAL_LIFETIME
    _refused(
        respond_undo(table, 1, proposal.proposal_id, accept=True, now=later),
        "NO_OPEN_PROPOSAL",
    )
    again = propose_undo(table, 0, later)
    assert isinstance(again, Accepted)
    assert again.events[0] == UndoResolved(
        proposal.proposal_id, UndoOutcome.EXPIRED, None, later
    )
    assert isinstance(again.events[1], UndoProposed)
    assert again.events[1].proposal_id == proposal.proposal_id + 1


def test_one_proposal_at_a_time_and_one_answer_per_seat() -> None:
    table = _move(_started(3), 0, draw=True)
    table = _apply(table, propose_undo(table, 0, NOW))
    proposal = table.undo.proposal
    assert proposal is not None
    _refused(propose_undo(table, 0, NOW), "PROPOSAL_OPEN")
    _refused(
        respond_undo(table, 0, proposal.proposal_id, accept=True, now=NOW),
        "ALREADY_RESPONDED",
    )
    table = _apply(
        table, respond_undo(table, 1, proposal.proposal_id, accept=True, now=NOW)
    )
    _refused(
        respond_undo(table, 1, proposal.proposal_id, accept=True, now=NOW),
        "ALREADY_RESPONDED",
    )


def test_nothing_can_be_taken_back_once_the_game_is_over() -> None:
    table = _move(_started(2), 0, 10)
    assert table.status is tables.TableStatus.FINISHED
    _refused(undo_move(table, 0, NOW), "GAME_NOT_IN_PROGRESS")
    _refused(propose_undo(table, 0, NOW + timedelta(seconds=1)), "GAME_NOT_IN_PROGRESS")


@pytest.mark.parametrize("seat", [-1, 5])
def test_a_seat_nobody_holds_cannot_undo(seat: int) -> None:
    table = _move(_started(2), 0)
    _refused(undo_move(table, seat, NOW), "NOT_A_PARTICIPANT")
    _refused(respond_undo(table, seat, 1, accept=True, now=NOW), "NOT_A_PARTICIPANT")


def _move_and_undo(table: tables.Table, seat: int, times: int) -> tables.Table:
    for _ in range(times):
        table = _move(table, seat)
        table = _apply(table, undo_move(table, seat, NOW))
    return table


def test_a_loop_of_move_and_undo_is_refused_after_a_few_undos_a_turn() -> None:
    table = _move_and_undo(_started(2), 0, SELF_UNDO_LIMIT)
    table = _move(table, 0)
    refused = undo_move(table, 0, NOW)
    _refused(refused, "SELF_UNDO_LIMIT_REACHED")
    assert isinstance(refused, Rejected)
    assert refused.metadata["limit"] == str(SELF_UNDO_LIMIT)


def test_the_next_seats_move_gives_back_the_undos_alone() -> None:
    table = _move_and_undo(_started(2), 0, SELF_UNDO_LIMIT)
    table = _move(_move(table, 0), 1)  # seat 0's turn ended, seat 1 moved
    table = _move(table, 0)
    assert isinstance(undo_move(table, 0, NOW), Accepted)


def test_undos_alone_are_counted_per_seat_across_its_moves_of_one_turn() -> None:
    # Several moves in one turn (as in Split or Gnoming A Round) share the limit.
    table = _move_and_undo(_started(2), 0, SELF_UNDO_LIMIT - 1)
    table = _move(table, 0)
    table = _apply(table, undo_move(table, 0, NOW))
    table = _move(table, 0)
    _refused(undo_move(table, 0, NOW), "SELF_UNDO_LIMIT_REACHED")


def test_a_seat_at_the_limit_may_still_propose_a_takeback() -> None:
    table = _move_and_undo(_started(2), 0, SELF_UNDO_LIMIT)
    table = _move(table, 0)
    table = _apply(table, propose_undo(table, 0, NOW))
    proposal = table.undo.proposal
    assert proposal is not None
    accepted = respond_undo(table, 1, proposal.proposal_id, accept=True, now=NOW)
    assert isinstance(accepted, Accepted)


def test_a_takeback_may_not_cross_a_move_that_showed_others_something() -> None:
    table = _move(_started(3), 0, show=True)
    refused = propose_undo(table, 0, NOW)
    _refused(refused, "TAKEBACK_CROSSES_REVEAL")


def test_a_takeback_of_a_move_only_its_mover_saw_needs_only_consent() -> None:
    before = _started(2)
    table = _move(before, 0, draw=True)
    table = _apply(table, propose_undo(table, 0, NOW))
    proposal = table.undo.proposal
    assert proposal is not None
    table = _apply(
        table, respond_undo(table, 1, proposal.proposal_id, accept=True, now=NOW)
    )
    assert table.game == before.game


def test_an_open_proposal_across_a_reveal_cannot_be_accepted() -> None:
    # A proposal stored before reveals were recorded may still be open.
    table = _move(_started(2), 0, show=True)
    points = table.undo.points
    unrecorded = replace(points[-1], reveals=False)
    opened = replace(table, undo=replace(table.undo, points=(*points[:-1], unrecorded)))
    opened = _apply(opened, propose_undo(opened, 0, NOW))
    proposal = opened.undo.proposal
    assert proposal is not None
    table = replace(opened, undo=replace(opened.undo, points=points))
    _refused(
        respond_undo(table, 1, proposal.proposal_id, accept=True, now=NOW),
        "TAKEBACK_CROSSES_REVEAL",
    )
