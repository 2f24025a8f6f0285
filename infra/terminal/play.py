"""``tabletop play``: take a seat, wait for the table, then play turn by turn."""

from __future__ import annotations

import uuid

import grpc
from rich.console import Console, Group, RenderableType
from rich.text import Text
from tabletop.v1 import game_pb2, game_service_pb2, move_pb2

from infra.terminal.bot_seats import left_text, resume_flags, run_bots
from infra.terminal.connection import (
    LOST,
    UNARY_TIMEOUT,
    ClientError,
    Connection,
    connect,
    describe_error,
    game_type_info,
    get_game,
    unavailable,
)
from infra.terminal.feed import Item, follow
from infra.terminal.lines import EndOfInput, Line, LineReader, wait
from infra.terminal.lobby import SeatRequest, take_seat
from infra.terminal.menu import (
    QUIT_WORDS,
    Quit,
    Show,
    Submit,
    choose,
    menu_of,
    with_page_size,
)
from infra.terminal.menu import render_menu as menu_lines
from infra.terminal.render import cannot_draw, render_game, renderer_for
from infra.terminal.resign import (
    CANCELLED,
    CONFIRM_PROMPT,
    asks_to_resign,
    confirmed,
    has_resigned,
    question,
    resign,
    resigned_line,
)
from infra.terminal.resign import HELP as RESIGN_HELP
from infra.terminal.screen import (
    Keys,
    draw,
    final_scores,
    log_text,
    menu_rows,
    panned,
    problem,
    prompt,
    terminal_size,
)
from infra.terminal.session import (
    Session,
    keep_receipt,
    load_game,
    note_message,
    take_items,
)
from infra.terminal.undo import (
    TAKEBACK_KEY,
    UNDO_KEY,
    act,
    awaits_answer,
    parse,
    pending_line,
)
from infra.terminal.waiting import WAIT_PROMPT, wait_for_start

MAX_MOVES = 5000  # more than any position of the five games offers
MOVE_PROMPT = "your move> "


def play(request: SeatRequest, console: Console, reader: LineReader) -> int:
    """Runs ``tabletop play``; returns the exit status."""
    table = take_seat(connect(request.server), request, console)
    stop_bots = run_bots(table.connection, table.seat, request.bot_delay)
    game = get_game(table.connection, table.seat.game)
    info = game_type_info(table.connection, game.game_type)
    if renderer_for(game.game_type) is None:  # joined: its type was not named
        stop_bots.set()
        game_id = game.name.removeprefix("games/")
        raise ClientError(
            f"{cannot_draw(game.game_type, info)}; your seat is kept, and "
            f"tabletop bot {game_id} --seat-token-file {table.path} plays it"
        )
    feed = follow(table.connection, game.name, game.revision)
    session = Session(console, table, info, reader, feed, game)
    try:
        # The host starts at --players, or at the fewest on a table it just
        # opened; otherwise once the table is full (or when the host types s).
        fewest = info.min_players if info and table.created else 0
        status = wait_for_start(session, request.players or fewest)
        status = turns(session) if status is None else status
    except KeyboardInterrupt:
        session.console.print()  # the notice starts under the prompt's line
        _say_left(session)
        raise
    finally:
        stop_bots.set()
        feed.stop()
    _say_left(session)
    return status


def turns(session: Session) -> int:
    """Plays until the game finishes or the person quits; returns the exit status."""
    reload(session)
    while True:
        if session.game.state == game_pb2.GAME_STATE_FINISHED:
            redraw(session, final=True)
            return 0
        redraw(session)
        got = wait(session.reader, session.feed, resize=True)
        if isinstance(got, EndOfInput):
            return 0
        if isinstance(got, Item):
            take_items(session, got)
            reload(session)
        elif isinstance(got, Line) and _answer(session, got.text):
            return 0


def reload(session: Session) -> None:
    """Refreshes the game and the moves; a server that is away is shown as such
    (the feed says when it is back, and the next refresh clears the notice)."""
    try:
        refresh(session)
    except grpc.RpcError as error:
        if not unavailable(error):
            raise
        session.lost = True


def _answer(session: Session, text: str) -> bool:
    """Acts on a typed line; True when the person quits. A message shown
    goes with the next line typed but a pan (which only moves the board)."""
    me = session.table.seat.player
    pan = None if session.confirming else panned(text, session.pan)
    if pan is not None:
        session.pan = pan
        return False
    session.message = ""
    if session.confirming or has_resigned(session.game, me):
        return _resigning(session, text)
    if asks_to_resign(text):
        session.confirming, session.message = True, ""
        return False
    command = parse(text, answering=awaits_answer(session.game, me))
    if command is not None:
        connection = session.table.connection
        session.message = act(connection, session.game, me, command)
        reload(session)
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


def _resigning(session: Session, text: str) -> bool:
    """Answers the resign question, or a line typed after resigning."""
    if session.confirming:
        session.confirming = False
        if confirmed(text):
            session.message = resign(session.table.connection, session.game)
        else:
            session.message = CANCELLED
        reload(session)
        return False
    if text.lower() in QUIT_WORDS:
        return True
    session.message = "you resigned: the server's bot plays your seat"
    return False


def submit(session: Session, move: move_pb2.Move) -> None:
    """Sends a move based on the listed revision; shows the server's refusal."""
    assert session.menu is not None  # noqa: S101 (only called with a menu)
    connection = session.table.connection
    try:
        reply = connection.stub.SubmitMove(
            game_service_pb2.SubmitMoveRequest(
                name=session.game.name,
                move=move,
                expected_revision=session.menu.revision,
                request_id=str(uuid.uuid4()),
                # The game is reloaded in full right after; the reply's
                # revision and digest are all that is kept of it.
                view=game_service_pb2.GAME_VIEW_BASIC,
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        )
    except grpc.RpcError as error:
        # The server being away shows as such; the move can be chosen again.
        session.lost = unavailable(error)
        session.message = "" if session.lost else describe_error(error)
    else:
        session.message = ""
        keep_receipt(session, reply.game.revision, reply.game.record_digest)
    reload(session)


def refresh(session: Session) -> None:
    """Reloads the game and, while it goes on, the caller's legal moves."""
    connection = session.table.connection
    load_game(session)
    menu = None  # kept as it was when the moves cannot be listed
    playing = session.game.state == game_pb2.GAME_STATE_IN_PROGRESS
    if playing and not has_resigned(session.game, session.table.seat.player):
        revision, moves = legal_moves(connection, session.game.name)
        menu = menu_of(moves, revision) if moves else None
    session.menu = menu


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
    """Returns who the table waits for (``Game.players_to_act``: several in a
    simultaneous phase); the bot, for a seat that resigned."""
    acting = set(game.players_to_act) or {game.current_player}
    names = [
        f"{player.display_name}{' (the bot plays for them)' if player.resigned else ''}"
        for player in game.players
        if player.name in acting
    ]
    if not names:
        return "the other players"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def redraw(session: Session, *, final: bool = False) -> None:
    """Draws the table, the log, the moves or whom we wait for, and the prompt,
    fitted to the terminal (the move list's pages to its height)."""
    me = session.table.seat.player
    if session.menu is not None:
        rows = menu_rows(terminal_size(session.console)[1])
        session.menu = with_page_size(session.menu, rows)
    table = render_game(session.game, session.info, me)
    pending = None if final else pending_line(session.game, me, session.moves)
    log = log_text(session.log)
    below = _below(session, final=final)
    lost = Text(LOST, style="bold yellow") if session.lost else None
    note_message(session)
    message = problem(session.message)
    parts = (table, log, pending, below, lost, message)
    session.pan = draw(session.console, *parts, pan=session.pan)
    if final:
        return
    if session.confirming:
        prompt(session.console, CONFIRM_PROMPT)
    else:
        prompt(session.console, MOVE_PROMPT if session.menu else WAIT_PROMPT)


def _below(session: Session, *, final: bool) -> RenderableType:
    """Returns what goes under the table: moves, a question, or whom we wait for."""
    me = session.table.seat.player
    if final:
        return final_scores(session.game)
    if session.confirming:
        return question()
    if has_resigned(session.game, me):
        return resigned_line()
    answering = awaits_answer(session.game, me)
    if session.menu is not None:
        return menu_lines(session.menu, session.game, answering=answering)
    waiting = Text(f"waiting for {waiting_for(session.game)}...", style="italic")
    return Group(waiting, Keys((UNDO_KEY, TAKEBACK_KEY, RESIGN_HELP), ("q: quit",)))


def _say_left(session: Session) -> None:
    """Says, as the player quits, what the game waits for and how to resume."""
    if session.gone:
        return
    seat, path = session.table.seat, session.table.path
    resigned = has_resigned(session.game, seat.player)
    kept = resume_flags(seat, path)
    text = left_text(session.game, seat, resigned=resigned, kept=kept)
    if text is not None:
        session.console.print(text)
