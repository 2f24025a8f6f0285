"""Four seats play Fool! to the end through the real server and PostgreSQL.

A spectator follows the whole game on ``StreamGame``; the players replay a
middle revision and take back two moves by consent on the way, each played
again with the same outcome (the same next deal when it ended a round).
"""

from __future__ import annotations

import random
import uuid

import grpc
from tabletop.v1 import event_pb2, fool_pb2, game_pb2, move_pb2
from tabletop.v1 import game_service_pb2 as api

from tests.e2e.client import (
    Spectator,
    auth,
    expect_error,
    get,
    legal_moves,
    seat_of,
    submit,
    verified_export,
)
from tests.e2e.conftest import Server

SEED = bytes(range(32))
NAMES = ("Ana", "Ben", "Cy", "Di")


def open_table(server: Server) -> tuple[str, list[str]]:
    """Opens a Fool! table dealt first by seat 2 and seats four players."""
    created = server.stub.CreateGame(
        api.CreateGameRequest(
            game=game_pb2.Game(
                game_type=game_pb2.GAME_TYPE_FOOL,
                fool_config=fool_pb2.FoolConfig(first_dealer=2),
            ),
            display_name=NAMES[0],
            seed=SEED,
            request_id=str(uuid.uuid4()),
        ),
        timeout=10,
    )
    name, tokens = created.game.name, [created.seat_token]
    for display_name in NAMES[1:]:
        joined = server.stub.JoinGame(
            api.JoinGameRequest(name=name, display_name=display_name), timeout=10
        )
        tokens.append(joined.seat_token)
    return name, tokens


def fool_events(events: list[event_pb2.GameEvent]) -> list[fool_pb2.FoolEvent]:
    """Returns the Fool! facts of a reply, without revisions or times."""
    return [event.fool for event in events if event.HasField("fool")]


def take_back(server: Server, name: str, tokens: list[str], seat: int) -> None:
    """Takes back ``seat``'s last move: it proposes, every other seat accepts."""
    # D14: a played card was hidden in a hand, so nobody takes it back alone.
    code, reason, _ = expect_error(
        server.stub.UndoMove,
        api.UndoMoveRequest(name=name),
        metadata=auth(tokens[seat]),
        timeout=10,
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MOVE_NOT_UNDOABLE")
    proposed = server.stub.ProposeUndo(
        api.ProposeUndoRequest(name=name), metadata=auth(tokens[seat]), timeout=10
    )
    proposal = proposed.game.pending_undo.proposal_id
    others = [other for other in range(len(tokens)) if other != seat]
    for other in others:
        answered = server.stub.RespondUndo(
            api.RespondUndoRequest(
                name=name, proposal_id=proposal, vote=api.UNDO_VOTE_ACCEPT
            ),
            metadata=auth(tokens[other]),
            timeout=10,
        )
    kinds = [event.WhichOneof("event") for event in answered.events]
    assert kinds == ["undo_accepted", "moves_undone", "undo_resolved"]
    assert not answered.game.HasField("pending_undo")
    assert seat_of(answered.game.current_player) == seat


def check_middle_revision(server: Server, name: str, tokens: list[str]) -> None:
    """A replay of a game in progress shows the caller's perspective then."""
    revision = get(server.stub, name).revision // 2
    request = api.GetGameRevisionRequest(name=f"{name}/revisions/{revision}")
    watched = server.stub.GetGameRevision(request, timeout=10).snapshot
    assert watched.revision == revision
    assert watched.seed == ""
    assert not watched.fool_view.HasField("private_state")
    assert not watched.fool_view.public_state.revealed_hands
    seated = server.stub.GetGameRevision(
        request, metadata=auth(tokens[1]), timeout=10
    ).snapshot
    sizes = seated.fool_view.public_state.hand_sizes
    assert len(seated.fool_view.private_state.hand) == sizes[1]


def play(
    server: Server, name: str, tokens: list[str], chooser: random.Random
) -> list[str]:
    """Plays random legal cards to the end; returns which takebacks happened."""
    takebacks: list[str] = []
    current = get(server.stub, name)
    while current.state == game_pb2.GAME_STATE_IN_PROGRESS:
        seat = seat_of(current.current_player)
        revision, moves = legal_moves(server.stub, name, tokens[seat])
        move: move_pb2.Move = chooser.choice(moves)
        reply = submit(server.stub, name, tokens[seat], move, revision)
        facts = [fact.WhichOneof("event") for fact in fool_events(list(reply.events))]
        first_card = current.move_count == 0
        round_end = "hands_dealt" in facts and "round_scored" in facts
        played = [e.move_played for e in reply.events if e.HasField("move_played")]
        # A client can tell before proposing which moves no takeback crosses.
        assert [p.reveals for p in played] == ["round_scored" in facts]
        if round_end and "round end refused" not in takebacks:
            # T19: the round end showed every hand; no takeback may cross it.
            code, reason, _ = expect_error(
                server.stub.ProposeUndo,
                api.ProposeUndoRequest(name=name),
                metadata=auth(tokens[seat]),
                timeout=10,
            )
            assert (code, reason) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "TAKEBACK_CROSSES_REVEAL",
            )
            takebacks.append("round end refused")
        if first_card and not takebacks:
            take_back(server, name, tokens, seat)
            again = submit(server.stub, name, tokens[seat], move)
            assert fool_events(list(again.events)) == fool_events(list(reply.events))
            takebacks.append("first card")
            reply = again
        if reply.game.move_count == 20:
            check_middle_revision(server, name, tokens)
        current = reply.game
    return takebacks


def test_four_seats_play_fool_to_the_end_while_a_spectator_follows(
    server: Server,
) -> None:
    name, tokens = open_table(server)
    spectator = Spectator(server.stub, name)
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    opening = get(server.stub, name, tokens[0])
    assert opening.fool_config.first_dealer == 2
    public = opening.fool_view.public_state
    assert (seat_of(public.dealer), seat_of(public.leader)) == (2, 3)
    assert list(public.hand_sizes) == [12] * 4
    assert len(opening.fool_view.private_state.hand) == 12

    takebacks = play(server, name, tokens, random.Random(2026))

    assert takebacks == ["first card", "round end refused"]
    final = get(server.stub, name)
    assert final.state == game_pb2.GAME_STATE_FINISHED
    items = spectator.finish()
    assert spectator.code == grpc.StatusCode.OK
    *_, last_event, snapshot = items
    finished = last_event.event.game_finished
    assert [s.score for s in finished.scores] == [p.score for p in final.players]
    assert list(finished.winners) == list(final.winners)
    assert snapshot.snapshot.state == game_pb2.GAME_STATE_FINISHED
    assert snapshot.snapshot.seed == final.seed != ""
    seen = [item.event for item in items if item.HasField("event")]
    scored = [e.fool.round_scored for e in seen if e.fool.HasField("round_scored")]
    assert list(scored[-1].totals) == [p.score for p in final.players]
    assert any(e.fool.HasField("game_ended") for e in seen)
    assert sum(e.HasField("moves_undone") for e in seen) == 1
    # Live, the spectator saw no dealt card; a replay after the end shows all.
    dealt = [e.fool.hands_dealt for e in seen if e.fool.HasField("hands_dealt")]
    assert all(not hand.cards for deal in dealt for hand in deal.hands)
    replay = server.stub.GetGameRevision(
        api.GetGameRevisionRequest(name=f"{name}/revisions/{final.revision // 2}"),
        timeout=10,
    ).snapshot
    hands = replay.fool_view.public_state.revealed_hands
    sizes = replay.fool_view.public_state.hand_sizes
    assert [len(hand.cards) for hand in hands] == list(sizes)  # all shown now
    assert replay.seed == final.seed
    assert server.operator_token is not None
    report = verified_export(server.channel, name, server.operator_token)
    assert report.ok, report.render()


def card_move(card: fool_pb2.FoolCard) -> move_pb2.Move:
    """Returns a move that plays ``card``."""
    return move_pb2.Move(
        fool=fool_pb2.FoolMove(play_card=fool_pb2.FoolPlayCard(card=card))
    )


def test_a_first_dealer_off_the_table_is_refused(server: Server) -> None:
    request = api.CreateGameRequest(
        game=game_pb2.Game(
            game_type=game_pb2.GAME_TYPE_FOOL,
            max_players=4,
            fool_config=fool_pb2.FoolConfig(first_dealer=4),
        ),
        display_name="Ana",
    )
    code, reason, metadata = expect_error(server.stub.CreateGame, request, timeout=10)
    assert (code, reason) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "FIRST_DEALER_OUT_OF_RANGE",
    )
    assert metadata == {"firstDealer": "4", "players": "4"}


def test_refused_cards_come_back_with_their_reasons_and_change_nothing(
    server: Server,
) -> None:
    name, tokens = open_table(server)
    server.stub.StartGame(
        api.StartGameRequest(name=name), metadata=auth(tokens[0]), timeout=10
    )
    chooser = random.Random(7)
    refused: dict[str, grpc.StatusCode] = {}
    for _ in range(60):  # until a seat must follow and a Fool sits out
        current = get(server.stub, name)
        seat = seat_of(current.current_player)
        hands = [
            get(server.stub, name, token).fool_view.private_state.hand
            for token in tokens
        ]
        revision, moves = legal_moves(server.stub, name, tokens[seat])
        legal = [move.fool.play_card.card for move in moves]
        fools = [seat_of(f) for f in current.fool_view.public_state.fools]
        nobody = fool_pb2.FoolCard(color=fool_pb2.FOOL_COLOR_RED, value=30)
        attempts = [
            (seat, [c for c in hands[seat] if c not in legal][:1]),
            (seat, hands[(seat + 1) % 4][:1]),  # another seat's card
            ((seat + 1) % 4, hands[(seat + 1) % 4][:1]),
            *((fool, hands[fool][:1]) for fool in fools),
            (seat, [fool_pb2.FoolCard(value=3), nobody]),  # no colour; no card
        ]
        for who, cards in attempts:
            for card in cards:
                code, reason, _ = expect_error(
                    submit, server.stub, name, tokens[who], card_move(card)
                )
                refused[reason] = code
        assert get(server.stub, name).revision == revision  # nothing stored
        submit(server.stub, name, tokens[seat], chooser.choice(moves), revision)
        if len(refused) == 6:
            break
    assert refused == {
        "MUST_FOLLOW_LEAD_COLOUR": grpc.StatusCode.FAILED_PRECONDITION,
        "CARD_NOT_IN_HAND": grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_YOUR_TURN": grpc.StatusCode.FAILED_PRECONDITION,
        "SITTING_OUT": grpc.StatusCode.FAILED_PRECONDITION,
        "MALFORMED_MOVE": grpc.StatusCode.INVALID_ARGUMENT,
        "UNKNOWN_CARD": grpc.StatusCode.INVALID_ARGUMENT,
    }
