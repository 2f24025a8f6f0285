"""The shared envelopes: ``Game``, ``Player`` and ``GameEvent`` messages.

Everything a caller sees passes through the table's and the game's view and
visibility functions for that caller first (DESIGN §5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from tabletop.v1 import event_pb2, game_pb2

from domain.common import table as tables
from domain.common.seats import Operator, Viewer
from domain.common.undo import UNDO_EVENT_TYPES
from services.api.convert.registry import converter_for
from services.api.convert.undo import proposal_to_proto, timestamp, undo_event_to_proto
from services.records import GameRecord, RecordedEvent

_STATES: Mapping[tables.TableStatus, game_pb2.GameState] = {
    tables.TableStatus.WAITING_FOR_PLAYERS: game_pb2.GAME_STATE_WAITING_FOR_PLAYERS,
    tables.TableStatus.IN_PROGRESS: game_pb2.GAME_STATE_IN_PROGRESS,
    tables.TableStatus.FINISHED: game_pb2.GAME_STATE_FINISHED,
}


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
        state=_STATES[table.status],
        revision=record.revision,
        move_count=record.move_count,
        etag=f'W/"{record.revision}"',
        create_time=timestamp(record.created_at),
        update_time=timestamp(record.updated_at),
        max_players=table.max_players,
        seed_commitment=table.commitment,
    )
    for seat, holder in enumerate(table.seats):
        game.players.append(
            game_pb2.Player(
                name=player_name(record.game_id, seat),
                display_name=holder.display_name,
                score=scores[seat] if seat < len(scores) else 0,
                seat=seat,
            )
        )
    to_move = record.rules.to_move(table.game) if table.game is not None else ()
    if table.status is tables.TableStatus.IN_PROGRESS and len(to_move) == 1:
        game.current_player = player_name(record.game_id, to_move[0])
    if table.final is not None:
        game.seed = table.final.seed
        game.winners.extend(player_name(record.game_id, s) for s in table.final.winners)
    elif reveal_all:  # a snapshot from before the end: the end revealed this seed
        game.seed = table.seed
    if table.turn_seconds:
        game.turn_time_limit.seconds = table.turn_seconds
    if table.turn_deadline is not None:  # None once finished
        game.turn_deadline.CopyFrom(timestamp(table.turn_deadline))
    if table.undo.proposal is not None:
        game.pending_undo.CopyFrom(
            proposal_to_proto(table.undo.proposal, _names(record.game_id))
        )
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
        create_time=timestamp(recorded.timestamp),
    )
    seen_as = _seen_as(record, viewer, reveal_all=reveal_all)
    event = tables.visible(recorded.event, seen_as, record.rules)
    if event is not None:
        _set_event(message, record, event)
    return message


def _set_event(message: event_pb2.GameEvent, record: GameRecord, event: Any) -> None:
    names = _names(record.game_id)
    converter = converter_for(record.table.game_type)
    match event:
        case tables.GameCreated():
            message.game_created.CopyFrom(
                event_pb2.GameCreated(
                    game_type=converter.proto_type,
                    seed_commitment=event.commitment,
                    max_players=event.max_players,
                )
            )
        case tables.PlayerJoined():
            message.player_joined.CopyFrom(
                event_pb2.PlayerJoined(
                    player=names(event.seat), display_name=event.display_name
                )
            )
        case tables.GameStarted():
            order = [names(seat) for seat in range(event.players)]
            message.game_started.CopyFrom(event_pb2.GameStarted(turn_order=order))
        case tables.GameFinished():
            message.game_finished.CopyFrom(
                event_pb2.GameFinished(
                    winners=[names(seat) for seat in event.winners],
                    scores=[
                        event_pb2.PlayerScore(player=names(seat), score=score)
                        for seat, score in enumerate(event.scores)
                    ],
                    seed=event.seed,
                )
            )
        case tables.TurnTimerStarted():
            message.turn_timer_started.deadline.CopyFrom(timestamp(event.deadline))
        case tables.TurnTimedOut():
            message.turn_timed_out.player = names(event.seat)
        case _ if isinstance(event, UNDO_EVENT_TYPES):
            member, undo_message = undo_event_to_proto(event, names)
            getattr(message, member).CopyFrom(undo_message)
        case _:
            game_event = converter.event_to_proto(event, names)
            getattr(message, converter.event_field).CopyFrom(game_event)


def _seen_as(record: GameRecord, viewer: Viewer, *, reveal_all: bool) -> Viewer:
    """Returns whom to redact for: the operator when everything is revealed."""
    return Operator() if reveal_all else tables.effective_viewer(record.table, viewer)


def _names(game_id: UUID) -> Any:
    return lambda seat: player_name(game_id, seat)
