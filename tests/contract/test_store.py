"""Every game through the games application: refusals store nothing, undos hold.

One random game per game, played through the use cases on the in-memory
store (DESIGN §2, §6): a move the rules refuse, a move of a seat the game does
not wait for and an undo of another seat's move are refused and store nothing;
the game the store folds is the one the rules' events give; a move its mover
may take back alone is taken back by the mover alone, to the state before it;
a move that showed others something hidden is never taken back, alone or by
consent; any other move needs consent, and once given, it restores the state
before the move.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from functools import partial
from typing import Any

import pytest

from domain.common.decision import Rejected
from domain.common.table import TableStatus
from services.games import Applied
from tests.contract.games import GAMES, ContractGame
from tests.contract.playouts import pick
from tests.contract.serving import Table, serve

MAX_MOVES = 5_000
REFUSALS = 3  # moves before which refused requests are sent
STALE = 3  # commands listed earlier, sent again, per move
CHECKS_PER_VERDICT = 3  # moves taken back (or not) per verdict and game


@pytest.fixture(params=GAMES, ids=lambda game: game.name)
def table(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Table:
    """Returns a started game with the fewest seats its game allows, but three."""
    game: ContractGame = request.param
    serve(game.rules, monkeypatch)
    players = max(game.rules.min_players, min(3, game.rules.max_players))
    return Table(game.name, game.table_options(players, 0), players)


def game_events(table: Table, applied: Applied) -> tuple[Any, ...]:
    """Returns the game's own events among those a request stored."""
    kinds = tuple(table.record().rules.events.values())
    return tuple(item.event for item in applied.events if isinstance(item.event, kinds))


def test_refused_requests_store_nothing(table: Table) -> None:
    rules, choose = table.record().rules, random.Random(table.game_type)
    earlier: list[Any] = []
    for _ in range(REFUSALS):
        state = table.record().table.game
        (seat, *_) = rules.to_move(state)
        legal = list(rules.legal_moves(state, seat))
        command = pick(tuple(legal), choose)
        for other in range(len(table.tokens)):
            if other not in rules.to_move(state):
                table.refuses(partial(table.play, other, command))
        # Commands listed before, sent by the mover (it becomes theirs).
        stale = [replace(old, seat=seat) for old in earlier]
        for old in [command for command in stale if command not in legal][:STALE]:
            table.refuses(partial(table.play, seat, old))
        assert isinstance(table.play(seat, command), Applied)
        others = [s for s in range(len(table.tokens)) if s != seat]
        table.refuses(partial(table.undo, others[0]))
        earlier.extend(legal)


def test_undo_verdicts_hold_through_the_application(table: Table) -> None:
    rules, choose = table.record().rules, random.Random(table.game_type)
    checked: Counter[str] = Counter()
    for _ in range(MAX_MOVES):
        before = table.record()
        if before.table.status is not TableStatus.IN_PROGRESS:
            break
        seat = choose.choice(rules.to_move(before.table.game))
        command = pick(tuple(rules.legal_moves(before.table.game, seat)), choose)
        applied = table.play(seat, command)
        assert isinstance(applied, Applied), applied
        events = game_events(table, applied)
        assert rules.fold(before.table.game, events) == applied.record.table.game
        verdict = (
            "alone"
            if rules.self_undoable(events)
            else "shown"
            if rules.reveals_to_others(events)
            else "consent"
        )
        checked[verdict] += 1
        if checked[verdict] > CHECKS_PER_VERDICT:
            continue
        if verdict == "alone":
            undone = table.undo(seat)
        elif verdict == "shown":
            table.refuses(partial(table.undo, seat))
            refused = table.refuses(partial(table.propose, seat))
            if table.record().table.status is TableStatus.IN_PROGRESS:
                assert refused.reason == "TAKEBACK_CROSSES_REVEAL", refused
            continue
        else:
            table.refuses(partial(table.undo, seat))
            undone = taken_back_by_consent(table, seat)
        assert isinstance(undone, Applied), undone
        assert undone.record.table.game == before.table.game
        assert isinstance(table.play(seat, command), Applied)
    assert checked["shown"] >= 1


def taken_back_by_consent(table: Table, seat: int) -> Applied | Rejected:
    """Proposes taking back ``seat``'s last move; every other seat accepts."""
    proposed = table.propose(seat)
    assert isinstance(proposed, Applied), proposed
    proposal = proposed.record.table.undo.proposal
    assert proposal is not None
    answer: Applied | Rejected = proposed
    for other in range(len(table.tokens)):
        if other != seat:
            answer = table.accept(other, proposal.proposal_id)
    return answer
