"""Qwirkle values <-> ``tabletop.v1`` Qwirkle messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabletop.v1 import common_pb2, game_pb2, qwirkle_pb2

from domain.games.qwirkle import (
    Color,
    EndBonusScored,
    EndReason,
    ExchangeTiles,
    GameEnded,
    Pass,
    Placement,
    PlaceTiles,
    QwirkleConfig,
    QwirkleView,
    Shape,
    StartingPlayerChosen,
    Tile,
    TilesDealt,
    TilesDrawn,
    TilesExchanged,
    TilesPlaced,
    TurnPassed,
    TurnScored,
)
from domain.games.qwirkle.model import Command
from services.api.convert.base import GameConverter, Names, enum_map
from services.api.errors import FieldViolation

_COLORS: Mapping[Color, qwirkle_pb2.QwirkleColor] = enum_map(
    qwirkle_pb2.QwirkleColor, "QWIRKLE_COLOR_", Color
)
_SHAPES: Mapping[Shape, qwirkle_pb2.QwirkleShape] = enum_map(
    qwirkle_pb2.QwirkleShape, "QWIRKLE_SHAPE_", Shape
)
_COLOR_OF = {number: color for color, number in _COLORS.items()}
_SHAPE_OF = {number: shape for shape, number in _SHAPES.items()}
_REASONS: Mapping[EndReason, qwirkle_pb2.QwirkleEndReason] = {
    EndReason.HAND_EMPTIED: qwirkle_pb2.QWIRKLE_END_REASON_HAND_EMPTIED,
    EndReason.DEADLOCK: qwirkle_pb2.QWIRKLE_END_REASON_DEADLOCK,
}


def tile_to_proto(tile: Tile) -> qwirkle_pb2.QwirkleTile:
    """Returns a tile message."""
    return qwirkle_pb2.QwirkleTile(
        color=_COLORS[tile.color],
        shape=_SHAPES[tile.shape],
    )


def tile_from_proto(
    message: qwirkle_pb2.QwirkleTile, path: str
) -> Tile | list[FieldViolation]:
    """Returns the tile a message names, or what is wrong with it."""
    color = _COLOR_OF.get(message.color)
    shape = _SHAPE_OF.get(message.shape)
    problems = []
    if color is None:
        problems.append(FieldViolation(f"{path}.color", "must be a Qwirkle colour"))
    if shape is None:
        problems.append(FieldViolation(f"{path}.shape", "must be a Qwirkle shape"))
    if color is None or shape is None:
        return problems
    return Tile(color, shape)


def placement_to_proto(placement: Placement) -> qwirkle_pb2.QwirklePlacement:
    """Returns a placement message."""
    return qwirkle_pb2.QwirklePlacement(
        tile=tile_to_proto(placement.tile),
        at=common_pb2.Coordinate(x=placement.x, y=placement.y),
    )


def move_from_proto(
    move: qwirkle_pb2.QwirkleMove, seat: int, path: str
) -> Command | list[FieldViolation]:
    """Returns the command a Qwirkle move asks for, or what is wrong with it."""
    action = move.WhichOneof("action")
    if action == "place_tiles":
        return _place_from_proto(move.place_tiles, seat, f"{path}.place_tiles")
    if action == "exchange_tiles":
        tiles = _tiles_from_proto(
            move.exchange_tiles.tiles, f"{path}.exchange_tiles.tiles"
        )
        return tiles if isinstance(tiles, list) else ExchangeTiles(seat, tiles)
    if action == "pass_turn":
        return Pass(seat)
    return [
        FieldViolation(
            f"{path}.action", "set one of place_tiles, exchange_tiles, pass_turn"
        )
    ]


def _place_from_proto(
    message: qwirkle_pb2.QwirklePlaceTiles, seat: int, path: str
) -> PlaceTiles | list[FieldViolation]:
    placements = []
    for index, item in enumerate(message.placements):
        where = f"{path}.placements[{index}]"
        if not item.HasField("tile"):
            return [FieldViolation(f"{where}.tile", "is required")]
        if not item.HasField("at"):
            return [FieldViolation(f"{where}.at", "is required")]
        tile = tile_from_proto(item.tile, f"{where}.tile")
        if isinstance(tile, list):
            return tile
        placements.append(Placement(tile, item.at.x, item.at.y))
    return PlaceTiles(seat, tuple(placements))


def _tiles_from_proto(
    messages: Sequence[qwirkle_pb2.QwirkleTile], path: str
) -> tuple[Tile, ...] | list[FieldViolation]:
    tiles = []
    for index, message in enumerate(messages):
        tile = tile_from_proto(message, f"{path}[{index}]")
        if isinstance(tile, list):
            return tile
        tiles.append(tile)
    return tuple(tiles)


def move_to_proto(command: Command) -> qwirkle_pb2.QwirkleMove:
    """Returns the move message of a command (for ListLegalMoves)."""
    match command:
        case PlaceTiles():
            return qwirkle_pb2.QwirkleMove(
                place_tiles=qwirkle_pb2.QwirklePlaceTiles(
                    placements=[placement_to_proto(p) for p in command.placements]
                )
            )
        case ExchangeTiles():
            return qwirkle_pb2.QwirkleMove(
                exchange_tiles=qwirkle_pb2.QwirkleExchangeTiles(
                    tiles=[tile_to_proto(t) for t in command.tiles]
                )
            )
        case Pass():
            return qwirkle_pb2.QwirkleMove(pass_turn=qwirkle_pb2.QwirklePass())


def _racks(racks: Sequence[Sequence[Tile]]) -> list[qwirkle_pb2.QwirkleRack]:
    return [
        qwirkle_pb2.QwirkleRack(tiles=[tile_to_proto(t) for t in rack])
        for rack in racks
    ]


def view_to_proto(view: QwirkleView, names: Names) -> qwirkle_pb2.QwirkleView:
    """Returns the caller's view message."""
    del names  # seats are listed by index in the view
    public = view.public
    message = qwirkle_pb2.QwirkleView(
        public_state=qwirkle_pb2.QwirklePublicState(
            board=[placement_to_proto(p) for p in public.board],
            bag_size=public.bag_size,
            rack_sizes=list(public.rack_sizes),
            starting_numbers=list(public.starting_numbers),
            revealed_racks=_racks(view.racks or ()),
        )
    )
    if view.private is not None:
        message.private_state.CopyFrom(
            qwirkle_pb2.QwirklePrivateState(
                rack=[tile_to_proto(t) for t in view.private.rack]
            )
        )
    return message


def event_to_proto(event: Any, names: Names) -> qwirkle_pb2.QwirkleEvent:
    """Returns a (redacted) Qwirkle event message."""
    match event:
        case TilesDealt():
            return qwirkle_pb2.QwirkleEvent(
                tiles_dealt=qwirkle_pb2.QwirkleTilesDealt(
                    rack_sizes=list(event.rack_sizes),
                    bag_size=event.bag_size,
                    racks=_racks(event.racks),
                )
            )
        case StartingPlayerChosen():
            return qwirkle_pb2.QwirkleEvent(
                starting_player_chosen=qwirkle_pb2.QwirkleStartingPlayerChosen(
                    starting_numbers=list(event.starting_numbers),
                    player=names(event.seat),
                )
            )
        case TilesPlaced():
            return qwirkle_pb2.QwirkleEvent(
                tiles_placed=qwirkle_pb2.QwirkleTilesPlaced(
                    player=names(event.seat),
                    placements=[placement_to_proto(p) for p in event.placements],
                )
            )
        case TurnScored():
            return qwirkle_pb2.QwirkleEvent(
                turn_scored=qwirkle_pb2.QwirkleTurnScored(
                    player=names(event.seat),
                    points=event.points,
                    lines=list(event.lines),
                    qwirkles=event.qwirkles,
                )
            )
        case TilesDrawn():
            return qwirkle_pb2.QwirkleEvent(
                tiles_drawn=qwirkle_pb2.QwirkleTilesDrawn(
                    player=names(event.seat),
                    count=event.count,
                    tiles=[tile_to_proto(t) for t in event.tiles],
                )
            )
        case TilesExchanged():
            return qwirkle_pb2.QwirkleEvent(
                tiles_exchanged=qwirkle_pb2.QwirkleTilesExchanged(
                    player=names(event.seat),
                    count=event.count,
                    returned=[tile_to_proto(t) for t in event.returned],
                    drawn=[tile_to_proto(t) for t in event.drawn],
                )
            )
        case TurnPassed():
            return qwirkle_pb2.QwirkleEvent(
                turn_passed=qwirkle_pb2.QwirkleTurnPassed(player=names(event.seat))
            )
        case EndBonusScored():
            return qwirkle_pb2.QwirkleEvent(
                end_bonus_scored=qwirkle_pb2.QwirkleEndBonusScored(
                    player=names(event.seat), points=event.points
                )
            )
        case GameEnded():
            return qwirkle_pb2.QwirkleEvent(
                game_ended=qwirkle_pb2.QwirkleGameEnded(
                    reason=_REASONS[event.reason],
                    racks=_racks(event.racks),
                )
            )
    msg = f"not a Qwirkle event: {event!r}"
    raise TypeError(msg)


def config_from_proto(message: qwirkle_pb2.QwirkleConfig) -> QwirkleConfig:
    """Returns the table options (Qwirkle has none today)."""
    del message
    return QwirkleConfig()


def config_to_proto(config: QwirkleConfig) -> qwirkle_pb2.QwirkleConfig:
    """Returns the table options message."""
    del config
    return qwirkle_pb2.QwirkleConfig()


CONVERTER = GameConverter(
    game_type="qwirkle",
    proto_type=game_pb2.GAME_TYPE_QWIRKLE,
    config_field="qwirkle_config",
    move_field="qwirkle",
    view_field="qwirkle_view",
    event_field="qwirkle",
    config_from_proto=config_from_proto,
    config_to_proto=config_to_proto,
    move_from_proto=move_from_proto,
    move_to_proto=move_to_proto,
    view_to_proto=view_to_proto,
    event_to_proto=event_to_proto,
    display_name="Qwirkle",
    options=(),
    self_undo=(
        "A pass, or a placement that drew no tile (the bag was empty) and did "
        "not end the game; every other move needs the others' consent."
    ),
)
