"""``tabletop replay`` in words: games of the five games played to the end
through a real server on PostgreSQL, each revision's event described as the
replay shows it, and the replay stepping onto a move's first revision under a
pseudo-terminal."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from tabletop.v1 import (
    event_pb2,
    fool_pb2,
    game_pb2,
    gnoming_a_round_pb2,
    hues_and_cues_pb2,
    qwirkle_pb2,
    split_pb2,
)
from tabletop.v1 import game_service_pb2 as api

from infra.terminal.render import describe_event
from infra.terminal.replay import table_event, what_happened
from tests.e2e.client import auth, get
from tests.e2e.conftest import Server
from tests.e2e.playthrough import by_action, open_table, play_with_one_self_undo
from tests.e2e.terminal_screen import spawn

MINE = {"split", "gnoming_a_round", "fool"}
TABLES = {
    "qwirkle": (
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_QWIRKLE,
            qwirkle_config=qwirkle_pb2.QwirkleConfig(),
        ),
        2,
    ),
    "hues_and_cues": (
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
            hues_and_cues_config=hues_and_cues_pb2.HuesAndCuesConfig(),
        ),
        3,
    ),
    "split": (
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_SPLIT, split_config=split_pb2.SplitConfig()
        ),
        3,
    ),
    "gnoming_a_round": (
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_GNOMING_A_ROUND,
            gnoming_a_round_config=gnoming_a_round_pb2.GnomingARoundConfig(),
        ),
        3,
    ),
    "fool": (
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_FOOL, fool_config=fool_pb2.FoolConfig()
        ),
        4,
    ),
}
PLAYER_NAMES = ("Ana", "Ben", "Cy", "Di")
# What a replay line must not hold: a field or enum name, an unknown name.
RAW = re.compile(r"[a-z]_[a-z]|[A-Z]{2,}_[A-Z]|\?|does not know")


def _finished(server: Server, game: str) -> tuple[str, list[event_pb2.GameEvent]]:
    """Plays a table of the game to its end; returns its name and every event."""
    table, players = TABLES[game]
    name, tokens = open_table(server, table, PLAYER_NAMES[:players])
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    chooser = by_action(game, random.Random(2026))
    play_with_one_self_undo(server, name, tokens, chooser, game)
    events: list[event_pb2.GameEvent] = []
    page_token = ""
    while True:  # as a spectator, every page, as tabletop replay lists them
        reply = server.stub.ListGameEvents(
            api.ListGameEventsRequest(
                parent=name, page_size=1000, page_token=page_token
            ),
            timeout=10,
        )
        events.extend(reply.events)
        page_token = reply.next_page_token
        if not page_token:
            return name, events


def _kind(event: event_pb2.GameEvent) -> str:
    member = event.WhichOneof("event") or ""
    inner = getattr(event, member).WhichOneof("event") if member in TABLES else None
    return f"{member}.{inner}" if inner else member


def _names(name: str) -> dict[str, str]:
    return {f"{name}/players/{seat}": n for seat, n in enumerate(PLAYER_NAMES)}


@pytest.mark.parametrize("game", sorted(TABLES))
def test_every_revision_of_a_game_is_replayed_in_words(
    server: Server, game: str
) -> None:
    name, events = _finished(server, game)
    assert get(server.stub, name).state == game_pb2.GAME_STATE_FINISHED
    names, kinds = _names(name), set()
    for event in events:
        line = what_happened(event, names)
        assert not RAW.search(line), (event.revision, line)
        kinds.add(_kind(event))
        if game in MINE or event.WhichOneof("event") not in TABLES:
            # Split's, Gnoming A Round's and Fool!'s own words, and the table's.
            described = {describe_event(event, names), table_event(event, names)}
            assert line in described, (event.revision, line)
    assert {"game_created", "game_started", "move_played", "game_finished"} <= kinds
    assert len({k for k in kinds if k.startswith(game)}) >= 4


def test_the_replay_shows_a_moves_first_revision_in_words(
    server: Server, tmp_path: Path
) -> None:
    name, events = _finished(server, "split")
    total = len(events)
    played = next(e for e in events if e.HasField("move_played"))
    mover = PLAYER_NAMES[int(played.move_played.player.rsplit("/", 1)[1])]
    game_id = name.removeprefix("games/")
    screen = spawn(server, tmp_path, "replay", game_id, title="Split")
    screen.expect(rf"revision 1/{total}  game created: a public table of \d seats")
    screen.child.sendline(f"g {played.revision}")
    screen.expect(
        rf"revision {played.revision}/{total}  {mover} made move "
        rf"{played.move_number}; what it did follows"
    )
    screen.child.sendline("n")  # the move's first fact, as the live log says it
    after = what_happened(events[played.revision], _names(name))
    screen.expect(rf"revision {played.revision + 1}/{total}  {re.escape(after)}")
    screen.child.sendline("q")
    assert screen.finish() == 0
