"""Every game's events rebuild its state: replay is the fold (DESIGN §2, §3).

Over random complete games: folding the recorded events from
``initial_state``, after the game is over, gives the state of every revision
again, also from the events' stored form; ``setup``, ``decide`` and ``evolve``
give equal results for equal inputs and leave their inputs as they were.
"""

from __future__ import annotations

import json

from services.codec import Codec
from tests.contract.playouts import Playout

PURITY_EVERY = 7  # moves between two whose decision and events are made twice


def test_folding_the_events_again_gives_every_revision(playout: Playout) -> None:
    rules = playout.game.rules
    state = playout.initial
    for revision in playout.revisions():
        state = rules.evolve(state, revision.event)
        assert state == playout.states[revision.at]
    assert state == playout.final == rules.fold(playout.initial, playout.events())


def test_the_stored_form_of_every_event_and_command_folds_to_the_same_game(
    playout: Playout,
) -> None:
    rules = playout.game.rules
    codec = Codec({**rules.events, **rules.commands, **rules.values})
    stored = json.loads(json.dumps([codec.encode(e) for e in playout.events()]))
    events = tuple(codec.decode(item) for item in stored)
    assert events == playout.events()
    assert rules.fold(playout.initial, events) == playout.final
    for move in playout.moves:
        command = json.loads(json.dumps(codec.encode(move.command)))
        assert codec.decode(command) == move.command
    options = playout.game.table_options(playout.players, playout.number)
    assert codec.decode(json.loads(json.dumps(codec.encode(options)))) == options


def test_setup_decide_and_evolve_are_pure(playout: Playout) -> None:
    rules = playout.game.rules
    initial = repr(playout.initial)
    assert rules.setup(playout.initial, playout.rng) == playout.opening
    assert repr(playout.initial) == initial
    for move in playout.moves[::PURITY_EVERY]:
        before = repr(move.before)
        decision = rules.decide(move.before, move.command, playout.rng)
        assert getattr(decision, "events", None) == move.events
        assert rules.fold(move.before, move.events) == move.after
        assert repr(move.before) == before
