"""``tabletop play``: take a seat, wait for the table, then play turn by turn."""

from __future__ import annotations

import uuid
from collections import deque
from dataclasses import dataclass, field

import grpc
from rich.console import Console, RenderableType
from rich.text import Text
from tabletop.v1 import game_pb2, game_service_pb2, game_type_pb2, move_pb2

from infra.bot_client import play_bots, seat_bots
from infra.terminal.connection import (
    UNARY_TIMEOUT,
    ClientError,
    Connection,
    connect,
    describe_error,
    game_type_info,
    get_game,
)
from infra.terminal.feed import Feed, Item, follow
from infra.terminal.lines import EndOfInput, Line, LineReader, drain, wait
from infra.terminal.lobby import SeatRequest, Table, lobby_text, start_game, take_seat
from infra.terminal.menu import QUIT_WORDS, Menu, Quit, Show, Submit, choose, menu_of
from infra.terminal.menu import render_menu as menu_lines
from infra.terminal.render import render_game
from infra.terminal.screen import (
    draw,
    final_scores,
    log_text,
    new_log,
    problem,
    prompt,
    record,
)
from infra.terminal.undo import HELP as UNDO_HELP
from infra.terminal.undo import act, awaits_answer, parse, pending_line, remember

MAX_MOVES = 5000  # more than any position of the five games offers
MOVE_PROMPT = "your move> "
WAIT_PROMPT = "(q quits)> "


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
    log: deque[str] = field(default_factory=new_log)
    moves: dict[int, str] = field(default_factory=dict)  # described moves by revision


def play(request: SeatRequest, console: Console, reader: LineReader) -> int:
    """Runs ``tabletop play``; returns the exit status."""
    table = take_seat(connect(request.server), request, console)
    bots = seat_bots(table.connection.stub, table.seat.game, request.bots)
    stop_bots = play_bots(bots, request.bot_delay)
    game = get_game(table.connection, table.seat.game)
    info = game_type_info(table.connection, game.game_type)
    feed = follow(table.connection, game.name, game.revision)
    session = Session(console, table, info, reader, feed, game)
    try:
        wanted = request.players or (info.min_players if info else 2)
        if not wait_for_start(session, wanted):
            return 0
        return turns(session)
    finally:
        stop_bots.set()
        feed.stop()


def wait_for_start(session: Session, wanted: int) -> bool:
    """Shows the lobby until the game starts; False when the person quits."""
    while True:
        session.game = get_game(session.table.connection, session.table.seat.game)
        game = session.game
        if game.state != game_pb2.GAME_STATE_WAITING_FOR_PLAYERS:
            return True
        if session.table.created and len(game.players) >= wanted:
            start_game(session.table)
            continue
        draw(session.console, lobby_text(game, wanted, created=session.table.created))
        prompt(session.console, WAIT_PROMPT)
        got = wait(session.reader, session.feed)
        if isinstance(got, EndOfInput):
            return False
        if isinstance(got, Line) and got.text.lower() in QUIT_WORDS:
            return False
        if isinstance(got, Item):
            _take_items(session, got)


def turns(session: Session) -> int:
    """Plays until the game finishes or the person quits; returns the exit status."""
    refresh(session)
    while True:
        if session.game.state == game_pb2.GAME_STATE_FINISHED:
            redraw(session, final=True)
            return 0
        redraw(session)
        got = wait(session.reader, session.feed)
        if isinstance(got, EndOfInput):
            return 0
        if isinstance(got, Item):
            _take_items(session, got)
            refresh(session)
        elif _answer(session, got.text):
            return 0


def _take_items(session: Session, first: Item) -> None:
    """Logs the events that arrived; a failed stream ends the session."""
    for item in drain(session.feed, first):
        if item.kind == "error":
            raise ClientError(f"the live feed failed: {item.message}")
        record(session.log, session.game, item.events)
        remember(session.moves, session.game, item.events)


def _answer(session: Session, text: str) -> bool:
    """Acts on a typed line; True when the person quits."""
    me = session.table.seat.player
    command = parse(text, answering=awaits_answer(session.game, me))
    if command is not None:
        connection = session.table.connection
        session.message = act(connection, session.game, me, command)
        refresh(session)
        return False
    if session.menu is None:
        if text.lower() in QUIT_WORDS:
            return True
        session.message = f"not your turn: waiting for {waiting_for(session.game)}"
        return False
    choice = choose(session.menu, text, session.game)
    if isinstance(choice, Quit):
        return True
    if isinstance(choice, Show):
        session.menu, session.message = choice.menu, choice.message
    elif isinstance(choice, Submit):
        submit(session, choice.move)
    return False


def submit(session: Session, move: move_pb2.Move) -> None:
    """Sends a move based on the listed revision; shows the server's refusal."""
    assert session.menu is not None  # noqa: S101 (only called with a menu)
    connection = session.table.connection
    try:
        connection.stub.SubmitMove(
            game_service_pb2.SubmitMoveRequest(
                name=session.game.name,
                move=move,
                expected_revision=session.menu.revision,
                request_id=str(uuid.uuid4()),
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        )
    except grpc.RpcError as error:
        session.message = describe_error(error)
    else:
        session.message = ""
    refresh(session)


def refresh(session: Session) -> None:
    """Reloads the game and, while it goes on, the caller's legal moves."""
    connection = session.table.connection
    session.game = get_game(connection, session.table.seat.game)
    session.menu = None
    if session.game.state == game_pb2.GAME_STATE_IN_PROGRESS:
        revision, moves = legal_moves(connection, session.game.name)
        session.menu = menu_of(moves, revision) if moves else None


def legal_moves(connection: Connection, name: str) -> tuple[int, list[move_pb2.Move]]:
    """Returns the revision and the caller's legal moves, every page."""
    moves: list[move_pb2.Move] = []
    page_token, revision = "", 0
    while len(moves) < MAX_MOVES:
        reply = connection.stub.ListLegalMoves(
            game_service_pb2.ListLegalMovesRequest(
                name=name, page_size=1000, page_token=page_token
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        )
        moves.extend(reply.moves)
        revision, page_token = reply.revision, reply.next_page_token
        if not page_token:
            break
    return revision, moves


def waiting_for(game: game_pb2.Game) -> str:
    """Returns who the table waits for."""
    names = {p.name: p.display_name for p in game.players}
    return names.get(game.current_player, "the other players")


def redraw(session: Session, *, final: bool = False) -> None:
    """Draws the table, the log, the moves or whom we wait for, and the prompt."""
    me = session.table.seat.player
    answering = awaits_answer(session.game, me)
    below: RenderableType
    if final:
        below = final_scores(session.game)
    elif session.menu is not None:
        below = menu_lines(session.menu, session.game, answering=answering)
    else:
        below = Text(f"waiting for {waiting_for(session.game)}...", style="italic")
        below.append(f"\n{UNDO_HELP}   q: quit", style="dim")
    table = render_game(session.game, session.info, me)
    pending = None if final else pending_line(session.game, me, session.moves)
    log = log_text(session.log)
    draw(session.console, table, log, pending, below, problem(session.message))
    if not final:
        prompt(session.console, MOVE_PROMPT if session.menu else WAIT_PROMPT)
