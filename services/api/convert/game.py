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
from services.api.convert.mapping import Mapper, Names, Shape, members
from services.api.convert.registry import converter_for
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
        tables.GameStarted: Shape(
            computed={"turn_order": lambda e, _: range(e.players)},
        ),
        tables.GameFinished: Shape(
            computed={
                "scores": lambda e, _: [
                    {"player": seat, "score": score}
                    for seat, score in enumerate(e.scores)
                ]
            },
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
    table = record.table
    converter = converter_for(table.game_type)
    outcome = tables.outcome(table, record.rules)
    scores = outcome.scores if outcome else ()
    game = game_pb2.Game(
        name=game_name(record.game_id),
        game_type=converter.proto_type,
        state=_TABLE.scalar(table.status, game_pb2.Game, "state"),
        revision=record.revision,
        move_count=record.move_count,
        etag=f'W/"{record.revision}"',
        max_players=table.max_players,
        seed_commitment=table.commitment,
        visibility=visibility(table.private),
        record_digest=record.digest,
    )
    game.create_time.FromDatetime(record.created_at)
    game.update_time.FromDatetime(record.updated_at)
    if table.host is not None:
        game.host = player_name(record.game_id, table.host)
    if isinstance(viewer, Seat):
        game.caller = player_name(record.game_id, viewer.index)
    for seat, holder in enumerate(table.seats):
        game.players.append(
            game_pb2.Player(
                name=player_name(record.game_id, seat),
                display_name=holder.display_name,
                score=scores[seat] if seat < len(scores) else 0,
                seat=seat,
                resigned=seat in table.resigned,
            )
        )
    _set_lobby(game, table)
    to_move = record.rules.to_move(table.game) if table.game is not None else ()
    if table.status is tables.TableStatus.IN_PROGRESS and len(to_move) == 1:
        game.current_player = player_name(record.game_id, to_move[0])
    if table.final is not None:
        game.abandoned = table.final.abandoned
        game.seed = table.final.seed
        game.winners.extend(player_name(record.game_id, s) for s in table.final.winners)
    elif reveal_all:  # a snapshot from before the end: the end revealed this seed
        game.seed = table.seed
    if table.turn_seconds:
        game.turn_time_limit.seconds = table.turn_seconds
    if table.turn_deadline is not None:  # None once finished
        game.turn_deadline.FromDatetime(table.turn_deadline)
    if table.undo.proposal is not None:
        _TABLE.fill(table.undo.proposal, game.pending_undo, _names(record.game_id))
    getattr(game, converter.config_field).CopyFrom(
        converter.config_to_proto(table.config)
    )
    if full and table.game is not None:
        seen_as = _seen_as(record, viewer, reveal_all=reveal_all)
        view = record.rules.view(table.game, seen_as)
        names = _names(record.game_id)
        getattr(game, converter.view_field).CopyFrom(
            converter.view_to_proto(view, names)
        )
    return game


def _set_lobby(game: game_pb2.Game, table: tables.Table) -> None:
    """Sets when a waiting table expires, and why a closed one closed."""
    waiting = table.status is tables.TableStatus.WAITING_FOR_PLAYERS
    if waiting and table.expires_at is not None:
        game.expire_time.FromDatetime(table.expires_at)
    if table.closed is not None:
        game.closed_reason = _TABLE.scalar(table.closed, game_pb2.Game, "closed_reason")


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
    game_id = record.game_id
    message = event_pb2.GameEvent(
        revision=recorded.revision,
        move_number=recorded.move_number,
        actor="" if recorded.actor is None else player_name(game_id, recorded.actor),
        record_digest=recorded.digest,
    )
    message.create_time.FromDatetime(recorded.timestamp)
    seen_as = _seen_as(record, viewer, reveal_all=reveal_all)
    event = tables.visible(recorded.event, seen_as, record.rules)
    if event is not None:
        _set_event(message, record, event)
    return message


def _set_event(message: event_pb2.GameEvent, record: GameRecord, event: Any) -> None:
    names = _names(record.game_id)
    member = _MEMBERS.get(type(event))
    if member is not None:
        inner = getattr(message, member)
        inner.SetInParent()
        _TABLE.fill(event, inner, names)
        return
    converter = converter_for(record.table.game_type)
    getattr(message, converter.event_field).CopyFrom(
        converter.event_to_proto(event, names)
    )


def _seen_as(record: GameRecord, viewer: Viewer, *, reveal_all: bool) -> Viewer:
    """Returns whom to redact for: the operator when everything is revealed."""
    return Operator() if reveal_all else tables.effective_viewer(record.table, viewer)


def _names(game_id: UUID) -> Names:
    return lambda seat: player_name(game_id, seat)
