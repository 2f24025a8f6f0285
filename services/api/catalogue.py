"""``ListGameTypes``: every game played here, from its rules and its converter."""

from __future__ import annotations

from functools import cache

from tabletop.v1 import game_service_pb2, game_type_pb2

from domain.games.registry import GAMES
from services.api.convert.registry import CONVERTERS


@cache
def game_types() -> game_service_pb2.ListGameTypesResponse:
    """Returns the catalogue, in ``GameType`` order; built once, it never changes."""
    response = game_service_pb2.ListGameTypesResponse()
    for converter in sorted(CONVERTERS.values(), key=lambda c: c.proto_type):
        rules = GAMES[converter.game_type]
        info = game_type_pb2.GameTypeInfo(
            game_type=converter.proto_type,
            display_name=converter.display_name,
            min_players=rules.min_players,
            max_players=rules.max_players,
            config_field=converter.config_field,
            options=[
                game_type_pb2.GameOption(
                    field=option.field,
                    description=option.description,
                    default_value=option.default_value,
                )
                for option in converter.options
            ],
            self_undo=converter.self_undo,
        )
        details = converter.details()
        if details is not None:
            getattr(info, converter.move_field).CopyFrom(details)
        response.game_types.append(info)
    return response
