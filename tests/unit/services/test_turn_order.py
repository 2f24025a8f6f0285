"""``GameStarted.turn_order``, ``Game.players_to_act`` and ``current_player``.

The order of play is checked against play itself: the first seat that acts
alone once the game has started (after Gnoming A Round's initial flips, which
every seat makes at once) must lead it, and the others follow clockwise.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.common.seats import Seat, Spectator
from domain.common.table_state import GameStarted
from domain.games.fool import FoolConfig
from domain.games.gnoming_a_round import GnomingARoundConfig
from domain.games.hues_and_cues import HuesAndCuesConfig
from domain.games.qwirkle import QwirkleConfig
from domain.games.registry import GAMES
from domain.games.split import SplitConfig
from services.acting import players_to_act
from services.api.convert.game import event_to_proto, game_to_proto, player_name
from services.calls import Call, CreateGame, JoinGame, SeatRequest, SubmitMove
from services.games import GamesApp, Seated
from services.records import GameRecord
from services.store import Applied
from tests.playing import Clock, make_app, sent_move

# (game type, table options, seats): every game, with its starting seat moved
# off seat 0 where an option chooses it, and a drawn Hues and Cues cue giver;
# then every registered game (a new one too) with its defaults, at full tables.
TABLES = [
    ("qwirkle", QwirkleConfig(), 4),
    ("hues_and_cues", HuesAndCuesConfig(first_cue_giver=2), 4),
    ("hues_and_cues", HuesAndCuesConfig(), 5),
    ("split", SplitConfig(first_dealer=2), 3),
    ("split", SplitConfig(first_dealer=2), 4),
    ("gnoming_a_round", GnomingARoundConfig(first_player=1), 3),
    ("fool", FoolConfig(first_dealer=3), 4),
    *((name, rules.config_type(), rules.max_players) for name, rules in GAMES.items()),
]
SEEDS = [bytes([n]) * 32 for n in range(1, 6)]


@pytest.fixture
def app() -> GamesApp:
    """Returns an application on the in-memory store."""
    return make_app(Clock())


def _started(
    app: GamesApp, game_type: str, config: Any, players: int, seed: bytes
) -> tuple[UUID, list[str]]:
    created = app.create_game(CreateGame(game_type, config, 0, "P0", seed=seed))
    assert isinstance(created, Seated), created
    game_id, tokens = created.record.game_id, [created.token]
    for seat in range(1, players):
        joined = app.join_game(JoinGame(game_id, f"P{seat}"))
        assert isinstance(joined, Seated), joined
        tokens.append(joined.token)
    assert isinstance(app.start_game(SeatRequest(game_id, Call(tokens[0]))), Applied)
    return game_id, tokens


def _record(app: GamesApp, game_id: UUID, revision: int | None = None) -> GameRecord:
    record = app.get_game(game_id, revision) if revision else app.get_game(game_id)
    assert record is not None
    return record


def _first_alone(app: GamesApp, game_id: UUID, tokens: list[str]) -> int:
    """Lets each seat asked at once act once, if several are; returns the next seat.

    That is the seat taking the first turn, which acts alone.
    """
    together = players_to_act(_record(app, game_id))
    for seat in together if len(together) > 1 else ():
        record = _record(app, game_id)
        move = next(record.rules.legal_moves(record.table.game, seat))
        played = app.submit_move(
            SubmitMove(game_id, sent_move(move), Call(tokens[seat]))
        )
        assert isinstance(played, Applied), played
    (seat,) = players_to_act(_record(app, game_id))
    return seat


@pytest.mark.parametrize(("game_type", "config", "players"), TABLES)
@pytest.mark.parametrize("seed", SEEDS)
def test_turn_order_starts_with_the_first_turn_and_goes_clockwise(
    app: GamesApp, game_type: str, config: Any, players: int, seed: bytes
) -> None:
    game_id, tokens = _started(app, game_type, config, players, seed)
    (started,) = [
        item
        for item in app.recorded_events(
            game_id, gt=0, lte=_record(app, game_id).revision
        )
        if isinstance(item.event, GameStarted)
    ]
    # As a live feed converts it: with the game right after it, before the opening.
    before_opening = _record(app, game_id, started.revision)
    assert before_opening.revision == started.revision
    message = event_to_proto(before_opening, started, Spectator())
    first = _first_alone(app, game_id, tokens)
    expected = [player_name(game_id, (first + n) % players) for n in range(players)]
    assert list(message.game_started.turn_order) == expected
    # As a replay converts it, with the game as it is now: the same order.
    later = event_to_proto(_record(app, game_id), started, Seat(1))
    assert later.game_started.turn_order == message.game_started.turn_order


def test_gnoming_initial_flip_lists_every_player_to_act_and_no_current_player(
    app: GamesApp,
) -> None:
    config = GnomingARoundConfig(first_player=2)
    game_id, tokens = _started(app, "gnoming_a_round", config, 3, SEEDS[0])
    game = game_to_proto(_record(app, game_id), Spectator(), full=False)
    assert list(game.players_to_act) == [player_name(game_id, s) for s in range(3)]
    assert game.current_player == ""
    _first_alone(app, game_id, tokens)
    game = game_to_proto(_record(app, game_id), Seat(0), full=False)
    assert list(game.players_to_act) == [player_name(game_id, 2)]
    assert game.current_player == player_name(game_id, 2)


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_one_player_to_act_is_also_the_current_player(
    app: GamesApp, game_type: str
) -> None:
    rules = GAMES[game_type]
    game_id, tokens = _started(
        app, game_type, rules.config_type(), rules.min_players, SEEDS[1]
    )
    seat = _first_alone(app, game_id, tokens)
    game = game_to_proto(_record(app, game_id), Spectator(), full=False)
    assert list(game.players_to_act) == [player_name(game_id, seat)]
    assert game.current_player == player_name(game_id, seat)


def test_nobody_is_to_act_before_play_begins(app: GamesApp) -> None:
    created = app.create_game(CreateGame("qwirkle", QwirkleConfig(), 0, "Ada"))
    assert isinstance(created, Seated), created
    game = game_to_proto(created.record, Spectator(), full=False)
    assert list(game.players_to_act) == []
    assert game.current_player == ""
