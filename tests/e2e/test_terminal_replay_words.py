"""``tabletop replay`` in words: games of the five games played to the end
through a real server on PostgreSQL, each revision's event described as the
replay shows it, a game in progress replayed without the card, target or tiles
the viewer may not see, and the replay stepping onto a move's first revision
under a pseudo-terminal."""

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
from tests.e2e.client import auth, get, legal_moves, seat_of, submit
from tests.e2e.conftest import Server
from tests.e2e.playthrough import by_action, open_table, play_with_one_self_undo
from tests.e2e.terminal_screen import spawn

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
    return name, _events(server, name)


def _events(
    server: Server, name: str, token: str | None = None
) -> list[event_pb2.GameEvent]:
    """Returns every event as a seat (or a spectator) sees it, every page, as
    tabletop replay lists them."""
    events: list[event_pb2.GameEvent] = []
    page_token = ""
    while True:
        reply = server.stub.ListGameEvents(
            api.ListGameEventsRequest(
                parent=name, page_size=1000, page_token=page_token
            ),
            metadata=auth(token) if token else None,
            timeout=10,
        )
        events.extend(reply.events)
        page_token = reply.next_page_token
        if not page_token:
            return events


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
        # The game's own words (the live log's), or the table's.
        described = {describe_event(event, names), table_event(event, names)}
        assert line in described, (event.revision, line)
    assert {"game_created", "game_started", "move_played", "game_finished"} <= kinds
    assert len({k for k in kinds if k.startswith(game)}) >= 4


def _started(server: Server, game: str) -> tuple[str, list[str]]:
    table, players = TABLES[game]
    name, tokens = open_table(server, table, PLAYER_NAMES[:players])
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    return name, tokens


def _line(
    events: list[event_pb2.GameEvent], game: str, kind: str, names: dict[str, str]
) -> str:
    event = next(e for e in events if getattr(e, game).HasField(kind))
    return what_happened(event, names)


def test_a_round_in_progress_is_replayed_without_its_card_or_target(
    server: Server,
) -> None:
    name, tokens = _started(server, "hues_and_cues")
    giver = seat_of(get(server.stub, name).current_player)
    revision, moves = legal_moves(server.stub, name, tokens[giver])
    submit(server.stub, name, tokens[giver], moves[0], expected_revision=revision)
    names, who = _names(name), PLAYER_NAMES[giver]
    own = _events(server, name, tokens[giver])
    card = next(e for e in own if e.hues_and_cues.HasField("card_drawn"))
    card_id = card.hues_and_cues.card_drawn.card.id
    target = moves[0].hues_and_cues.give_first_cue.target.id
    drawn = f"{who} drew a card {card_id} ("
    assert _line(own, "hues_and_cues", "card_drawn", names).startswith(drawn)
    chosen = f"{who} chose the target {target} for round 1"
    assert _line(own, "hues_and_cues", "target_chosen", names) == chosen
    for token in (None, tokens[(giver + 1) % 3]):  # a spectator, a guesser
        seen = _events(server, name, token)
        lines = [what_happened(event, names) for event in seen]
        assert f"{who} drew a card for round 1" in lines
        assert f"{who} chose the target for round 1" in lines
        assert not [line for line in lines if card_id in line or target in line]


def test_tiles_drawn_are_named_only_in_their_drawers_replay(server: Server) -> None:
    name, tokens = _started(server, "qwirkle")
    mover = seat_of(get(server.stub, name).current_player)
    revision, moves = legal_moves(server.stub, name, tokens[mover])
    submit(server.stub, name, tokens[mover], moves[0], expected_revision=revision)
    names, who = _names(name), PLAYER_NAMES[mover]
    drawer = _events(server, name, tokens[mover])
    own = _line(drawer, "qwirkle", "tiles_drawn", names)
    assert re.fullmatch(rf"{who} drew \d tile\(s\): [a-z]+ [a-z]+(, .*)?", own)
    for token in (None, tokens[1 - mover]):  # a spectator, the other player
        seen = _line(_events(server, name, token), "qwirkle", "tiles_drawn", names)
        assert re.fullmatch(rf"{who} drew \d tile\(s\)", seen)


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
