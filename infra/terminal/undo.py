"""Taking moves back from the prompt: alone (``u``), by consent (``t``), answers."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Literal

import grpc
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2

from infra.terminal.connection import UNARY_TIMEOUT, Connection, describe_error
from infra.terminal.render import RENDERERS, describe_event, names_for

Command = Literal["undo", "takeback", "accept", "decline"]
UNDO_WORDS = {"u", "undo"}
TAKEBACK_WORDS = {"t", "takeback"}
ACCEPT_WORDS = {"y", "yes"}
DECLINE_WORDS = {"n", "no"}
REMEMBERED = 64  # moves whose description a proposal may name
# In Qwirkle and Gnoming A Round every move draws, so ``u`` is always refused.
UNDO_KEY = "u: take back a move that revealed nothing"
TAKEBACK_KEY = "t: propose a takeback"
HELP = f"{UNDO_KEY}   {TAKEBACK_KEY}"


def parse(text: str, *, answering: bool) -> Command | None:
    """Returns the undo command a typed line is; None for anything else.

    ``n`` and ``no`` decline only while a proposal awaits the caller's answer;
    otherwise ``n`` pages the move list.
    """
    word = text.strip().lower()
    if word in UNDO_WORDS:
        return "undo"
    if word in TAKEBACK_WORDS:
        return "takeback"
    if word in ACCEPT_WORDS:
        return "accept"
    if answering and word in DECLINE_WORDS:
        return "decline"
    return None


def _expired(proposal: game_pb2.UndoProposal, now: datetime) -> bool:
    """Tells whether a proposal has lapsed by ``now``."""
    if not proposal.HasField("expire_time"):
        return False
    return proposal.expire_time.ToDatetime(tzinfo=UTC) <= now


def open_proposal(
    game: game_pb2.Game, now: datetime | None = None
) -> game_pb2.UndoProposal | None:
    """Returns the game's open proposal, None when there is none or it lapsed."""
    if not game.HasField("pending_undo"):
        return None
    proposal = game.pending_undo
    return None if _expired(proposal, now or datetime.now(UTC)) else proposal


def awaits_answer(game: game_pb2.Game, me: str, now: datetime | None = None) -> bool:
    """Tells whether an open proposal waits for the caller's answer."""
    proposal = open_proposal(game, now)
    if proposal is None or not me:
        return False
    return proposal.proposer != me and me not in proposal.accepted_by


def remember(
    moves: dict[int, str], game: game_pb2.Game, events: Iterable[event_pb2.GameEvent]
) -> None:
    """Keeps the description of each move event, by revision, for proposals."""
    names = names_for(game)
    for event in events:
        if event.WhichOneof("event") not in RENDERERS:
            continue
        line = describe_event(event, names)
        if line is not None:
            moves[event.revision] = line
    for revision in sorted(moves)[:-REMEMBERED]:
        del moves[revision]


def _which_move(proposal: game_pb2.UndoProposal, moves: Mapping[int, str]) -> str:
    """Returns the move a proposal would take back, as the log showed it."""
    after = [r for r in sorted(moves) if r > proposal.target_revision]
    if not after:
        return f"the last move (after revision {proposal.target_revision})"
    return f"r{after[0]}: {moves[after[0]]}"


def pending_line(
    game: game_pb2.Game,
    me: str,
    moves: Mapping[int, str],
    now: datetime | None = None,
) -> Text | None:
    """Returns the line about an undo proposal, None when there is none."""
    if not game.HasField("pending_undo"):
        return None
    proposal = game.pending_undo
    names = names_for(game)
    who = names.get(proposal.proposer, "a player")
    if _expired(proposal, now or datetime.now(UTC)):
        return Text(f"{who}'s takeback proposal expired", style="dim")
    move = _which_move(proposal, moves)
    accepted = ", ".join(names.get(p, p) for p in proposal.accepted_by)
    so_far = f" (accepted so far: {accepted})" if accepted else ""
    if proposal.proposer == me:
        text = f"You asked to take back {move}; waiting for the others{so_far}"
        return Text(text, style="bold yellow")
    if me in proposal.accepted_by:
        text = f"You accepted {who}'s takeback of {move}; waiting for the others"
        return Text(text, style="yellow")
    return Text.assemble(
        (f"{who} asks to take back {move}{so_far}", "bold yellow"),
        ("   y: accept   n: decline", "bold"),
    )


def act(connection: Connection, game: game_pb2.Game, me: str, command: Command) -> str:
    """Sends an undo command at the game's revision; returns the line to show."""
    try:
        if command in ("accept", "decline"):
            return _respond(connection, game, me, accept=command == "accept")
        _take_back(connection, game, alone=command == "undo")
    except grpc.RpcError as error:
        return describe_error(error)
    return ""


def _take_back(connection: Connection, game: game_pb2.Game, *, alone: bool) -> None:
    """Takes the caller's last move back alone, or proposes to; raises refusals."""
    request_id = str(uuid.uuid4())
    if alone:
        connection.stub.UndoMove(
            game_service_pb2.UndoMoveRequest(
                name=game.name, expected_revision=game.revision, request_id=request_id
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        )
        return
    connection.stub.ProposeUndo(
        game_service_pb2.ProposeUndoRequest(
            name=game.name, expected_revision=game.revision, request_id=request_id
        ),
        metadata=connection.metadata,
        timeout=UNARY_TIMEOUT,
    )


def _respond(
    connection: Connection, game: game_pb2.Game, me: str, *, accept: bool
) -> str:
    """Answers the open proposal; raises the call's error when it is refused."""
    if not awaits_answer(game, me):
        return "no takeback proposal waits for your answer"
    vote = game_service_pb2.UNDO_VOTE_ACCEPT
    if not accept:
        vote = game_service_pb2.UNDO_VOTE_REJECT
    connection.stub.RespondUndo(
        game_service_pb2.RespondUndoRequest(
            name=game.name,
            proposal_id=game.pending_undo.proposal_id,
            vote=vote,
            request_id=str(uuid.uuid4()),
        ),
        metadata=connection.metadata,
        timeout=UNARY_TIMEOUT,
    )
    return ""
