"""The terminal client on Hues and Cues, Fool! and Gnoming A Round, under a
pseudo-terminal, against a real server and PostgreSQL.

The terminal holds one seat (or spectates); the test plays the other seats
through the stubs and checks what the screen shows against the server's views:
guesses where they were made, the caller's own hand and nobody else's hidden
cards, face-down cards shaded for a spectator.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from tabletop.v1 import (
    fool_pb2,
    game_audit_service_pb2,
    game_audit_service_pb2_grpc,
    game_pb2,
    gnoming_a_round_pb2,
    move_pb2,
)
from tabletop.v1 import game_service_pb2 as api
from tabletop.v1 import hues_and_cues_pb2 as hues

from tests.e2e.client import auth, get, legal_moves, seat_of, submit
from tests.e2e.conftest import Server, start_server
from tests.e2e.playthrough import open_table
from tests.e2e.terminal_screen import Screen, spawn
from tests.pg import fresh_schema

ANY_PROMPT = r"(your move|\(q quits\))> "
ROW_LETTERS = "ABCDEFGHIJKLMNOP"
FOOL_CARD = re.compile(r"\b(?:[GRYB]\d{1,2}|W1-\d)\b")
GNOME_CELL = re.compile(r"░░░|[+-]\d\d|HAZ|MUL")
FOOTER = "spectating; q quits"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """One development-mode server with an operator credential for the module."""
    with fresh_schema() as url:
        running = start_server(url, dev=True, operator_token=secrets.token_hex(16))
        yield running
        assert running.stop() == 0


def _start(server: Server, name: str, token: str) -> None:
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(token), timeout=10
    )


def _shown_at(screen: Screen, revision: int, end: str = ANY_PROMPT) -> str:
    """Waits for the screen drawn at a revision, up to its prompt; returns it."""
    screen.expect(rf"(?s)revision {revision}, move \d+\b.*?{end}")
    return screen.last_screen()


def _logged(screen: Screen, line: str, revision: int) -> str:
    """Waits for a line of the log, then its screen's prompt; returns the screen,
    drawn at ``revision``."""
    screen.expect(rf"r\d+: {line}\n")
    screen.expect(ANY_PROMPT)
    shown = screen.last_screen()
    assert f"revision {revision}, move " in shown
    return shown


def _join_terminal(
    server: Server, tmp_path: Path, name: str, display_name: str, title: str
) -> tuple[Screen, str]:
    """Seats the terminal at a table the stubs opened; returns it and its token."""
    game_id = name.removeprefix("games/")
    screen = spawn(
        server,
        tmp_path,
        *("play", "--join", game_id, "--name", display_name),
        title=title,
    )
    screen.expect(r"Waiting for players")
    path = tmp_path / "tabletop" / "seats" / f"{game_id}.json"
    return screen, str(json.loads(path.read_text())["seat_token"])


# Hues and Cues ---------------------------------------------------------------


def _guess(square: str) -> move_pb2.Move:
    place = hues.HuesAndCuesPlaceGuess(square=hues.HuesAndCuesSquare(id=square))
    return move_pb2.Move(hues_and_cues=hues.HuesAndCuesMove(place_guess=place))


def _board(screen: str) -> dict[str, str]:
    """Returns the two characters the last drawn board shows on each square."""
    lines = screen.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("A "))
    cells: dict[str, str] = {}
    for row, line in enumerate(lines[top : top + len(ROW_LETTERS)]):
        assert line[:2] == f"{ROW_LETTERS[row]} "
        padded = line.ljust(2 + 2 * 30)
        for column in range(30):
            cells[f"{ROW_LETTERS[row]}{column + 1}"] = padded[
                2 + 2 * column : 4 + 2 * column
            ]
    return cells


def _marked(screen: str) -> dict[str, str]:
    """Returns the squares the last drawn board marks, with their marks."""
    return {square: mark for square, mark in _board(screen).items() if mark.strip()}


def _stub_hues(
    server: Server, screen: Screen, name: str, token: str, move: move_pb2.Move
) -> str:
    reply = submit(server.stub, name, token, move)
    return _shown_at(screen, reply.game.revision)


def _hues_table(server: Server, first_cue_giver: int) -> tuple[str, list[str]]:
    """Opens a Hues and Cues table and seats Ana and Ben; the terminal joins third."""
    return open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
            hues_and_cues_config=hues.HuesAndCuesConfig(
                first_cue_giver=first_cue_giver
            ),
        ),
        ("Ana", "Ben"),
    )


def test_hues_and_cues_the_terminal_guesses_typed_squares(
    server: Server, tmp_path: Path
) -> None:
    # Ben (seat 1) gives the cues; the terminal (Cy, seat 2) guesses first.
    name, (ana, ben) = _hues_table(server, 1)
    screen, cy = _join_terminal(server, tmp_path, name, "Cy", "Hues and Cues")
    _start(server, name, ana)
    _, offered = legal_moves(server.stub, name, ben)
    offered[0].hues_and_cues.give_first_cue.cue = "tomato"
    shown = _stub_hues(server, screen, name, ben, offered[0])
    assert 'cues: "tomato"' in shown
    assert shown.endswith("your move> ")
    assert "or type a square, e.g. H15" in shown
    assert not _marked(shown)  # a guesser sees neither the card nor the target

    before = get(server.stub, name).revision
    screen.child.sendline("h 15")
    shown = _logged(screen, r"Cy guessed H15", _wait_revision(server, name, before))
    assert _marked(shown) == {"H15": "c1"}
    shown = _stub_hues(server, screen, name, ana, _guess("B3"))
    assert _marked(shown) == {"H15": "c1", "B3": "a1"}
    cue = hues.HuesAndCuesGiveSecondCue(cue="ripe")
    second = move_pb2.Move(hues_and_cues=hues.HuesAndCuesMove(give_second_cue=cue))
    shown = _stub_hues(server, screen, name, ben, second)
    assert 'cues: "tomato" / "ripe"' in shown
    shown = _stub_hues(server, screen, name, ana, _guess("P30"))  # Ana, then Cy
    assert shown.endswith("your move> ")
    assert _marked(shown) == {"H15": "c1", "B3": "a1", "P30": "a2"}

    # A square already taken is refused with its reason; nothing moves.
    before = get(server.stub, name).revision
    screen.child.sendline("B3")
    screen.expect(r"FAILED_PRECONDITION SQUARE_TAKEN: [^\n]+\n")
    screen.expect("your move> ")
    assert get(server.stub, name).revision == before
    assert _marked(screen.last_screen()) == {"H15": "c1", "B3": "a1", "P30": "a2"}

    # The last guess ends the round: its target and frame show with the pieces.
    screen.child.sendline("j 20")
    revision = _wait_revision(server, name, before)
    shown = _logged(screen, r"round 1 scored: the target was [A-P]\d+", revision)
    last = get(server.stub, name, cy).hues_and_cues_view.last_round
    assert last.round == 1
    pieces = {"H15": "c1", "B3": "a1", "P30": "a2", "J20": "c2"}
    marks = _marked(shown)
    assert {s: m for s, m in marks.items() if m[1].isdigit()} == pieces
    if last.target.id not in pieces:
        assert marks[last.target.id] == "()"
    assert {s for s, m in marks.items() if m == ".."} <= _around(last.target.id)
    screen.child.sendline("q")
    assert screen.finish() == 0
    assert not any(token in screen.text for token in (ana, ben, cy))


def _around(square: str) -> set[str]:
    row, column = ROW_LETTERS.index(square[0]), int(square[1:])
    return {
        f"{ROW_LETTERS[r]}{c}"
        for r in range(max(0, row - 1), min(len(ROW_LETTERS), row + 2))
        for c in range(max(1, column - 1), min(30, column + 1) + 1)
    }


def test_hues_and_cues_the_terminal_gives_typed_cues(
    server: Server, tmp_path: Path
) -> None:
    name, (ana, ben) = _hues_table(server, 2)  # the terminal gives the cues
    screen, cy = _join_terminal(server, tmp_path, name, "Cy", "Hues and Cues")
    _start(server, name, ana)
    revision = get(server.stub, name).revision
    shown = _shown_at(screen, revision)
    card = [s.id for s in get(server.stub, name, cy).hues_and_cues_view.card.squares]
    assert len(card) == 4
    assert _marked(shown) == dict.fromkeys(card, "<>")
    assert f"or type a target and a cue: {card[0]} ocean" in shown  # as typed, it plays
    assert "4 legal moves; page 1/1" in shown

    # A basic colour word as the cue, for a target by number, is refused.
    screen.child.sendline("2 blueberry")
    screen.expect(r"INVALID_ARGUMENT CUE_BASIC_COLOR: [^\n]+\n")
    screen.expect("your move> ")
    assert get(server.stub, name).revision == revision

    chosen = card[3]
    screen.child.sendline(f"{chosen[0].lower()} {chosen[1:]} lagoon")  # "j 30 lagoon"
    shown = _logged(
        screen, r'Cy gave cue 1: "lagoon"', _wait_revision(server, name, revision)
    )
    assert 'cues: "lagoon"' in shown
    assert f"your target {chosen}" in shown
    assert _board(shown)[chosen] == "()"
    seen = get(server.stub, name, ana).hues_and_cues_view
    assert list(seen.cues) == ["lagoon"]
    assert not seen.HasField("target")

    # The guessers' pieces show where they were placed, the target beside them.
    _stub_hues(server, screen, name, ana, _guess("A1"))
    shown = _stub_hues(server, screen, name, ben, _guess("A2"))
    marks = _marked(shown)
    assert {s: m for s, m in marks.items() if m[1].isdigit()} == {
        "A1": "a1",
        "A2": "b1",
    }
    assert marks[chosen] == "()"
    assert "or type a second cue of one or two words, or skip" in shown
    revision = get(server.stub, name).revision
    screen.child.sendline("sea foam")
    shown = _logged(
        screen, r'Cy gave cue 2: "sea foam"', _wait_revision(server, name, revision)
    )
    assert 'cues: "lagoon" / "sea foam"' in shown
    screen.child.sendline("q")
    assert screen.finish() == 0


# Fool! -----------------------------------------------------------------------


def _fool_cards(cards: Iterable[fool_pb2.FoolCard]) -> list[str]:
    """Returns cards as the rules write them: ``G17``, ``W1-4``."""
    return [
        f"W1-{card.copy}"
        if card.color == fool_pb2.FOOL_COLOR_WILD
        else f"{'?GRYB'[card.color]}{card.value}"
        for card in cards
    ]


def _check_fool_screen(
    server: Server, name: str, tokens: list[str], shown: str, me: int
) -> None:
    """The screen shows the seat's hand as GetGame gives it and no other hand."""
    mine = _fool_cards(get(server.stub, name, tokens[me]).fool_view.private_state.hand)
    hand = re.search(r"Your hand: (.*)", shown)
    assert hand is not None
    assert hand.group(1).split() == mine
    public = get(server.stub, name).fool_view.public_state
    held = {
        seat: _fool_cards(get(server.stub, name, token).fool_view.private_state.hand)
        for seat, token in enumerate(tokens)
        if seat != me
    }
    assert [len(cards) for cards in held.values()] == [
        size for seat, size in enumerate(public.hand_sizes) if seat != me
    ]
    seen = set(FOOL_CARD.findall(shown))
    assert not seen & {card for cards in held.values() for card in cards}
    on_table = _fool_cards([played.card for played in public.trick])
    assert seen <= {*mine, *on_table, *_fool_cards(public.played)}


def test_fool_the_terminal_plays_by_number_and_shows_only_its_own_hand(
    server: Server, tmp_path: Path
) -> None:
    name, tokens = open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_FOOL,
            fool_config=fool_pb2.FoolConfig(first_dealer=1),
        ),
        ("Ana", "Ben", "Cy"),
    )
    screen, di = _join_terminal(server, tmp_path, name, "Di", "Fool!")
    tokens.append(di)
    _start(server, name, tokens[0])
    names = ("Ana", "Ben", "Cy", "Di")
    played = 0
    revision = get(server.stub, name).revision
    shown = _shown_at(screen, revision)
    while played < 3:
        _check_fool_screen(server, name, tokens, shown, 3)
        game = get(server.stub, name)
        assert game.revision == revision
        seat = seat_of(game.current_player)
        _, moves = legal_moves(server.stub, name, tokens[seat])
        cards = _fool_cards([move.fool.play_card.card for move in moves])
        if seat == 3:
            assert shown.endswith("your move> ")
            assert f"{len(moves)} legal moves; page 1/1" in shown
            listed = re.findall(r"^ +(\d+)  play (\S+) \(", shown, re.MULTILINE)
            assert listed == [(str(n), card) for n, card in enumerate(cards, 1)]
            screen.child.sendline(str(len(moves)))  # the last listed card
            revision = _wait_revision(server, name, revision)
            card = cards[-1]
            played += 1
        else:
            assert shown.endswith("(q quits)> ")
            assert f"waiting for {names[seat]}..." in shown
            revision = submit(server.stub, name, tokens[seat], moves[0]).game.revision
            card = cards[0]
        wild = r" \(a wild 1\)" if card.startswith("W") else ""
        shown = _logged(
            screen, rf"{names[seat]} played {re.escape(card)}{wild}", revision
        )
        assert re.search(
            rf"^trick: .*{names[seat]} {re.escape(card)}", shown, re.MULTILINE
        ) or ("won the trick" in shown)
    _check_fool_screen(server, name, tokens, shown, 3)
    screen.child.sendline("q")
    assert screen.finish() == 0
    assert not any(token in screen.text for token in tokens)


def _wait_revision(server: Server, name: str, after: int) -> int:
    deadline = time.monotonic() + 15
    while (revision := get(server.stub, name).revision) <= after:
        assert time.monotonic() < deadline, "the move did not reach the server"
        time.sleep(0.05)
    return revision


# Gnoming A Round ---------------------------------------------------------------


def _gnome_label(card: gnoming_a_round_pb2.GnomingARoundCard) -> str:
    kind = card.kind
    if kind == gnoming_a_round_pb2.GNOMING_A_ROUND_CARD_KIND_HAZARD:
        return "HAZ"
    if kind == gnoming_a_round_pb2.GNOMING_A_ROUND_CARD_KIND_MULLIGAN:
        return "MUL"
    return f"{card.value:+03d}"


def _layouts_shown(shown: str, seats: int) -> list[list[str]]:
    """Returns each seat's nine cells as the last drawn layouts show them."""
    lines = shown.splitlines()
    top = next(i for i, line in enumerate(lines) if "total" in line and "Ana" in line)
    rows = [GNOME_CELL.findall(line) for line in lines[top + 1 : top + 4]]
    assert all(len(row) == 3 * seats for row in rows), rows
    return [
        [cell for row in rows for cell in row[3 * seat : 3 * seat + 3]]
        for seat in range(seats)
    ]


def _dealt_layouts(server: Server, name: str) -> list[list[str]]:
    """Returns round 1's dealt layouts from the operator's export of the game."""
    assert server.operator_token is not None
    stub = game_audit_service_pb2_grpc.GameAuditServiceStub(server.channel)
    records = stub.ExportGame(
        game_audit_service_pb2.ExportGameRequest(name=name),
        metadata=auth(server.operator_token),
        timeout=30,
    ).records
    for line in records.splitlines():
        event = json.loads(line).get("event") or {}
        if event.get("_type") == "gnoming_a_round.RoundDealt":
            return [
                [
                    {"hazard": "HAZ", "mulligan": "MUL"}.get(
                        card["kind"], f"{card['value']:+03d}"
                    )
                    for card in layout
                ]
                for layout in event["layouts"]
            ]
    pytest.fail("the export has no dealt layouts")


def _gnome_move(
    server: Server, name: str, token: str, action: str, value: int | None = None
) -> move_pb2.Move:
    """Returns the seat's legal move of a kind (at a position or pile, if given)."""
    _, moves = legal_moves(server.stub, name, token)
    for move in moves:
        if move.gnoming_a_round.WhichOneof("action") != action:
            continue
        detail = getattr(move.gnoming_a_round, action)
        if value is None or value in (
            getattr(detail, "position", None),
            getattr(detail, "pile", None),
        ):
            return move
    pytest.fail(f"no legal {action} {value}")


def _gnome_logged(screen: Screen, line: str, revision: int) -> str:
    """Waits for a line of the spectator's log and the screen that holds it."""
    screen.expect(rf"r\d+: {line}\n")
    screen.expect(FOOTER)
    shown = screen.last_screen()
    assert f"revision {revision}, move " in shown
    return shown


def _check_layouts(server: Server, name: str, shown: str) -> list[list[str]]:
    """Face-up cards show their value, face-down ones are shaded; returns the cells."""
    public = get(server.stub, name).gnoming_a_round_view.public_state
    cells = _layouts_shown(shown, 3)
    for seat, layout in enumerate(public.layouts):
        for position, slot in enumerate(layout.positions):
            wanted = "░░░" if slot.face_down else _gnome_label(slot.card)
            assert cells[seat][position] == wanted, (seat, position)
    return cells


def test_spectating_gnoming_a_round_shows_moves_live_and_no_face_down_card(
    server: Server, tmp_path: Path
) -> None:
    name, tokens = open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_GNOMING_A_ROUND,
            gnoming_a_round_config=gnoming_a_round_pb2.GnomingARoundConfig(),
        ),
    )
    _start(server, name, tokens[0])
    dealt = _dealt_layouts(server, name)
    names = ("Ana", "Ben", "Cy")
    screen = spawn(
        server,
        tmp_path,
        "spectate",
        name.removeprefix("games/"),
        title="Gnoming A Round",
    )
    shown = _shown_at(screen, get(server.stub, name).revision, FOOTER)
    assert _layouts_shown(shown, 3) == [["░░░"] * 9] * 3

    for seat in range(3):  # the initial flips, each seat its own two cards
        _, moves = legal_moves(server.stub, name, tokens[seat])
        flip = moves[seat]  # positions 0+1, 0+2, 0+3: different per seat
        reply = submit(server.stub, name, tokens[seat], flip)
        shown = _shown_at(screen, reply.game.revision, FOOTER)
        assert re.search(rf"r\d+: {names[seat]} flipped two cards", shown)
        cells = _check_layouts(server, name, shown)
        for position in flip.gnoming_a_round.flip_initial.positions:  # as dealt
            assert cells[seat][position] == dealt[seat][position]
    # A turn: draw from the pile; the drawn card stays hidden from the spectator
    # until it is kept, here on a face-down position.
    public = get(server.stub, name).gnoming_a_round_view.public_state
    seat = seat_of(public.active_player)
    draw = _gnome_move(server, name, tokens[seat], "draw_from_pile")
    revision = submit(server.stub, name, tokens[seat], draw).game.revision
    shown = _gnome_logged(screen, rf"{names[seat]} drew from the pile", revision)
    _check_layouts(server, name, shown)
    drawn = get(server.stub, name, tokens[seat]).gnoming_a_round_view.private_state
    label = _gnome_label(drawn.drawn_card)
    status = next(line for line in shown.splitlines() if line.startswith("round 1/3"))
    assert status.endswith(f"{names[seat]}'s turn  in hand: a drawn card")
    assert label not in status
    layout = public.layouts[seat].positions
    down = max(p for p, slot in enumerate(layout) if slot.face_down)
    keep = _gnome_move(server, name, tokens[seat], "keep", down)
    revision = submit(server.stub, name, tokens[seat], keep).game.revision
    # The face-down card it turned out is named, and it is the one dealt there.
    kept = f"{names[seat]} kept {label} at position {down}, turning out face-down"
    shown = _gnome_logged(screen, re.escape(f"{kept} {dealt[seat][down]}"), revision)
    assert _check_layouts(server, name, shown)[seat][down] == label
    # The face-down card it displaced is shown now, and it is the one dealt there.
    assert f"in hand: {dealt[seat][down]}" in shown
    # Whatever the displaced card asks for next, until the next player's turn.
    while (
        active := seat_of(
            get(server.stub, name).gnoming_a_round_view.public_state.active_player
        )
    ) == seat:
        _, moves = legal_moves(server.stub, name, tokens[seat])
        revision = submit(server.stub, name, tokens[seat], moves[0]).game.revision
        _check_layouts(server, name, _shown_at(screen, revision, FOOTER))
    top = get(server.stub, name).gnoming_a_round_view.public_state.discard_piles[0].top
    take = _gnome_move(server, name, tokens[active], "take_from_discard", 1)
    revision = submit(server.stub, name, tokens[active], take).game.revision
    taken = rf"{names[active]} took {re.escape(_gnome_label(top))} from discard 1"
    shown = _gnome_logged(screen, taken, revision)
    _check_layouts(server, name, shown)
    assert f"in hand: {_gnome_label(top)}" in shown  # a card everyone saw
    screen.child.sendline("q")
    assert screen.finish() == 0
