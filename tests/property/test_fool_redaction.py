"""Over random Fool! games, what each viewer is shown hides what it must (§3.4).

For every revision of every game and every viewer (each seat, a spectator),
neither the domain view and event nor the ``Game`` and ``GameEvent`` messages
built for that viewer name a card of another seat's hand, except while the
round's scoring shows the hands left; and none holds the seed before the end.
The public list of the cards in play names every card by design and is left
out of the search.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Iterator
from uuid import UUID

import pytest
from google.protobuf.message import Message
from tabletop.v1 import fool_pb2, game_pb2

from domain.common import table as tables
from domain.common.decision import Rejected
from domain.common.seats import Seat, Spectator, Viewer
from domain.common.table import TableStatus
from domain.games.fool import RULES, Card, FoolConfig, Phase, State
from services.api.convert.game import event_to_proto, game_to_proto
from services.api.convert.registry import converter_for
from services.games import Applied, GamesApp
from services.records import GameRecord, RecordedEvent, advance
from tests.playing import always

GAMES = [(4, 1), (5, 2), (6, 3), (7, 4), (8, 5)]  # (players, seed)
PUBLIC_LISTS = {"cards_in_play"}  # every card in play, public by design (§2.1)


@functools.cache  # the finished-game test looks at one of the games again
def _random_game(players: int, seed: int) -> tuple[UUID, list[RecordedEvent]]:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"}, allow_client_seed=True)
    chooser = random.Random(seed)
    config = FoolConfig(first_dealer=seed % players)
    created = app.create_game("fool", config, players, "P0", chooser.randbytes(32))
    assert not isinstance(created, Rejected)
    game_id = created.record.game_id
    tokens = [created.token]
    for seat in range(1, players):
        joined = app.join_game(game_id, f"P{seat}")
        assert not isinstance(joined, Rejected)
        tokens.append(joined.token)
    started = app.start_game(game_id, tokens[0])
    assert isinstance(started, Applied)
    record = started.record
    while record.table.status is TableStatus.IN_PROGRESS:
        (seat,) = record.rules.to_move(record.table.game)
        move = chooser.choice(list(record.rules.legal_moves(record.table.game, seat)))
        result = app.submit_move(game_id, tokens[seat], always(move))
        assert isinstance(result, Applied)
        record = result.record
    return game_id, app.recorded_events(game_id)


def domain_cards(value: object, name: str = "") -> Iterator[Card]:
    """Yields every card a domain view or event holds, outside public lists."""
    if isinstance(value, Card):
        yield value
    elif name in PUBLIC_LISTS:
        return
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from domain_cards(getattr(value, item.name), item.name)
    elif isinstance(value, tuple):
        for item in value:
            yield from domain_cards(item)


def message_cards(message: Message) -> Iterator[Card]:
    """Yields every card a message holds, outside public lists."""
    if isinstance(message, fool_pb2.FoolCard):
        card = converter_for("fool").mapper.read(message, Card, "card")
        assert isinstance(card, Card)
        yield card
        return
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None or descriptor.name in PUBLIC_LISTS:
            continue
        items = value if descriptor.is_repeated else [value]
        for item in items:
            yield from message_cards(item)


def hidden_from(state: State, viewer: Viewer) -> set[Card]:
    """Returns the cards ``viewer`` may not see now: other seats' hands."""
    if state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
        return set()  # §3.4: the cards left are shown for scoring
    own = viewer.index if isinstance(viewer, Seat) else None
    return {c for seat, hand in enumerate(state.hands) if seat != own for c in hand}


def check_revision(record: GameRecord, item: RecordedEvent, viewer: Viewer) -> None:
    """Checks one revision for one viewer, in the domain and on the wire."""
    state: State = record.table.game
    secret = hidden_from(state, viewer)
    seen_view = RULES.view(state, viewer)
    seen_event = tables.visible(item.event, viewer, record.rules)
    game = game_to_proto(record, viewer, full=True)
    event = event_to_proto(record, item, viewer)
    for shown in (domain_cards(seen_view), domain_cards(seen_event)):
        assert not secret & set(shown)
    for message in (game, event):
        assert not secret & set(message_cards(message))
        wire = message.SerializeToString()
        assert bytes.fromhex(record.table.seed) not in wire
        assert record.table.seed.encode() not in wire
    assert game.seed == ""
    private = game.fool_view.private_state
    if isinstance(viewer, Seat):
        assert [
            converter_for("fool").mapper.read(c, Card, "c") for c in private.hand
        ] == list(state.hands[viewer.index])
    else:
        assert not game.fool_view.HasField("private_state")


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_no_viewer_sees_another_seats_cards_or_the_seed(
    players: int, seed: int
) -> None:
    game_id, recorded = _random_game(players, seed)
    viewers: list[Viewer] = [Spectator(), *(Seat(i) for i in range(players))]
    record: GameRecord | None = None
    shown = 0
    for item in recorded:
        record = advance(record, game_id, item)
        game = record.table.game
        if record.table.status is not TableStatus.IN_PROGRESS or game.finished:
            continue
        shown += game.phase is Phase.ROUND_OVER
        for viewer in viewers:
            check_revision(record, item, viewer)
    assert shown >= 1  # some round ended before the last and showed its hands


def test_a_finished_game_shows_every_hand_left_and_the_seed() -> None:
    game_id, recorded = _random_game(*GAMES[0])
    record: GameRecord | None = None
    for item in recorded:
        record = advance(record, game_id, item)
    assert record is not None
    game = game_to_proto(record, Spectator(), full=True)
    assert game.state == game_pb2.GAME_STATE_FINISHED
    assert game.seed == record.table.seed
    hands = game.fool_view.public_state.revealed_hands
    assert [len(hand.cards) for hand in hands] == [
        len(hand) for hand in record.table.game.hands
    ]
    assert any(not hand.cards for hand in hands)  # someone emptied their hand
