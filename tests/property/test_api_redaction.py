"""Over random games, what the API shows each viewer hides what it must.

For every revision of every game and every viewer (each seat, a spectator), the
``Game`` and ``GameEvent`` messages built for that viewer name no tile of another
seat's rack, no bag order, and never the seed before the game has ended.
"""

from __future__ import annotations

import random
from collections import Counter
from uuid import UUID

import pytest
from tabletop.v1 import event_pb2, game_pb2

from domain.common.decision import Rejected
from domain.common.seats import Seat, Spectator, Viewer
from domain.common.table import TableStatus
from domain.games.qwirkle import QwirkleConfig, Tile, TilesDealt, TilesExchanged
from domain.games.qwirkle import State as QwirkleState
from services.api.convert.game import event_to_proto, game_to_proto, player_name
from services.api.convert.registry import converter_for
from services.games import Applied, GamesApp
from services.records import GameRecord, RecordedEvent, advance
from tests.playing import always

GAMES_PER_COUNT = 3


def _random_game(players: int, seed: int) -> tuple[UUID, list[RecordedEvent]]:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    created = app.create_game("qwirkle", QwirkleConfig(), players, "P0")
    assert not isinstance(created, Rejected)
    game_id = created.record.game_id
    tokens = [created.token]
    for seat in range(1, players):
        joined = app.join_game(game_id, f"P{seat}")
        assert not isinstance(joined, Rejected)
        tokens.append(joined.token)
    started = app.start_game(game_id, tokens[0])
    assert isinstance(started, Applied)
    record, chooser = started.record, random.Random(seed)
    while record.table.status is TableStatus.IN_PROGRESS:
        (seat,) = record.rules.to_move(record.table.game)
        move = chooser.choice(list(record.rules.legal_moves(record.table.game, seat)))
        result = app.submit_move(game_id, tokens[seat], always(move))
        assert isinstance(result, Applied)
        record = result.record
    return game_id, app.recorded_events(game_id)


def _tiles(messages: object) -> Counter[tuple[str, str]]:
    return Counter(
        (tile.color.value, tile.shape.value)
        for tile in (
            converter_for("qwirkle").mapper.read(t, Tile, "tile")
            for t in messages  # type: ignore[attr-defined]
        )
    )


def _rack(state: QwirkleState, seat: int) -> Counter[tuple[str, str]]:
    return Counter((t.color.value, t.shape.value) for t in state.racks[seat])


def _check_game(record: GameRecord, game: game_pb2.Game, viewer: Viewer) -> None:
    view = game.qwirkle_view
    if isinstance(viewer, Seat):
        own = _rack(record.table.game, viewer.index)
        assert _tiles(view.private_state.rack) == own
    else:
        assert not view.HasField("private_state")
    assert not view.public_state.revealed_racks
    assert game.seed == ""


def _check_event(game_id: UUID, message: event_pb2.GameEvent, viewer: Viewer) -> None:
    me = player_name(game_id, viewer.index) if isinstance(viewer, Seat) else None
    event = message.qwirkle
    kind = event.WhichOneof("event")
    if kind == "tiles_dealt":
        for seat, rack in enumerate(event.tiles_dealt.racks):
            own = isinstance(viewer, Seat) and seat == viewer.index
            assert len(rack.tiles) == (6 if own else 0)
    elif kind == "tiles_drawn" and event.tiles_drawn.player != me:
        assert not event.tiles_drawn.tiles
    elif kind == "tiles_exchanged" and event.tiles_exchanged.player != me:
        assert not event.tiles_exchanged.returned
        assert not event.tiles_exchanged.drawn
    assert message.game_finished.seed == ""


@pytest.mark.parametrize("players", range(2, 7))
def test_no_viewer_sees_another_seats_tiles_the_bag_or_the_seed(players: int) -> None:
    for game in range(GAMES_PER_COUNT):
        game_id, recorded = _random_game(players, seed=players * 100 + game)
        viewers: list[Viewer] = [Spectator(), *(Seat(i) for i in range(players))]
        record: GameRecord | None = None
        for item in recorded:
            record = advance(record, game_id, item)
            game_over = record.table.game is None or record.table.game.finished
            if record.table.status is not TableStatus.IN_PROGRESS or game_over:
                continue
            seed_hex = record.table.seed
            for viewer in viewers:
                game_message = game_to_proto(record, viewer, full=True)
                event_message = event_to_proto(record, item, viewer)
                _check_game(record, game_message, viewer)
                _check_event(game_id, event_message, viewer)
                for message in (game_message, event_message):
                    wire = message.SerializeToString()
                    assert bytes.fromhex(seed_hex) not in wire
                    assert seed_hex.encode() not in wire
                visible = (
                    record.rules.visible(item.event, viewer)
                    if isinstance(item.event, TilesDealt | TilesExchanged)
                    else None
                )
                if visible is not None:
                    assert visible.bag == ()


def test_a_finished_game_shows_every_rack_and_the_seed() -> None:
    game_id, recorded = _random_game(3, seed=11)
    record: GameRecord | None = None
    for item in recorded:
        record = advance(record, game_id, item)
    assert record is not None
    game = game_to_proto(record, Spectator(), full=True)
    assert game.state == game_pb2.GAME_STATE_FINISHED
    assert game.seed == record.table.seed
    assert len(game.qwirkle_view.public_state.revealed_racks) == 3
