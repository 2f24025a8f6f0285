"""What a seat's session holds, and taking in the events its feed delivers."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from rich.console import Console
from tabletop.v1 import event_pb2, game_pb2, game_type_pb2

from infra.terminal.connection import ClientError, get_game
from infra.terminal.feed import Feed, Item
from infra.terminal.lines import LineReader, drain
from infra.terminal.lobby import Table, seat_after_leaving
from infra.terminal.menu import Menu
from infra.terminal.receipts import latest_receipt, with_receipt
from infra.terminal.screen import Pan, new_log, record
from infra.terminal.seats import save_seat
from infra.terminal.undo import remember


@dataclass
class Session:
    """Everything the turn loop draws from and updates."""

    console: Console
    table: Table
    info: game_type_pb2.GameTypeInfo | None
    reader: LineReader
    feed: Feed
    game: game_pb2.Game
    menu: Menu | None = None
    message: str = ""
    confirming: bool = False  # the resign question awaits its y/n
    gone: str = ""  # why the caller's seat is no longer at the table
    log: deque[str] = field(default_factory=new_log)
    moves: dict[int, str] = field(default_factory=dict)  # described moves by revision
    lost: bool = False  # the server is away: calls and the feed are retried
    pan: Pan = field(default_factory=Pan)  # the board's window, from the action
    # The message as last drawn and whether it was the caller's turn then: it
    # stays until the next typed line, or until the caller's turn starts or ends.
    noted: tuple[str, bool] = ("", False)


def take_items(session: Session, first: Item) -> None:
    """Logs the events that arrived; a failed stream ends the session.

    The latest record digest among them is kept as the seat's receipt, the
    seat file written once for the whole batch.
    """
    seen: list[event_pb2.GameEvent] = []
    try:
        for item in drain(session.feed, first):
            if item.kind in ("lost", "back"):
                session.lost = item.kind == "lost"
                continue
            if item.kind == "error":
                if session.gone:  # the server ends a given-up seat's feed: expected
                    return
                raise ClientError(f"the live feed failed: {item.message}")
            record(session.log, session.game, item.events)
            remember(session.moves, session.game, item.events)
            seen.extend(item.events)
            for event in item.events:
                if event.WhichOneof("event") == "player_left":
                    _seat_given_up(session, event.player_left)
    finally:
        keep_receipt(session, *latest_receipt(seen))


def _seat_given_up(session: Session, left: event_pb2.PlayerLeft) -> None:
    """Follows the caller's seat as the seats before it are given up."""
    seat = session.table.seat
    me = seat_after_leaving(seat.player, left.player)
    if me is None:
        how = "The host removed you from the table" if left.removed else "You left"
        session.gone = f"{how}; your seat token no longer works."
    elif me != seat.player:
        session.table = replace(session.table, seat=replace(seat, player=me))
        save_seat(session.table.seat, session.table.path)


def load_game(session: Session) -> None:
    """Reloads the game as the caller sees it, and where the caller sits now.

    ``Game.caller`` names the caller's seat as it is now, so a seat resumed
    after players before it left (while this client was not running) is
    followed too. The game's record digest is kept as the seat's receipt.
    A game that moved on re-centres the board; a message drawn before goes
    once the caller's turn started or ended since (a refusal stays readable
    while the others move). A call that fails raises, the server being away
    included.
    """
    game = get_game(session.table.connection, session.table.seat.game)
    session.lost = False
    if game.revision != session.game.revision:
        session.pan = Pan()
    session.game = game
    seat = session.table.seat
    message, turn = session.noted
    if message and session.message == message and turn != my_turn(game, seat.player):
        session.message, session.noted = "", ("", False)
    if session.game.caller and session.game.caller != seat.player:
        session.table = replace(
            session.table, seat=replace(seat, player=session.game.caller)
        )
        save_seat(session.table.seat, session.table.path)
    keep_receipt(session, session.game.revision, session.game.record_digest)


def note_message(session: Session) -> None:
    """Notes whether it was the caller's turn when a message was first drawn
    (see ``load_game``)."""
    if session.message != session.noted[0]:
        turn = my_turn(session.game, session.table.seat.player)
        session.noted = (session.message, turn)


def my_turn(game: game_pb2.Game, player: str) -> bool:
    """Returns whether the game, in progress, waits for the player to act
    (``Game.players_to_act``: several in a simultaneous phase)."""
    acting = set(game.players_to_act) or {game.current_player}
    return game.state == game_pb2.GAME_STATE_IN_PROGRESS and player in acting


def keep_receipt(session: Session, revision: int, digest: str) -> None:
    """Keeps a newer receipt in the session's seat and saves its seat file.

    Nothing is kept once the seat was given up (its file is forgotten).
    """
    if session.gone:
        return
    table = session.table
    seat = with_receipt(table.seat, revision, digest)
    if seat is table.seat:
        return
    save_seat(seat, table.path)
    session.table = replace(table, seat=seat)
