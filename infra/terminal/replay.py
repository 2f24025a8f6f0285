"""``tabletop replay``: step through a game's revisions with GetGameRevision."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC

from rich.console import Console, Group
from rich.text import Text
from tabletop.v1 import event_pb2, game_pb2, game_service_pb2

from infra.terminal.connection import (
    UNARY_TIMEOUT,
    Connection,
    connect,
    game_name,
    game_type_info,
    get_game,
)
from infra.terminal.games import NAMES
from infra.terminal.lines import EndOfInput, Line, LineReader, wait
from infra.terminal.menu import QUIT_WORDS
from infra.terminal.render import describe_event, names_for, render_game
from infra.terminal.screen import PAN_HELP, Keys, Pan, draw, panned, problem, prompt

STEPS = "n or Enter next   p previous   g N go to revision N"
HELP = f"{STEPS}   {PAN_HELP}   q quit"
_GAMES = frozenset(NAMES.values())  # the GameEvent members that hold a game's event


def events_of(connection: Connection, name: str) -> list[event_pb2.GameEvent]:
    """Returns every event of the game as the caller may see it, in order."""
    events: list[event_pb2.GameEvent] = []
    page_token = ""
    while True:
        reply = connection.stub.ListGameEvents(
            game_service_pb2.ListGameEventsRequest(
                parent=name, page_size=1000, page_token=page_token
            ),
            metadata=connection.metadata,
            timeout=UNARY_TIMEOUT,
        )
        events.extend(reply.events)
        page_token = reply.next_page_token
        if not page_token:
            return events


def what_happened(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str:
    """Describes the event that led to a revision in words, as the live log does.

    The events the log leaves out (the table opened, a move's start, the turn
    timer) have their words here. An event its game's renderer has no words
    for is named by its kind and credited to nobody: the actor made the move,
    but the event may be about someone else, or about no one.
    """
    described = describe_event(event, names) or table_event(event, names)
    if described is not None:
        return described
    member = event.WhichOneof("event")
    if member is None:
        return "an event this client does not know"
    inner = getattr(event, member).WhichOneof("event") if member in _GAMES else None
    kind = f"{member}: {inner}" if inner else member
    return kind.replace("_", " ")


def table_event(event: event_pb2.GameEvent, names: Mapping[str, str]) -> str | None:
    """Describes the table's events the live log leaves out; None for the others."""
    kind = event.WhichOneof("event")
    if kind == "game_created":
        created = event.game_created
        private = created.visibility == game_pb2.VISIBILITY_PRIVATE
        return (
            f"game created: a {'private' if private else 'public'} table of "
            f"{created.max_players} seats"
        )
    if kind == "move_played":
        who = names.get(event.move_played.player, "a player")
        return f"{who} made move {event.move_number}; what it did follows"
    if kind == "undo_accepted":
        who = names.get(event.undo_accepted.player, "a player")
        return f"{who} agreed to the takeback"
    if kind == "turn_timer_started":
        started = event.turn_timer_started
        if not started.HasField("deadline"):
            return "the turn timer started"
        by = f"{started.deadline.ToDatetime(tzinfo=UTC):%H:%M:%S} UTC"
        return f"the turn timer started: the players to move act by {by}"
    if kind == "turn_timed_out":
        who = names.get(event.turn_timed_out.player, "a player")
        return f"{who} ran out of time; the server's bot plays the turn"
    return None


def step(text: str, revision: int, total: int) -> tuple[int, str]:
    """Returns the revision a command asks for, and a message if it cannot be."""
    words = text.strip().lower().split()
    if not words or words[0] == "n":
        return min(revision + 1, total), "" if revision < total else "the last revision"
    if words[0] == "p":
        return max(revision - 1, 1), "" if revision > 1 else "the first revision"
    if words[0] == "g" and len(words) == 2 and words[1].isdigit():  # noqa: PLR2004
        wanted = int(words[1])
        if 1 <= wanted <= total:
            return wanted, ""
        return revision, f"no revision {wanted}: choose 1 to {total}"
    return revision, f"not understood: {text.strip()!r} ({HELP})"


def replay(server: str, game_id: str, console: Console, reader: LineReader) -> int:
    """Steps through a game's revisions until the person quits; a resized
    terminal is drawn again, and the board pans as in ``tabletop play``."""
    connection = connect(server)
    name = game_name(game_id)
    latest = get_game(connection, name)
    info = game_type_info(connection, latest.game_type)
    events = events_of(connection, name)
    total, revision, message = len(events), 1, ""
    names, pan = names_for(latest), Pan()
    shown, snapshot = 0, game_pb2.Game()
    while True:
        if shown != revision:  # a resize or a pan draws the same revision again
            snapshot = _snapshot(connection, name, revision)
            shown = revision
        status = Text.assemble(
            (f"revision {revision}/{total}", "bold"),
            f"  {what_happened(events[revision - 1], names)}",
        )
        pan = draw(
            console,
            Group(render_game(snapshot, info), status),
            Keys((STEPS,), ("q quit",)),
            problem(message),
            pan=pan,
        )
        prompt(console, "replay> ")
        got = wait(reader, None, resize=True)
        if isinstance(got, EndOfInput):
            return 0  # Ctrl-D
        if not isinstance(got, Line):  # resized: drawn again at the new size
            continue
        if got.text.lower() in QUIT_WORDS:
            return 0
        moved = panned(got.text, pan)
        if moved is not None:
            pan, message = moved, ""
            continue
        revision, message = step(got.text, revision, total)
        if revision != shown:
            pan = Pan()  # the board is centred on the new revision's action


def _snapshot(connection: Connection, name: str, revision: int) -> game_pb2.Game:
    """Returns the game as the caller may see it at a revision."""
    return connection.stub.GetGameRevision(
        game_service_pb2.GetGameRevisionRequest(name=f"{name}/revisions/{revision}"),
        metadata=connection.metadata,
        timeout=UNARY_TIMEOUT,
    ).snapshot
