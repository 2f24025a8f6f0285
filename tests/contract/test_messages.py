"""Every game's messages carry its moves whole and hide what its views hide.

Only games with proto messages (``MESSAGE_GAMES``: a converter in
``services/api/convert/registry.py``) run here. Over random complete games:
every listed move survives the trip through its message; at the first
revisions of each event class the spectator's view message holds no piece a
seat's does not; an event's
message shows a viewer no piece hidden from it that its view messages just
before, just after and at the end of the move do not show; no message holds
the game's seed.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from google.protobuf.message import Message

from domain.common.seats import Operator, Spectator, Viewer
from services.api.convert.registry import converter_for
from tests.contract.games import MESSAGE_GAMES
from tests.contract.playouts import PLAYOUTS, Playout, played, playout_id
from tests.contract.seen import message_pieces, viewers

NAMES = "games/g/players/{}".format
MESSAGE_PLAYOUTS = [
    key for key in PLAYOUTS if key[0] in {g.name for g in MESSAGE_GAMES}
]
EVERY_LEGAL_EVERY = 24  # moves between two whose whole legal list is converted
PER_EVENT_TYPE = 8  # revisions checked on the wire per event class and game


@pytest.mark.parametrize("key", MESSAGE_PLAYOUTS, ids=playout_id)
def test_every_listed_move_survives_the_trip_through_its_message(
    key: tuple[str, int, int],
) -> None:
    playout = played(*key)
    convert = converter_for(playout.game.name)
    choose = random.Random(playout_id(key))
    for index, move in enumerate(playout.moves):
        tried = [move.command, choose.choice(move.legal)]
        if index % EVERY_LEGAL_EVERY == 0:
            tried = list(move.legal)
        for command in tried:
            message = convert.move_to_proto(command)
            assert convert.move_from_proto(message, move.seat, "move") == command


class Wire:
    """The messages of one game's views, counted by piece, made once each."""

    def __init__(self, playout: Playout) -> None:
        self.playout = playout
        self.convert = converter_for(playout.game.name)
        self.seed = playout.rng.seed
        self._views: dict[tuple[int, Viewer], Counter[object]] = {}

    def pieces(self, message: Message) -> Counter[object]:
        """Returns a message's pieces, checking it holds no trace of the seed."""
        wire = message.SerializeToString()
        assert self.seed not in wire
        assert self.seed.hex().encode() not in wire
        return Counter(message_pieces(message, self.playout.game.reference_fields))

    def view(self, at: int, viewer: Viewer) -> Counter[object]:
        """Returns the pieces of the view message of state ``at`` for ``viewer``."""
        known = self._views.get((at, viewer))
        if known is None:
            state = self.playout.states[at]
            domain = self.playout.game.rules.view(state, viewer)
            known = self.pieces(self.convert.view_to_proto(domain, NAMES))
            self._views[at, viewer] = known
        return known

    def event(self, event: Any, viewer: Viewer) -> Counter[object]:
        """Returns the pieces of the message of ``event`` as ``viewer`` sees it."""
        shown = self.playout.game.rules.visible(event, viewer)
        return (
            Counter()
            if shown is None
            else self.pieces(self.convert.event_to_proto(shown, NAMES))
        )


@pytest.mark.parametrize(
    "key", [key for key in MESSAGE_PLAYOUTS if key[2] == 0], ids=playout_id
)
def test_messages_show_a_viewer_no_more_than_its_views(
    key: tuple[str, int, int],
) -> None:
    playout = played(*key)
    wire, rules = Wire(playout), playout.game.rules
    checked: Counter[type] = Counter()
    for revision in playout.revisions():
        if rules.outcome(playout.states[revision.end]).finished:
            break  # then every viewer sees everything
        checked[type(revision.event)] += 1
        if checked[type(revision.event)] > PER_EVENT_TYPE:
            continue
        moments = (revision.at - 1, revision.at, revision.end)
        for viewer in viewers(playout.players):
            assert wire.view(revision.at, Spectator()) <= wire.view(revision.at, viewer)
            seen: Counter[object] = Counter()
            hidden: set[object] = set()
            for at in moments:
                seen += wire.view(at, viewer)
                hidden |= set(wire.view(at, Operator()) - wire.view(at, viewer))
            shown = wire.event(revision.event, viewer)
            beyond = {piece for piece in hidden if shown[piece] > seen[piece]}
            assert not beyond, (revision.event, viewer, beyond)
