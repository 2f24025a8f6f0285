"""Three seats play Hues and Cues to the end through the real server.

A spectator follows the whole game on ``StreamGame`` and never receives the
drawn card or the target before it is revealed; on the way the cue giver takes
back a cue alone, a middle revision is replayed, and the operator's export of
the finished game verifies. A square spelt otherwise than the server writes it
is refused. ``ListGameTypes`` gives every square's colour.
"""

from __future__ import annotations

import random

import grpc
from tabletop.v1 import game_pb2, hues_and_cues_pb2, move_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import Spectator, auth, error_of, expect_error
from tests.e2e.conftest import Server
from tests.e2e.playthrough import (
    by_action,
    check_the_finished_game,
    open_table,
    play_with_one_self_undo,
)


def test_three_seats_play_hues_and_cues_to_the_end_while_a_spectator_follows(
    server: Server,
) -> None:
    name, tokens = open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
            hues_and_cues_config=hues_and_cues_pb2.HuesAndCuesConfig(),
        ),
    )
    spectator = Spectator(server.stub, name)
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    chooser = random.Random(2026)
    undone = play_with_one_self_undo(
        server,
        name,
        tokens,
        by_action("hues_and_cues", chooser),
        "hues_and_cues",
    )
    assert undone == 1
    check_the_finished_game(server, name, spectator)

    items = spectator.items  # complete: the stream has ended

    facts = [
        item.event.hues_and_cues
        for item in items
        if item.HasField("event") and item.event.HasField("hues_and_cues")
    ]
    drawn = [f.card_drawn for f in facts if f.HasField("card_drawn")]
    chosen = [f.target_chosen for f in facts if f.HasField("target_chosen")]
    scored = [f.round_scored for f in facts if f.HasField("round_scored")]
    started = [f.round_started for f in facts if f.HasField("round_started")]
    assert len(drawn) == len(scored) == len(started)
    # Three players give cues twice, then tie-break rounds while leaders tie.
    assert [s.tiebreak for s in started][:6] == [False] * 6
    assert all(s.tiebreak for s in started[6:])
    assert not any(d.HasField("card") for d in drawn)
    assert not any(c.HasField("target") for c in chosen)
    assert all(s.target.id for s in scored)
    ended = next(f.game_ended for f in facts if f.HasField("game_ended"))
    totals = [
        sum(p.points for s in scored for p in s.points if p.player == player)
        for player in (p.player for p in ended.scores)
    ]
    assert [p.points for p in ended.scores] == totals


def test_a_spectator_sees_no_card_or_target_until_the_reveal(server: Server) -> None:
    name, tokens = open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
            hues_and_cues_config=hues_and_cues_pb2.HuesAndCuesConfig(),
        ),
    )
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    game = server.stub.GetGame(api.GetGameRequest(name=name), timeout=10).game
    view = game.hues_and_cues_view
    assert view.phase == hues_and_cues_pb2.HUES_AND_CUES_PHASE_FIRST_CUE
    giver = int(view.cue_giver.rsplit("/", 1)[1])
    mine = server.stub.GetGame(
        api.GetGameRequest(name=name), metadata=auth(tokens[giver]), timeout=10
    ).game.hues_and_cues_view
    assert len(mine.card.squares) == 4
    assert not view.HasField("card")
    guesser = (giver + 1) % len(tokens)
    theirs = server.stub.GetGame(
        api.GetGameRequest(name=name), metadata=auth(tokens[guesser]), timeout=10
    ).game.hues_and_cues_view
    assert not theirs.HasField("card")

    # A target off the card is refused without naming the card's squares.
    off_card = next(
        f"{row}{column}"
        for row in "ABCDEFGHIJKLMNOP"
        for column in range(1, 31)
        if f"{row}{column}" not in {s.id for s in mine.card.squares}
    )
    move = move_pb2.Move(
        hues_and_cues=hues_and_cues_pb2.HuesAndCuesMove(
            give_first_cue=hues_and_cues_pb2.HuesAndCuesGiveFirstCue(
                target=hues_and_cues_pb2.HuesAndCuesSquare(id=off_card), cue="tomato"
            )
        )
    )
    code, reason, metadata = expect_error(
        server.stub.SubmitMove,
        api.SubmitMoveRequest(name=name, move=move),
        metadata=auth(tokens[giver]),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TARGET_NOT_ON_CARD")
    assert not any(s.id in str(metadata) for s in mine.card.squares)

    # A cue naming a basic colour is refused with its own reason; nothing is stored.
    move.hues_and_cues.give_first_cue.target.id = mine.card.squares[0].id
    move.hues_and_cues.give_first_cue.cue = "blueberry"
    code, reason, _ = expect_error(
        server.stub.SubmitMove,
        api.SubmitMoveRequest(name=name, move=move),
        metadata=auth(tokens[giver]),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "CUE_BASIC_COLOR")
    after = server.stub.GetGame(api.GetGameRequest(name=name), timeout=10).game
    assert after.revision == game.revision

    move.hues_and_cues.give_first_cue.cue = "Tomato"
    reply = server.stub.SubmitMove(
        api.SubmitMoveRequest(name=name, move=move),
        metadata=auth(tokens[giver]),
        timeout=10,
    )
    assert reply.game.hues_and_cues_view.target.id == mine.card.squares[0].id
    seen = server.stub.GetGame(
        api.GetGameRequest(name=name), metadata=auth(tokens[guesser]), timeout=10
    ).game.hues_and_cues_view
    assert list(seen.cues) == ["Tomato"]
    assert not seen.HasField("target")


def test_a_square_spelt_otherwise_than_the_server_writes_it_is_refused(
    server: Server,
) -> None:
    # D30: one spelling per square; "h15", "H 15" and "H015" are refused
    # before the game is loaded, naming the spelling to use, and nothing is stored.
    name, tokens = open_table(
        server,
        game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_HUES_AND_CUES,
            hues_and_cues_config=hues_and_cues_pb2.HuesAndCuesConfig(
                first_cue_giver=0, free_choice_variant=True
            ),
        ),
    )
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    before = server.stub.GetGame(api.GetGameRequest(name=name), timeout=10).game
    field = "move.hues_and_cues.give_first_cue.target.id"
    for spelt, written in (("h15", "H15"), ("H 15", "H15"), ("A01", "A1")):
        move = _first_cue(spelt, "lagoon")
        try:
            server.stub.SubmitMove(
                api.SubmitMoveRequest(name=name, move=move),
                metadata=auth(tokens[0]),
                timeout=10,
            )
        except grpc.RpcError as error:
            code, reason, metadata = error_of(error)
            message = error.details() or ""
        else:
            raise AssertionError(spelt)
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE")
        assert metadata["field"] == field
        assert "a capital letter A to P, then a number 1 to 30" in message
        assert message.endswith(f"{spelt!r} is written {written}.")
    after = server.stub.GetGame(api.GetGameRequest(name=name), timeout=10).game
    assert after.revision == before.revision
    assert not after.hues_and_cues_view.cues

    reply = server.stub.SubmitMove(
        api.SubmitMoveRequest(name=name, move=_first_cue("H15", "lagoon")),
        metadata=auth(tokens[0]),
        timeout=10,
    )
    assert reply.game.revision > before.revision
    assert reply.game.hues_and_cues_view.target.id == "H15"


def _first_cue(square: str, cue: str) -> move_pb2.Move:
    return move_pb2.Move(
        hues_and_cues=hues_and_cues_pb2.HuesAndCuesMove(
            give_first_cue=hues_and_cues_pb2.HuesAndCuesGiveFirstCue(
                target=hues_and_cues_pb2.HuesAndCuesSquare(id=square), cue=cue
            )
        )
    )


def test_the_catalogue_lists_every_game_and_the_board_colours(server: Server) -> None:
    catalogue = server.stub.ListGameTypes(api.ListGameTypesRequest(), timeout=10)
    by_type = {info.game_type: info for info in catalogue.game_types}
    assert set(by_type) == {
        game_pb2.GAME_TYPE_QWIRKLE,
        game_pb2.GAME_TYPE_HUES_AND_CUES,
        game_pb2.GAME_TYPE_SPLIT,
        game_pb2.GAME_TYPE_GNOMING_A_ROUND,
        game_pb2.GAME_TYPE_FOOL,
    }
    hues = by_type[game_pb2.GAME_TYPE_HUES_AND_CUES]
    assert (hues.min_players, hues.max_players) == (3, 10)
    assert [o.field for o in hues.options] == ["first_cue_giver", "free_choice_variant"]
    board = hues.hues_and_cues
    assert (board.rows, board.columns, len(board.squares)) == (16, 30, 480)
    first, last = board.squares[0], board.squares[-1]
    assert (first.square.id, first.hex, first.red) == ("A1", "#FBD0D0", 251)
    assert (last.square.id, last.hex) == ("P30", "#470613")
    assert "blue" in board.basic_color_parts
