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
from domain.common.seats import Operator, Seat, Viewer
from domain.common.undo import UNDO_EVENT_TYPES
from services.api.convert.registry import converter_for
from services.api.convert.undo import proposal_to_proto, timestamp, undo_event_to_proto
from services.records import GameRecord, RecordedEvent

_STATES: Mapping[tables.TableStatus, game_pb2.GameState] = {
    tables.TableStatus.WAITING_FOR_PLAYERS: game_pb2.GAME_STATE_WAITING_FOR_PLAYERS,
    tables.TableStatus.IN_PROGRESS: game_pb2.GAME_STATE_IN_PROGRESS,
    tables.TableStatus.FINISHED: game_pb2.GAME_STATE_FINISHED,
    tables.TableStatus.CLOSED: game_pb2.GAME_STATE_CLOSED,
}

_CLOSED_REASONS: Mapping[tables.ClosedBecause, game_pb2.ClosedReason] = {
    tables.ClosedBecause.EXPIRED: game_pb2.CLOSED_REASON_EXPIRED,
    tables.ClosedBecause.EMPTY: game_pb2.CLOSED_REASON_EMPTY,
}


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
        state=_STATES[table.status],
        revision=record.revision,
        move_count=record.move_count,
        etag=f'W/"{record.revision}"',
        create_time=timestamp(record.created_at),
        update_time=timestamp(record.updated_at),
        max_players=table.max_players,
        seed_commitment=table.commitment,
        visibility=visibility(table.private),
        record_digest=record.digest,
    )
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


def _set_lobby(game: game_pb2.Game, table: tables.Table) -> None:
    """Sets when a waiting table expires, and why a closed one closed."""
    waiting = table.status is tables.TableStatus.WAITING_FOR_PLAYERS
    if waiting and table.expires_at is not None:
        game.expire_time.CopyFrom(timestamp(table.expires_at))
    if table.closed is not None:
        game.closed_reason = _CLOSED_REASONS[table.closed]


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
        record_digest=recorded.digest,
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
            created = event_pb2.GameCreated(
                game_type=converter.proto_type,
                seed_commitment=event.commitment,
                max_players=event.max_players,
                visibility=visibility(event.private),
            )
            if event.expires_at is not None:
                created.expire_time.CopyFrom(timestamp(event.expires_at))
            message.game_created.CopyFrom(created)
        case (
            tables.InviteCodeSet()
            | tables.PlayerLeft()
            | tables.TableClosed()
            | tables.PlayerResigned()
            | tables.ResignedSeatPlayed()
        ):
            _set_seat_event(message, event, names)
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
                    resigned=[names(seat) for seat in event.resigned],
                    abandoned=event.abandoned,
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


def _set_seat_event(
    message: event_pb2.GameEvent,
    event: tables.InviteCodeSet
    | tables.PlayerLeft
    | tables.TableClosed
    | tables.PlayerResigned
    | tables.ResignedSeatPlayed,
    names: Any,
) -> None:
    """Sets the events of who sits at a table and who still plays."""
    match event:
        case tables.InviteCodeSet():  # the code is never shown, nor its hash
            message.invite_code_set.SetInParent()
        case tables.PlayerLeft():
            message.player_left.CopyFrom(
                event_pb2.PlayerLeft(
                    player=names(event.seat),
                    display_name=event.display_name,
                    removed=event.removed,
                )
            )
        case tables.TableClosed():
            message.table_closed.reason = _CLOSED_REASONS[event.reason]
        case tables.PlayerResigned():
            message.player_resigned.player = names(event.seat)
        case tables.ResignedSeatPlayed():
            message.resigned_seat_played.player = names(event.seat)


def _seen_as(record: GameRecord, viewer: Viewer, *, reveal_all: bool) -> Viewer:
    """Returns whom to redact for: the operator when everything is revealed."""
    return Operator() if reveal_all else tables.effective_viewer(record.table, viewer)


def _names(game_id: UUID) -> Any:
    return lambda seat: player_name(game_id, seat)
