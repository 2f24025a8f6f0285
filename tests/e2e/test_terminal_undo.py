"""Taking moves back from the terminal client, under a pseudo-terminal, against a
real server and PostgreSQL: ``u`` alone, ``t`` by consent, ``y``/``n`` answers.

The terminal holds one seat; the test plays and answers for the other seats
through the stubs.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tabletop.v1 import game_pb2
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1 import hues_and_cues_pb2 as hues

from tests.e2e.client import auth, get, legal_moves, seat_of, submit
from tests.e2e.conftest import Server, start_server
from tests.e2e.playthrough import open_table
from tests.e2e.terminal_screen import Screen, spawn
from tests.pg import fresh_schema

ANY_PROMPT = r"(your move|\(q quits\))> "


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server for the module."""
    with fresh_schema() as url:
        running = start_server(url, dev=True)
        yield running
        assert running.stop() == 0


def _join_terminal(
    server: Server, tmp_path: Path, name: str, display_name: str, title: str
) -> tuple[Screen, str]:
    """Seats the terminal at a table the stubs opened; returns it and its token."""
    game_id = name.removeprefix("games/")
    screen = spawn(
        server, tmp_path, "play", "--join", game_id, "--name", display_name, title=title
    )
    screen.expect(r"Waiting for players")
    path = tmp_path / "tabletop" / "seats" / f"{game_id}.json"
    return screen, str(json.loads(path.read_text())["seat_token"])


def _wait_revision(server: Server, name: str, after: int) -> int:
    """Waits until the game is past a revision; returns its revision."""
    deadline = time.monotonic() + 15
    while (revision := get(server.stub, name).revision) <= after:
        assert time.monotonic() < deadline, "the move did not reach the server"
        time.sleep(0.05)
    return revision


def _qwirkle(server: Server, tmp_path: Path) -> tuple[Screen, str, str, str]:
    """Seats Ana (stubs) and Ben (the terminal) at a 2-seat Qwirkle table and
    starts it; returns the screen, the game's name and Ana's and Ben's tokens."""
    game = game_pb2.Game(game_type=game_pb2.GAME_TYPE_QWIRKLE, max_players=2)
    name, (ana,) = open_table(server, game, ("Ana",))
    screen, ben = _join_terminal(server, tmp_path, name, "Ben", "Qwirkle")
    server.stub.StartGame(api.StartGameRequest(name=name), metadata=auth(ana))
    return screen, name, ana, ben


def _at_prompt(screen: Screen, server: Server, name: str, prompt: str) -> str:
    """Waits for the screen drawn at the game's current revision ending in a prompt."""
    revision = get(server.stub, name).revision
    screen.expect(rf"(?s)revision {revision}, move \d+\b.*?{re.escape(prompt)}")
    return screen.last_screen()


def _logged(screen: Screen, line: str, prompt: str) -> str:
    """Waits for a line of the log, then its screen's prompt; returns the screen."""
    screen.expect(rf"r\d+: {line}[^\n]*\n")
    screen.expect(re.escape(prompt))
    return screen.last_screen()


def _grid_and_rack(shown: str) -> str:
    """Returns the drawn grid (``y\\x`` to the bag line) and the rack line."""
    lines = shown.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("y\\x"))
    bag = next(i for i, line in enumerate(lines) if line.startswith("bag "))
    rack = next(line for line in lines if line.startswith("Your rack:"))
    return "\n".join([*lines[top:bag], rack])


def _terminal_to_move(server: Server, screen: Screen, name: str, ana: str) -> str:
    """Lets Ana move first if she starts; returns the screen at Ben's turn."""
    if seat_of(get(server.stub, name).current_player) == 0:
        _, moves = legal_moves(server.stub, name, ana)
        submit(server.stub, name, ana, moves[0])
    return _at_prompt(screen, server, name, "your move> ")


def test_qwirkle_a_move_needs_consent_and_an_accepted_takeback_restores_the_board(
    server: Server, tmp_path: Path
) -> None:
    screen, name, ana, _ = _qwirkle(server, tmp_path)
    before = _terminal_to_move(server, screen, name, ana)
    assert "u: take back a move that revealed nothing" in before
    assert "t: propose a takeback" in before
    revision = get(server.stub, name).revision
    screen.child.sendline("1")
    _wait_revision(server, name, revision)
    shown = _logged(screen, "Ben placed", "(q quits)> ")
    assert "u: take back a move that revealed nothing" in shown  # waiting too

    # A Qwirkle placement draws tiles: the server refuses to take it back alone.
    screen.child.sendline("u")
    screen.expect(r"FAILED_PRECONDITION MOVE_NOT_UNDOABLE: [^\n]+\n")
    screen.expect(ANY_PROMPT)

    screen.child.sendline("t")
    shown = _logged(screen, "Ben proposed taking back their last move", "(q quits)> ")
    assert re.search(
        r"You asked to take back r\d+: Ben placed .*; waiting for the others", shown
    )
    proposal = get(server.stub, name).pending_undo
    assert proposal.target_revision == revision
    server.stub.RespondUndo(
        api.RespondUndoRequest(
            name=name,
            proposal_id=proposal.proposal_id,
            vote=api.UNDO_VOTE_ACCEPT,
            request_id=str(uuid.uuid4()),
        ),
        metadata=auth(ana),
        timeout=10,
    )
    screen.expect(rf"r\d+: Ben took back 1 move \(back to revision {revision}\)\n")
    after = _logged(
        screen, r"takeback agreed by all \(Ana answered last\)", "your move> "
    )
    assert _grid_and_rack(after) == _grid_and_rack(before)
    assert "asked to take back" not in after
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_qwirkle_a_proposal_from_the_other_seat_is_shown_and_declined_with_n(
    server: Server, tmp_path: Path
) -> None:
    screen, name, ana, _ = _qwirkle(server, tmp_path)
    _terminal_to_move(server, screen, name, ana)
    revision = get(server.stub, name).revision
    screen.child.sendline("1")
    _wait_revision(server, name, revision)
    _logged(screen, "Ben placed", "(q quits)> ")
    _, moves = legal_moves(server.stub, name, ana)
    count = submit(server.stub, name, ana, moves[0]).game.move_count
    _logged(screen, "Ana placed", "your move> ")
    server.stub.ProposeUndo(
        api.ProposeUndoRequest(name=name, request_id=str(uuid.uuid4())),
        metadata=auth(ana),
        timeout=10,
    )
    shown = _logged(screen, "Ana proposed taking back their last move", "your move> ")
    assert re.search(
        r"Ana asks to take back r\d+: Ana placed [^\n]*   y: accept   n: decline",
        shown,
    )
    assert "y/n: accept/decline the takeback" in shown

    screen.child.sendline("n")
    shown = _logged(screen, "takeback declined by Ben", "your move> ")
    assert "asks to take back" not in shown
    game = get(server.stub, name)
    assert not game.HasField("pending_undo")
    assert game.move_count == count
    screen.child.sendline("q")
    assert screen.finish() == 0


def test_hues_and_cues_the_cue_giver_takes_a_cue_back_alone_with_u(
    server: Server, tmp_path: Path
) -> None:
    name, (ana, _) = open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
            hues_and_cues_config=hues.HuesAndCuesConfig(first_cue_giver=2),
        ),
        ("Ana", "Ben"),
    )
    screen, cy = _join_terminal(server, tmp_path, name, "Cy", "Hues and Cues")
    server.stub.StartGame(api.StartGameRequest(name=name), metadata=auth(ana))
    _at_prompt(screen, server, name, "your move> ")
    revision = get(server.stub, name).revision
    _, cues = legal_moves(server.stub, name, cy)  # the card's targets, cues suggested
    screen.child.sendline("1 lagoon")
    _wait_revision(server, name, revision)
    shown = _logged(screen, 'Cy gave cue 1: "lagoon"', "(q quits)> ")
    assert 'cues: "lagoon"' in shown

    screen.child.sendline("u")
    back = rf"Cy took back 1 move alone \(back to revision {revision}\)"
    shown = _logged(screen, back, "your move> ")
    assert 'cues: "lagoon"' not in shown
    assert f"{len(cues)} legal moves; page 1/" in shown  # the same moves again
    assert not list(get(server.stub, name).hues_and_cues_view.cues)
    screen.child.sendline("q")
    assert screen.finish() == 0
