"""Every game's messages carry its moves whole and hide what its views hide.

Only games that declare proto messages in their entry (``MESSAGE_GAMES``)
run here. Over random complete games:
every listed move and the table options survive the trip through their
messages. At the first revisions of each event class: the spectator's view
message holds no piece a seat's does not, and a seat's holds every piece its
view shows beyond the spectator's; an event's message shows a viewer no piece
hidden from it that its view messages just before, just after and at the end
of the move do not show; no message holds the game's seed. Through the
application, the ``Game`` and ``GameEvent`` messages show the seed only once
the game is over, and then show everything.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from typing import Any

import pytest
from google.protobuf.message import Message

from domain.common.seats import Operator, Spectator, Viewer
from services.api.convert.game import event_to_proto, game_to_proto, player_name
from services.records import GameRecord, advance
from tests.contract.games import MESSAGE_GAMES, SERVED_GAMES, ContractGame
from tests.contract.playouts import PLAYOUTS, Playout, played, playout_id
from tests.contract.seen import message_pieces, viewers
from tests.contract.serving import Table

NAMES = "games/g/players/{}".format
MESSAGE_PLAYOUTS = [
    key for key in PLAYOUTS if key[0] in {g.name for g in MESSAGE_GAMES}
]
EVERY_LEGAL_EVERY = 24  # moves between two whose whole legal list is converted
PER_EVENT_TYPE = 8  # revisions checked on the wire per event class and game


@pytest.mark.parametrize("key", MESSAGE_PLAYOUTS, ids=playout_id)
def test_every_listed_move_and_the_options_survive_their_messages(
    key: tuple[str, int, int],
) -> None:
    playout = played(*key)
    convert = playout.game.messages()
    options = playout.game.table_options(playout.players, playout.number)
    assert convert.config_from_proto(convert.config_to_proto(options)) == options
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
        self.convert = playout.game.messages()
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
        spectator = wire.view(revision.at, Spectator())
        for viewer in viewers(playout.players):
            assert spectator <= wire.view(revision.at, viewer)
            # What the viewer sees beyond the spectator travels whole.
            own = playout.sight(revision.at, viewer) - playout.sight(
                revision.at, Spectator()
            )
            mine = wire.view(revision.at, viewer) - spectator
            assert mine.total() == own.total(), (revision.event, viewer, mine, own)
            seen: Counter[object] = Counter()
            hidden: set[object] = set()
            for at in moments:
                seen += wire.view(at, viewer)
                hidden |= set(wire.view(at, Operator()) - wire.view(at, viewer))
            shown = wire.event(revision.event, viewer)
            beyond = {piece for piece in hidden if shown[piece] > seen[piece]}
            assert not beyond, (revision.event, viewer, beyond)


@pytest.mark.parametrize("game", SERVED_GAMES, ids=lambda game: game.name)
def test_game_messages_hold_the_seed_only_once_the_game_is_over(
    game: ContractGame,
) -> None:
    players, choose = game.players[0], random.Random(game.name)
    table = Table(game.name, game.table_options(players, 0), players)
    table.finish(choose)
    record: GameRecord | None = None
    checked: Counter[type] = Counter()
    for item in table.app.recorded_events(table.game_id):
        record = advance(record, table.game_id, item)
        checked[type(item.event)] += 1
        if record.table.final is not None or checked[type(item.event)] > PER_EVENT_TYPE:
            continue
        seed = bytes.fromhex(record.table.seed)
        for viewer in viewers(players):
            for message in (
                game_to_proto(record, viewer, full=True),
                event_to_proto(record, item, viewer),
            ):
                wire = message.SerializeToString()
                assert seed not in wire
                assert seed.hex().encode() not in wire
    assert record is not None
    assert record.table.final is not None
    shown = game_to_proto(record, Spectator(), full=True)
    assert shown.seed == record.table.seed
    everything = game.rules.view(record.table.game, Operator())
    names = functools.partial(player_name, record.game_id)
    convert = game.messages()
    assert getattr(shown, convert.view_field) == convert.view_to_proto(
        everything, names
    )
