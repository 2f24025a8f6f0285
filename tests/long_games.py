"""Long games for tests of loading: cues given and taken back, again and again."""

from __future__ import annotations

from uuid import UUID

from domain.common.decision import Rejected
from domain.games.hues_and_cues import RULES, GiveFirstCue, HuesAndCuesConfig
from services.calls import (
    Call,
    CreateGame,
    JoinGame,
    RespondUndo,
    SeatRequest,
    SentMove,
    SubmitMove,
)
from services.games import Applied, GamesApp
from services.records import GameRecord
from tests.helpers import SEED
from tests.playing import sent_move


def first_cue(record: GameRecord) -> SentMove:
    """Returns seat 0's first legal cue, as a request sends it."""
    moves = RULES.legal_moves(record.table.game, 0)
    return sent_move(next(m for m in moves if isinstance(m, GiveFirstCue)))


def long_game(app: GamesApp, events: int) -> UUID:
    """Returns a Hues and Cues game grown to at least ``events`` events.

    Seat 0 gives a first cue and the others agree to take it back (alone, a
    seat may take back only a few moves a turn, T18), eight events a cycle;
    most requests carry a request id, so the game remembers many.
    """
    config = HuesAndCuesConfig(first_cue_giver=0, free_choice_variant=True)
    created = app.create_game(
        CreateGame(RULES.name, config, 3, "Ana", SEED, "create", "h")
    )
    assert not isinstance(created, Rejected)
    game_id = created.record.game_id
    tokens = [created.token]
    for name in ("Ben", "Cy"):
        joined = app.join_game(JoinGame(game_id, name))
        assert not isinstance(joined, Rejected)
        tokens.append(joined.token)
    token = created.token
    applied = app.start_game(SeatRequest(game_id, Call(token)))
    cycle = 0
    while isinstance(applied, Applied) and applied.record.revision < events:
        cycle += 1
        request = f"cue-{cycle}" if cycle % 2 else ""
        cue = SubmitMove(game_id, first_cue(applied.record), Call(token, request, "h"))
        applied = app.submit_move(cue)
        assert isinstance(applied, Applied), applied
        applied = take_back(app, game_id, tokens, cycle)
    assert isinstance(applied, Applied), applied
    return game_id


def take_back(
    app: GamesApp, game_id: UUID, tokens: list[str], cycle: int
) -> Applied | Rejected:
    """Seat 0 proposes taking its move back; the other seats accept."""
    applied = app.propose_undo(
        SeatRequest(game_id, Call(tokens[0], f"undo-{cycle}", "h"))
    )
    assert isinstance(applied, Applied), applied
    proposal = applied.record.table.undo.proposal
    assert proposal is not None
    for seat in (1, 2):
        call = Call(tokens[seat], f"accept-{cycle}-{seat}", "h")
        applied = app.respond_undo(
            RespondUndo(game_id, proposal.proposal_id, accept=True, call=call)
        )
    return applied
