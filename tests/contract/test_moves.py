"""Every game's moves: what is listed is accepted, what is not is refused.

OpenSpiel's random-simulation test for our game contract (DESIGN §2): over
random complete games, ``legal_moves`` lists moves only for the seats the game
waits for, lists them the same way twice, and ``decide`` accepts each with at
least one event; commands issued for another seat, listed earlier but not now,
or sent after the end are refused with a reason and a rule.
"""

from __future__ import annotations

import dataclasses
import random

from domain.common.decision import Accepted
from tests.contract.checks import check_refusal
from tests.contract.playouts import Playout, playout_id

EVERY_LEGAL_EVERY = 16  # moves between two moves whose whole legal list is decided
SAMPLED_LEGAL = 3  # legal moves decided at the other moves, besides the one played
EARLIER_TRIED = 3  # commands listed earlier tried again at each move
REMEMBERED = 50  # how many earlier commands are kept to be tried again


def test_the_seats_waited_for_and_only_they_have_moves_listed_alike_twice(
    playout: Playout,
) -> None:
    rules = playout.game.rules
    for index, move in enumerate(playout.moves):
        waiting = rules.to_move(move.before)
        assert move.seat in waiting
        assert not rules.outcome(move.before).finished
        for seat in range(playout.players):
            if seat not in waiting:
                assert not list(rules.legal_moves(move.before, seat)), seat
            elif index % EVERY_LEGAL_EVERY == 0 or seat != move.seat:
                listed = list(rules.legal_moves(move.before, seat))
                assert listed, seat
                assert listed == list(rules.legal_moves(move.before, seat))
        if index % EVERY_LEGAL_EVERY == 0:
            assert list(move.legal) == list(rules.legal_moves(move.before, move.seat))
    assert not rules.to_move(playout.final)


def test_every_listed_move_is_accepted_with_events(playout: Playout) -> None:
    rules, choose = playout.game.rules, random.Random(playout_id(playout.key))
    for index, move in enumerate(playout.moves):
        assert move.events
        tried = list(move.legal)
        if index % EVERY_LEGAL_EVERY:
            tried = choose.sample(tried, min(SAMPLED_LEGAL, len(tried)))
        for command in tried:
            decision = rules.decide(move.before, command, playout.rng)
            assert isinstance(decision, Accepted), (command, decision)
            assert decision.events, command


def test_commands_of_seats_not_waited_for_are_refused(playout: Playout) -> None:
    rules = playout.game.rules
    for move in playout.moves:
        waiting = rules.to_move(move.before)
        for seat in range(playout.players):
            if seat not in waiting:
                command = dataclasses.replace(move.command, seat=seat)
                check_refusal(rules.decide(move.before, command, playout.rng))


def test_commands_listed_earlier_but_not_now_are_refused(playout: Playout) -> None:
    rules, choose = playout.game.rules, random.Random(playout_id(playout.key))
    earlier: list[object] = []
    for move in playout.moves:
        for command in choose.sample(earlier, min(EARLIER_TRIED, len(earlier))):
            if command not in move.legal and rules.actor(command) == move.seat:
                check_refusal(rules.decide(move.before, command, playout.rng))
        earlier = [*earlier, *choose.sample(move.legal, 1)][-REMEMBERED:]
    for command in earlier:  # the game is over: nothing is accepted any more
        check_refusal(rules.decide(playout.final, command, playout.rng))
