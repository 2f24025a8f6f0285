"""Taking moves back at the prompt: the commands, the proposal line, the log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from tabletop.v1 import (
    common_pb2,
    event_pb2,
    game_pb2,
    hues_and_cues_pb2,
    qwirkle_pb2,
)

from infra.terminal.menu import Show, choose, menu_of, render_menu
from infra.terminal.render import describe_event, names_for, typed_move
from infra.terminal.undo import awaits_answer, parse, pending_line, remember
from tests.unit.infra.terminal.drawing import new_game, screen

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
ANA, BEN, CY = (f"games/g1/players/{seat}" for seat in range(3))


def _proposed(
    proposer: str = BEN, accepted: tuple[str, ...] = (), lifetime: float = 120
) -> game_pb2.Game:
    """Returns a 3-seat game where ``proposer`` asks to go back to revision 10."""
    game = new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana", "Ben", "Cy")
    game.pending_undo.proposal_id = 4
    game.pending_undo.proposer = proposer
    game.pending_undo.target_revision = 10
    game.pending_undo.accepted_by.extend(accepted)
    game.pending_undo.expire_time.FromDatetime(NOW + timedelta(seconds=lifetime))
    return game


def _placed(revision: int, actor: str) -> event_pb2.GameEvent:
    placed = qwirkle_pb2.QwirkleTilesPlaced(
        player=actor,
        placements=[
            qwirkle_pb2.QwirklePlacement(
                tile=qwirkle_pb2.QwirkleTile(
                    color=qwirkle_pb2.QWIRKLE_COLOR_RED,
                    shape=qwirkle_pb2.QWIRKLE_SHAPE_SQUARE,
                ),
                at=common_pb2.Coordinate(x=0, y=0),
            )
        ],
    )
    return event_pb2.GameEvent(
        revision=revision,
        actor=actor,
        qwirkle=qwirkle_pb2.QwirkleEvent(tiles_placed=placed),
    )


@pytest.mark.parametrize(
    ("text", "answering", "command"),
    [
        ("u", False, "undo"),
        (" UNDO ", True, "undo"),
        ("t", False, "takeback"),
        ("takeback", True, "takeback"),
        ("y", True, "accept"),
        ("yes", False, "accept"),
        ("n", True, "decline"),
        ("no", True, "decline"),
        ("n", False, None),  # the next page of the list
        ("no", False, None),
        ("p", True, None),
        ("3", True, None),
        ("H15", True, None),
        ("u2", False, None),
        ("t ocean", False, None),
    ],
)
def test_the_undo_commands_are_single_words(
    text: str, answering: bool, command: str | None
) -> None:
    assert parse(text, answering=answering) == command


def test_the_command_letters_are_never_typed_hues_and_cues_moves() -> None:
    game = new_game(game_pb2.GAME_TYPE_HUES_AND_CUES, "Ana", "Ben", "Cy")
    for phase in (
        hues_and_cues_pb2.HUES_AND_CUES_PHASE_FIRST_CUE,
        hues_and_cues_pb2.HUES_AND_CUES_PHASE_FIRST_GUESSES,
    ):
        game.hues_and_cues_view.phase = phase
        for letter in "utyn":
            assert typed_move(game, letter, []) is None
    # A second cue is free text, so the commands are read before typed moves.
    game.hues_and_cues_view.phase = hues_and_cues_pb2.HUES_AND_CUES_PHASE_SECOND_CUE
    assert all(parse(word, answering=False) for word in ("u", "t", "y", "undo"))


def test_n_pages_the_list_unless_a_proposal_awaits_an_answer() -> None:
    game = new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana", "Ben")
    menu = menu_of([], 12)
    assert choose(menu, "n", game) == Show(menu)
    text, _ = screen(render_menu(menu, game))
    assert "n/p: next/previous page" in text
    help_line = "u: take back a move that revealed nothing   t: propose a takeback"
    assert f"{help_line}   r: resign\n" in text
    assert len(f"{help_line}   r: resign") <= 80  # one line of the narrowest screen
    text, _ = screen(render_menu(menu, game, answering=True))
    assert "n/p" not in text
    assert "y/n: accept/decline the takeback" in text


def test_another_players_proposal_asks_for_an_answer_naming_the_move() -> None:
    game = _proposed()
    moves: dict[int, str] = {}
    remember(moves, game, [_placed(9, ANA), _placed(12, BEN)])
    line = pending_line(game, ANA, moves, NOW)
    assert line is not None
    assert line.plain == (
        "Ben asks to take back r12: Ben placed red square at 0,0"
        "   y: accept   n: decline"
    )
    assert awaits_answer(game, ANA, NOW)
    assert not awaits_answer(game, BEN, NOW)  # the proposer
    assert not awaits_answer(game, "", NOW)  # a spectator


def test_the_proposal_line_for_the_proposer_and_for_one_who_accepted() -> None:
    game = _proposed(accepted=(CY,))
    mine = pending_line(game, BEN, {}, NOW)
    assert mine is not None
    assert mine.plain == (
        "You asked to take back the last move (after revision 10); "
        "waiting for the others (accepted so far: Cy)"
    )
    theirs = pending_line(game, CY, {}, NOW)
    assert theirs is not None
    assert theirs.plain.startswith("You accepted Ben's takeback of the last move")
    assert not awaits_answer(game, CY, NOW)
    assert awaits_answer(game, ANA, NOW)


def test_a_lapsed_proposal_is_shown_expired_and_needs_no_answer() -> None:
    game = _proposed(lifetime=-1)
    line = pending_line(game, ANA, {}, NOW)
    assert line is not None
    assert line.plain == "Ben's takeback proposal expired"
    assert not awaits_answer(game, ANA, NOW)
    assert pending_line(new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana"), ANA, {}) is None


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (
            event_pb2.GameEvent(
                undo_proposed=event_pb2.UndoProposed(proposal_id=1, proposer=BEN)
            ),
            "Ben proposed taking back their last move",
        ),
        (
            event_pb2.GameEvent(
                moves_undone=event_pb2.MovesUndone(
                    target_revision=10, moves=1, player=BEN, proposal_id=1
                )
            ),
            "Ben took back 1 move (back to revision 10)",
        ),
        (
            event_pb2.GameEvent(
                moves_undone=event_pb2.MovesUndone(
                    target_revision=7, moves=1, player=ANA
                )
            ),
            "Ana took back 1 move alone (back to revision 7)",
        ),
        (
            event_pb2.GameEvent(
                undo_resolved=event_pb2.UndoResolved(
                    outcome=event_pb2.UNDO_OUTCOME_ACCEPTED, player=CY
                )
            ),
            "takeback agreed by all (Cy answered last)",
        ),
        (
            event_pb2.GameEvent(
                undo_resolved=event_pb2.UndoResolved(
                    outcome=event_pb2.UNDO_OUTCOME_REJECTED, player=ANA
                )
            ),
            "takeback declined by Ana",
        ),
        (
            event_pb2.GameEvent(
                undo_resolved=event_pb2.UndoResolved(
                    outcome=event_pb2.UNDO_OUTCOME_EXPIRED
                )
            ),
            "takeback proposal expired",
        ),
        (
            event_pb2.GameEvent(
                undo_resolved=event_pb2.UndoResolved(
                    outcome=event_pb2.UNDO_OUTCOME_WITHDRAWN
                )
            ),
            "takeback proposal withdrawn",
        ),
    ],
)
def test_the_log_tells_how_a_takeback_went(
    event: event_pb2.GameEvent, line: str
) -> None:
    game = new_game(game_pb2.GAME_TYPE_QWIRKLE, "Ana", "Ben", "Cy")
    assert describe_event(event, names_for(game)) == line
