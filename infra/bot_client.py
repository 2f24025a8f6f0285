"""A bot at a real table: it takes a seat and plays it through the public API.

The bot is a client like any other: it holds a seat token, follows the game
with ``StreamGame`` and, whenever something happened, asks the server's bot
for its seat's move (``SuggestMove``, chosen from what that seat may see) and
submits it, pinned to the revision it was chosen at. A move that lost a race
(``ABORTED``) or no longer fits (``FAILED_PRECONDITION``) is simply dropped:
the stream brings the news and the bot asks again.

A takeback proposal that waits for the bot's answer is answered before the bot
moves (a move would close it): the bot accepts it. The server lets a player
propose taking back only their own last move, never one across a reveal, so
accepting costs the bot no move of its own and shows nobody anything new
(docs/bots.md, "Takebacks").
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import dataclass, field

import grpc
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1.game_service_pb2_grpc import GameServiceStub

from infra.terminal.undo import awaits_answer

log = logging.getLogger(__name__)

CALL_SECONDS = 10.0
STREAM_SECONDS = 3600.0  # a bot stays for a long game, not forever
RETRIED = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
# Answers after which the bot waits and starts again: the server is away, or
# the stream reached its deadline (a long game outlasts one stream).
WAITED_OUT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
GIVE_UP_SECONDS = 300.0


@dataclass(frozen=True, slots=True)
class BotSeat:
    """Where a bot plays: the game, its seat token and the server's stub.

    ``player`` is the seat's player resource name as it was taken. A seat given
    up before it moves it down, so the server's ``Game.caller`` says where the
    bot sits now.
    """

    stub: GameServiceStub
    game: str
    token: str = field(repr=False)  # a credential: in no log or traceback
    player: str = ""

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """Returns the call metadata presenting the seat token."""
        return (("authorization", f"Bearer {self.token}"),)


def join_as_bot(
    stub: GameServiceStub, game: str, name: str, invite_code: str = ""
) -> tuple[BotSeat, int]:
    """Takes the next free seat of ``game`` (a private table's with its invite
    code); returns the bot's seat and its index."""
    joined = stub.JoinGame(
        api.JoinGameRequest(
            name=game,
            display_name=name,
            request_id=str(uuid.uuid4()),
            invite_code=invite_code,
        ),
        timeout=CALL_SECONDS,
    )
    seat = int(joined.player.rsplit("/", 1)[1])
    return BotSeat(stub, game, joined.seat_token, joined.player), seat


def seat_bots(
    stub: GameServiceStub, game: str, count: int, invite_code: str = ""
) -> list[BotSeat]:
    """Seats ``count`` bots at a table that has not started, one after another."""
    return [
        join_as_bot(stub, game, f"Bot {n}", invite_code)[0] for n in range(1, count + 1)
    ]


def play_bots(seats: list[BotSeat], delay: float) -> threading.Event:
    """Lets each seat's bot play in a thread of its own; set the event to stop them.

    A bot that fails logs why and leaves its seat to the turn timer, if any.
    """
    stop = threading.Event()

    def run(seat: BotSeat) -> None:
        try:
            play_seat(seat, delay=delay, stop=stop)
        except grpc.RpcError as error:
            if not stop.is_set():
                log.warning("a bot stopped playing: %s", error.code())

    for seat in seats:
        threading.Thread(target=run, args=(seat,), daemon=True).start()
    return stop


def play_seat(
    seat: BotSeat, *, delay: float = 0.0, stop: threading.Event | None = None
) -> int:
    """Plays the seat until the game finishes (or ``stop``); returns its moves.

    ``delay`` is how long the bot thinks before each move, so that people
    watching can follow. While the server does not answer (restarting,
    draining, its database down) the bot waits and starts again from the
    game's revision; after ``GIVE_UP_SECONDS`` of that it raises.
    """
    stop = stop or threading.Event()
    moves = 0
    failing_since: float | None = None
    while not stop.is_set():
        try:
            made, finished = _follow(seat, delay, stop)
        except grpc.RpcError as error:
            if error.code() not in WAITED_OUT:
                raise
            now = time.monotonic()
            failing_since = failing_since or now
            if now - failing_since > GIVE_UP_SECONDS:
                raise
            stop.wait(min(5.0, 0.5 + (now - failing_since) / 4))
            continue
        failing_since = None
        moves += made
        if finished:
            return moves
    return moves


def _follow(seat: BotSeat, delay: float, stop: threading.Event) -> tuple[int, bool]:
    """Plays from the game's revision while its stream lasts.

    Returns the moves made and whether the game finished (its stream ends
    with OK only then).
    """
    # The revision first, then the moves: whatever happens after it (its turn
    # coming round included) reaches the bot through the stream.
    game = _game(seat)
    if game.state == game_pb2.GAME_STATE_FINISHED:
        return 0, True
    _answer_takeback(seat, game)
    moves = _moves_while_possible(seat, delay, stop)
    request = api.StreamGameRequest(
        name=seat.game, after_revision=game.revision, batch_events=True
    )
    stream = seat.stub.StreamGame(
        request, metadata=seat.metadata, timeout=STREAM_SECONDS
    )
    for item in stream:
        if stop.is_set():
            stream.cancel()
            return moves, False
        kind = item.WhichOneof("item")
        if kind in ("event", "events"):
            events = [item.event] if kind == "event" else item.events.events
            if any(event.HasField("undo_proposed") for event in events):
                _answer_takeback(seat, _game(seat))
            moves += _moves_while_possible(seat, delay, stop)
    return moves, True


def _moves_while_possible(seat: BotSeat, delay: float, stop: threading.Event) -> int:
    """Makes the seat's moves while it is to move; returns how many were made."""
    made = 0
    while not stop.is_set():
        suggestion = seat.stub.SuggestMove(
            api.SuggestMoveRequest(name=seat.game),
            metadata=seat.metadata,
            timeout=CALL_SECONDS,
        )
        if not suggestion.HasField("move"):
            return made
        if delay:
            time.sleep(delay)
        try:
            seat.stub.SubmitMove(
                api.SubmitMoveRequest(
                    name=seat.game,
                    move=suggestion.move,
                    expected_revision=suggestion.revision,
                    request_id=str(uuid.uuid4()),
                    view=api.GAME_VIEW_BASIC,  # the reply is not read
                ),
                metadata=seat.metadata,
                timeout=CALL_SECONDS,
            )
        except grpc.RpcError as error:
            if error.code() not in RETRIED:
                raise
            log.debug("bot move dropped: %s", error.code())
            return made
        made += 1
    return made


def _answer_takeback(seat: BotSeat, game: game_pb2.Game) -> None:
    """Accepts the open takeback proposal that waits for the bot's answer."""
    if not awaits_answer(game, game.caller):
        return
    try:
        seat.stub.RespondUndo(
            api.RespondUndoRequest(
                name=seat.game,
                proposal_id=game.pending_undo.proposal_id,
                vote=api.UNDO_VOTE_ACCEPT,
                request_id=str(uuid.uuid4()),
            ),
            metadata=seat.metadata,
            timeout=CALL_SECONDS,
        )
    except grpc.RpcError as error:
        # Answered, withdrawn or lapsed meanwhile: nothing left to answer.
        if error.code() not in RETRIED:
            raise
        log.debug("bot answer dropped: %s", error.code())


def _game(seat: BotSeat) -> game_pb2.Game:
    reply = seat.stub.GetGame(
        api.GetGameRequest(name=seat.game, view=api.GAME_VIEW_BASIC),
        metadata=seat.metadata,
        timeout=CALL_SECONDS,
    )
    return reply.game
