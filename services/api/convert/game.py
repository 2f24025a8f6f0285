"""The shared envelopes: ``Game``, ``Player`` and ``GameEvent`` messages.

Everything a caller sees passes through the table's and the game's view and
visibility functions for that caller first (DESIGN §5).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from tabletop.v1 import event_pb2, game_pb2

from domain.common import table as tables
from domain.common.seats import Operator, Seat, Viewer
from domain.common.table_state import TABLE_EVENTS
from domain.common.undo import Proposal, UndoProposed
from services.acting import only_player_to_act, players_to_act
from services.api.convert.mapping import Mapper, Names, Shape, members
from services.api.convert.registry import converter_for
from services.api.convert.turn_order import order_of_play
from services.player_names import NAMES
from services.records import GameRecord, RecordedEvent

# The table's and the undo events: their ``GameEvent`` members and departures.
_MEMBERS = members(tuple(TABLE_EVENTS.values()))
_TABLE = Mapper(
    shapes={
        tables.GameCreated: Shape(
            renames={"commitment": "seed_commitment", "expires_at": "expire_time"},
            computed={
                "game_type": lambda e, _: converter_for(e.game_type).proto_type,
                "visibility": lambda e, _: visibility(e.private),
            },
        ),
        **dict.fromkeys(
            (tables.PlayerJoined, tables.PlayerLeft),
            Shape(computed={"display_name": lambda e, _: _seat_name(e, e.seat)}),
        ),
        **dict.fromkeys(
            (UndoProposed, Proposal),
            Shape(renames={"expires_at": "expire_time"}),
        ),
    }
)


def visibility(private: bool) -> game_pb2.Visibility:  # noqa: FBT001
    """Returns how a table's privacy reads in the API."""
    return game_pb2.VISIBILITY_PRIVATE if private else game_pb2.VISIBILITY_PUBLIC


def game_name(game_id: UUID) -> str:
    """Returns the resource name of a game."""
    return f"games/{game_id}"


def player_name(game_id: UUID, seat: int) -> str:
    """Returns the resource name of a seat's player."""
    return f"games/{game_id}/players/{seat}"


def game_to_proto(
    record: GameRecord, viewer: Viewer, *, full: bool, reveal_all: bool = False
) -> game_pb2.Game:
    """Returns the game as ``viewer`` may see it; ``full`` adds the game's view.

    ``reveal_all`` shows everything, the seed included, whatever the state of
    ``record``: for a replay of a game that has finished since (DESIGN §5).
    """
    table, game_id = record.table, record.game_id
    converter = converter_for(table.game_type)
    outcome = tables.outcome(table, record.rules)
    scores = outcome.scores if outcome else ()
    waiting = table.status is tables.TableStatus.WAITING_FOR_PLAYERS
    final = table.final
    revealed = final.seed if final else table.seed if reveal_all else None
    game = game_pb2.Game()
    fields = {
        "name": game_name(game_id),
        "game_type": converter.proto_type,
        "state": table.status,
        "revision": record.revision,
        "move_count": record.move_count,
        "etag": f'W/"{record.revision}"',
        "create_time": record.created_at,
        "update_time": record.updated_at,
        "max_players": table.max_players,
        "seed_commitment": table.commitment,
        "visibility": visibility(table.private),
        "record_digest": record.digest,
        "host": table.host,
        "caller": viewer.index if isinstance(viewer, Seat) else None,
        "players": [
            {
                "name": seat,
                "display_name": _seat_name(holder, seat),
                "score": scores[seat] if seat < len(scores) else 0,
                "seat": seat,
                "resigned": seat in table.resigned,
            }
            for seat, holder in enumerate(table.seats)
        ],
        "expire_time": table.expires_at if waiting else None,
        "closed_reason": table.closed,
        "current_player": only_player_to_act(record),
        "players_to_act": players_to_act(record),
        "abandoned": final and final.abandoned,
        "seed": revealed,  # with reveal_all, a snapshot from before the end
        "winners": final and final.winners,
        "turn_time_limit": {"seconds": table.turn_seconds}
        if table.turn_seconds
        else None,
        "turn_deadline": table.turn_deadline,  # None once finished
        "pending_undo": table.undo.proposal,
        converter.config_field: converter.config_to_proto(table.config),
    }
    if full and table.game is not None:
        seen_as = _seen_as(record, viewer, reveal_all=reveal_all)
        view = record.rules.view(table.game, seen_as)
        fields[converter.view_field] = converter.view_to_proto(view, _names(game_id))
    _TABLE.assign(game, fields, _names(game_id))
    return game


def event_to_proto(
    record: GameRecord,
    recorded: RecordedEvent,
    viewer: Viewer,
    *,
    reveal_all: bool = False,
) -> event_pb2.GameEvent:
    """Returns one recorded event as ``viewer`` may see it.

    ``reveal_all`` shows the event unredacted, as for the operator: for a replay
    of a game that has finished since (DESIGN §5).
    """
    names = _names(record.game_id)
    seen_as = _seen_as(record, viewer, reveal_all=reveal_all)
    event = tables.visible(recorded.event, seen_as, record.rules)
    fields: dict[str, Any] = {
        "revision": recorded.revision,
        "move_number": recorded.move_number,
        "actor": recorded.actor,
        "create_time": recorded.timestamp,
        "record_digest": recorded.digest,
    }
    if isinstance(event, tables.GameStarted):  # its order of play needs the game
        order = order_of_play(record, event.players)
        fields[_MEMBERS[type(event)]] = {"turn_order": order}
    elif type(event) in _MEMBERS:  # the table's own events and the undo events
        fields[_MEMBERS[type(event)]] = event
    elif event is not None:
        converter = converter_for(record.table.game_type)
        fields[converter.event_field] = converter.event_to_proto(event, names)
    message = event_pb2.GameEvent()
    _TABLE.assign(message, fields, names)
    return message


def _seat_name(
    holder: tables.SeatHolder | tables.PlayerJoined | tables.PlayerLeft, seat: int
) -> str:
    """Returns the name a seat shows: a guest's own, or its account's."""
    return NAMES.seat_name(holder.display_name, holder.player_id, seat)


def _seen_as(record: GameRecord, viewer: Viewer, *, reveal_all: bool) -> Viewer:
    """Returns whom to redact for: the operator when everything is revealed."""
    return Operator() if reveal_all else tables.effective_viewer(record.table, viewer)


def _names(game_id: UUID) -> Names:
    return lambda seat: player_name(game_id, seat)
