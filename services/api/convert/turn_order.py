"""``GameStarted.turn_order``: the seats in the order of play.

Every game goes clockwise from the seat that takes its first turn, and who
that is may follow from the opening that ``GameStarted`` precedes: Qwirkle's
deal chooses its starting player, Hues and Cues may draw its first cue giver.
``GameStarted`` stores only the number of seats, and an event is converted
with the game as it stood right after it (a live feed's entry), before that
opening. So the opening is decided again, as at the start, from the table
options and the seed in the game's first event: the audit re-decides every
record the same way, so it gives the stored opening. Nothing stored changes,
and the answer is kept per game, as one game's is always the same.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable

from domain.common.rng import Rng
from domain.games.registry import GAMES
from services.api.convert.registry import converter_for
from services.records import GameRecord


def order_of_play(record: GameRecord, players: int) -> tuple[int, ...]:
    """Returns the seats of a game started with ``players`` seats, in order of play."""
    table = record.table
    first = _first_turn(table.game_type, players, table.config, table.seed)
    return tuple((first + step) % players for step in range(players))


@functools.lru_cache(maxsize=1024)
def _first_turn(game_type: str, players: int, config: Hashable, seed: str) -> int:
    """Returns the seat that takes the first turn, from the game's opening."""
    rules = GAMES[game_type]
    initial = rules.initial_state(players, config)
    opened = rules.fold(initial, rules.setup(initial, Rng(bytes.fromhex(seed))))
    first_turn = converter_for(game_type).first_turn
    if first_turn is not None:
        return first_turn(opened)
    to_move = rules.to_move(opened)
    if len(to_move) != 1:
        msg = (
            f"{game_type} waits for {len(to_move)} seats after its opening: "
            "its converter must declare first_turn"
        )
        raise ValueError(msg)
    return to_move[0]
