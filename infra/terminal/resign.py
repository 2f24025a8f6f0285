"""Resigning from the prompt: ``r``, a y/n confirmation, then ``ResignGame``.

From then on the server's bot plays the seat; the client follows the game
without offering moves.
"""

from __future__ import annotations

import uuid

import grpc
from rich.text import Text
from tabletop.v1 import game_pb2, game_service_pb2

from infra.terminal.connection import UNARY_TIMEOUT, Connection, describe_error

RESIGN_WORDS = {"r", "resign"}
CONFIRM_WORDS = {"y", "yes"}
HELP = "r: resign"
QUESTION = "Resign? The server's bot will play your seat. y/n"
CONFIRM_PROMPT = "resign? y/n> "
CANCELLED = "not resigned: you keep playing"
RESIGNED = "You resigned: the server's bot plays your seat to the end."


def asks_to_resign(text: str) -> bool:
    """Tells whether a typed line is ``r`` or ``resign``."""
    return text.strip().lower() in RESIGN_WORDS


def confirmed(text: str) -> bool:
    """Tells whether the answer to the question is yes; anything else cancels."""
    return text.strip().lower() in CONFIRM_WORDS


def has_resigned(game: game_pb2.Game, me: str) -> bool:
    """Tells whether the caller's seat resigned."""
    return any(player.name == me and player.resigned for player in game.players)


def question() -> Text:
    """Returns the confirmation asked before resigning."""
    return Text(QUESTION, style="bold yellow")


def resigned_line() -> Text:
    """Returns what the screen shows under the table once the caller resigned."""
    out = Text(RESIGNED, style="italic")
    out.append("\nq: quit", style="dim")
    return out


def resign(connection: Connection, game: game_pb2.Game) -> str:
    """Resigns the caller's seat; returns the line to show (a refusal, or none)."""
    try:
        connection.stub.ResignGame(
            game_service_pb2.ResignGameRequest(
                name=game.name, request_id=str(uuid.uuid4())
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        )
    except grpc.RpcError as error:
        return describe_error(error)
    return ""
