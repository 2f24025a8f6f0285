"""The lobby of ``tabletop play``: who sits, how others join, the host starts."""

from __future__ import annotations

import grpc
from rich.text import Text
from tabletop.v1 import game_pb2

from infra.terminal.connection import LOST, describe_error, unavailable
from infra.terminal.feed import Item
from infra.terminal.lines import EndOfInput, Line, wait
from infra.terminal.lobby import Lobby, lobby_text, start_game
from infra.terminal.menu import QUIT_WORDS
from infra.terminal.render_common import closed_text, names_of
from infra.terminal.screen import draw, log_text, problem, prompt
from infra.terminal.seats import forget_seat
from infra.terminal.session import Session, load_game, note_message, take_items

WAIT_PROMPT = "(q quits)> "
START_WORDS = {"s", "start"}


def wait_for_start(session: Session, wanted: int) -> int | None:
    """Shows the lobby until the game starts (None); else returns the exit status.

    ``wanted``: the players the host starts the game at; 0 means a full table.
    """
    while True:
        _reload(session)
        game = session.game
        if game.state == game_pb2.GAME_STATE_CLOSED:
            return _left_behind(
                session, f"{closed_text(game.closed_reason)}.".capitalize()
            )
        if game.state != game_pb2.GAME_STATE_WAITING_FOR_PLAYERS:
            return None
        lobby = _lobby(session, wanted or game.max_players)
        if _hosting(session) and len(game.players) >= lobby.wanted and not session.lost:
            start_game(session.table)
            continue
        log = log_text(session.log)
        lost = Text(LOST, style="bold yellow") if session.lost else None
        note_message(session)
        message = problem(session.message)
        draw(session.console, lobby_text(lobby), log, lost, message)
        prompt(session.console, WAIT_PROMPT)
        got = wait(session.reader, session.feed, resize=True)
        if isinstance(got, EndOfInput):
            return 0
        if isinstance(got, Line):
            if got.text.lower() in QUIT_WORDS:
                return 0
            _lobby_answer(session, got.text)
        elif isinstance(got, Item):
            take_items(session, got)
            if session.gone:
                forget_seat(session.table.path)
                return _left_behind(session, session.gone)


def _reload(session: Session) -> None:
    """Reloads the game; while the server is away the lobby says so instead."""
    try:
        load_game(session)
    except grpc.RpcError as error:
        if not unavailable(error):
            raise
        session.lost = True


def _hosting(session: Session) -> bool:
    return session.game.host == session.table.seat.player


def _lobby(session: Session, wanted: int) -> Lobby:
    """Returns what the lobby shows; the host may start once the fewest sit."""
    fewest = session.info.min_players if session.info else 1
    can_start = fewest <= len(session.game.players) < wanted
    return Lobby(session.game, session.table.seat, wanted, can_start)


def _lobby_answer(session: Session, text: str) -> None:
    """Starts the game when the host types ``s``; explains anything else."""
    session.message = ""
    if text.strip().lower() not in START_WORDS:
        if text.strip():
            session.message = f"not understood: {text!r}"
        return
    if not _hosting(session):
        host = names_of(session.game).get(session.game.host, "the host")
        session.message = f"only the host, {host}, starts the game"
        return
    try:
        start_game(session.table)
    except grpc.RpcError as error:
        session.lost = unavailable(error)
        session.message = "" if session.lost else describe_error(error)


def _left_behind(session: Session, line: str) -> int:
    """Shows why the caller has no game to play here; returns the exit status."""
    draw(session.console, log_text(session.log), Text(line, style="bold red"))
    return 1
